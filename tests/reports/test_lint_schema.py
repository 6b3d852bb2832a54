"""The lint JSON report satisfies schema/lint.schema.json (draft 2020-12, checked by jsonschema)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lint.helpers import HAZARD, lint_project, module, write_project

from planeshift.reports.lint_json import (
    SCHEMA_ID,
    lint_dict,
    load_lint_schema,
    render_lint_json,
)

from .lint_sample import clean_sample, lint_sample


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = load_lint_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator: jsonschema.Draft202012Validator, doc: Any) -> list[str]:
    return [e.message for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("make", [lint_sample, clean_sample])
def test_samples_validate(validator, make) -> None:
    assert _errors(validator, json.loads(render_lint_json(make()))) == []


def test_a_real_run_validates(validator, tmp_path: Path) -> None:
    write_project(tmp_path, {"app/main.py": module(f"{HAZARD}  # planeshift: ignore[PS101]\n"),
                             "app/broken.py": "def f(:\n"})
    doc = json.loads(render_lint_json(lint_project(tmp_path)))
    assert _errors(validator, doc) == []
    assert doc["schema"] == SCHEMA_ID and doc["failed"] is True
    assert [f["rule"] for f in doc["findings"]] == ["PS101", "PS901"]
    assert doc["errors"] == [{"file": "app/broken.py", "message": doc["errors"][0]["message"]}]


def test_the_document_reports_statuses_and_counts() -> None:
    doc = lint_dict(lint_sample())
    assert doc["summary"] == {"findings": 4, "severity": {"error": 1, "warning": 2, "info": 1},
                              "suppressed": 1, "baselined": 1, "baseline_fixed": 2, "errors": 1,
                              "files_read": 4}
    statuses = [f["status"] for f in doc["findings"]]
    assert statuses == ["open", "open", "open", "suppressed", "baselined", "open"]
    assert doc["findings"][1]["end_line"] == 45 and doc["findings"][1]["owner"] == "@hooks-team"


@pytest.mark.parametrize(("path", "value"), [
    (("findings", 0, "status"), "hidden"),
    (("findings", 0, "fingerprint"), "abc"),
    (("summary", "severity", "error"), -1),
    (("schema",), "planeshift.lint/2"),
])
def test_contract_breaks_are_rejected(validator, path: tuple, value: Any) -> None:
    doc = copy.deepcopy(lint_dict(lint_sample()))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert _errors(validator, doc) != []
