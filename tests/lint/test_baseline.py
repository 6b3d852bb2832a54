"""The baseline: fingerprints survive edits above a finding and renames elsewhere, new findings
are not hidden, fixed entries are counted, and a malformed file is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planeshift.lint import baseline_entries
from planeshift.lint.baseline import (
    BaselineEntry,
    BaselineError,
    load_baseline,
    merge,
    render_baseline,
)
from planeshift.lint.scope import Scope

from .helpers import HAZARD, lint_project, module, open_findings, write_project

HELPERS = '''
def helper(x):
    return x


def register_all():
    return None
'''

MAIN = f"""
from app.util import helper


def unrelated():
    return helper(1)


{HAZARD}
"""


def _baseline(root: Path, paths: list[str] | None = None) -> Path:
    path = root / "planeshift-baseline.json"
    path.write_text(render_baseline(baseline_entries(lint_project(root, paths or []))))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path, {"app/util.py": HELPERS, "app/main.py": module(MAIN)})


def test_baselined_finding_passes(project: Path) -> None:
    baseline = _baseline(project)
    result = lint_project(project, baseline=baseline)
    assert open_findings(result) == [] and result.count("baselined") == 1
    assert not result.failed and result.baseline_fixed == 0


def test_baseline_survives_lines_inserted_above(project: Path) -> None:
    baseline = _baseline(project)
    main = project / "app" / "main.py"
    main.write_text('"""Module docs, added later."""\n\nimport os\n\n\n' + main.read_text())
    result = lint_project(project, ["app/main.py"], baseline=baseline)
    assert open_findings(result) == [] and result.count("baselined") == 1
    assert result.findings[0].finding.line == 18  # it moved down by five lines


def test_baseline_survives_renames_elsewhere(project: Path) -> None:
    baseline = _baseline(project)
    util = project / "app" / "util.py"
    util.write_text(util.read_text().replace("register_all", "register_everything"))
    main = project / "app" / "main.py"
    main.write_text(main.read_text().replace("def unrelated", "def still_unrelated_but_longer"))
    result = lint_project(project, baseline=baseline)
    assert open_findings(result) == [] and result.count("baselined") == 1


def test_new_finding_is_not_hidden(project: Path) -> None:
    baseline = _baseline(project)
    main = project / "app" / "main.py"
    main.write_text(main.read_text() + "other = EventBus(on_event=[lambda p: send(p)])\n")
    result = lint_project(project, baseline=baseline)
    assert open_findings(result) == [("PS101", "app/main.py", 14)]
    assert result.count("baselined") == 1 and result.failed


def test_an_identical_copy_is_told_apart_by_order(project: Path) -> None:
    baseline = _baseline(project)
    main = project / "app" / "main.py"
    main.write_text(main.read_text() + HAZARD + "\n")
    result = lint_project(project, baseline=baseline)
    prints = sorted(f.fingerprint for f in result.findings)
    assert [p.split(":")[1] for p in prints] == ["0", "1"] and prints[0][:16] == prints[1][:16]
    assert open_findings(result) == [("PS101", "app/main.py", 14)]  # the second one is new


def test_fixed_entries_are_counted(project: Path) -> None:
    baseline = _baseline(project)
    main = project / "app" / "main.py"
    main.write_text(main.read_text().replace(HAZARD, "bus = EventBus()"))
    result = lint_project(project, baseline=baseline)
    assert result.count("baselined") == 0 and result.baseline_fixed == 1


def test_entries_for_files_outside_the_paths_are_not_fixed(project: Path) -> None:
    baseline = _baseline(project)
    result = lint_project(project, ["app/util.py"], baseline=baseline)
    assert result.baseline_fixed == 0 and result.findings == ()


def test_suppressed_finding_uses_up_its_entry(project: Path) -> None:
    baseline = _baseline(project)
    main = project / "app" / "main.py"
    main.write_text(main.read_text().replace(HAZARD, HAZARD + "  # planeshift: ignore[PS101] ok"))
    result = lint_project(project, baseline=baseline)
    assert result.count("suppressed") == 1 and result.baseline_fixed == 0


def test_render_is_sorted_stable_and_versioned(project: Path) -> None:
    first = _baseline(project).read_text()
    assert first == _baseline(project).read_text()
    doc = json.loads(first)
    assert doc["schema"] == "planeshift.baseline/1"
    assert list(doc["findings"][0]) == ["file", "rule", "kind", "fingerprint", "message"]
    entries = [BaselineEntry("b.py", "PS101", "k", "f:0", "m"),
               BaselineEntry("a.py", "PS103", "k", "f:0", "m"),
               BaselineEntry("a.py", "PS101", "k", "f:1", "m")]
    files = [(e["file"], e["rule"]) for e in json.loads(render_baseline(entries))["findings"]]
    assert files == [("a.py", "PS101"), ("a.py", "PS103"), ("b.py", "PS101")]


def test_merge_keeps_entries_of_files_outside_the_scope() -> None:
    old = [BaselineEntry("a.py", "PS101", "k", "x:0", "m"),
           BaselineEntry("b.py", "PS101", "k", "y:0", "m")]
    new = [BaselineEntry("b.py", "PS101", "k", "z:0", "m")]
    assert merge(old, new, Scope(("b.py",), ("b.py",))) == [old[0], new[0]]


@pytest.mark.parametrize(("text", "key", "message"), [
    ("{not json", "<file>", "not JSON"),
    ('{"schema": "planeshift.baseline/2", "findings": []}', "schema", "planeshift.baseline/1"),
    ('{"schema": "planeshift.baseline/1", "findings": {}}', "findings", "expected a list"),
    ('{"schema": "planeshift.baseline/1", "findings": [{"file": "a.py"}]}', "findings[0].rule",
     "expected a string"),
    ('{"schema": "planeshift.baseline/1", "findings": [{"file": "a", "rule": "PS101", "kind": "k", '
     '"fingerprint": "f", "message": "m", "line": 3}]}', "findings[0].line", "unknown key"),
])
def test_malformed_baseline_names_the_file(tmp_path: Path, text: str, key: str,
                                            message: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(text)
    with pytest.raises(BaselineError) as info:
        load_baseline(path)
    assert (info.value.path, info.value.key) == (str(path), key)
    assert message in info.value.detail


def test_missing_baseline_says_how_to_write_one(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="planeshift baseline -o"):
        load_baseline(tmp_path / "nope.json")
