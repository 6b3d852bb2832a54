"""Every suppression rule's VALID and INVALID examples, linted for real on the tests' demo bus."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from lint.helpers import lint_project, write_project

from planeshift.rules.suppressions import all_suppression_rules

RULES = all_suppression_rules()
VALID = [(r, i, src) for r in RULES for i, src in enumerate(r.VALID)]
INVALID = [(r, i, ex) for r in RULES for i, ex in enumerate(r.INVALID)]


def _findings(tmp_path: Path, source: str, rule) -> list:
    write_project(tmp_path, {"example.py": textwrap.dedent(source)})
    result = lint_project(tmp_path, ["example.py"])
    return [f.finding for f in result.open if f.finding.rule == rule.code]


def test_suppression_rules_are_found() -> None:
    assert [r.code for r in RULES] == ["PS901", "PS902"]


@pytest.mark.parametrize(("rule", "index", "source"), VALID,
                         ids=[f"{r.code}-valid-{i}" for r, i, _ in VALID])
def test_valid_example_gives_no_finding(tmp_path: Path, rule, index, source) -> None:
    assert _findings(tmp_path, source, rule) == []


@pytest.mark.parametrize(("rule", "index", "example"), INVALID,
                         ids=[f"{r.code}-invalid-{i}" for r, i, _ in INVALID])
def test_invalid_example_gives_the_finding(tmp_path: Path, rule, index, example) -> None:
    found = _findings(tmp_path, example.code, rule)
    assert [f.line for f in found] == [example.line]
    if example.severity is not None:
        assert found[0].severity == example.severity
