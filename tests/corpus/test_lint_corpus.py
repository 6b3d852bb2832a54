"""planeshift lint on lionagi 0.36.0: the gate over the real tree, its SARIF valid, PATHS honoured.

The findings pinned here are those of tests/corpus/test_lionagi_corpus.py's scan, read in the
0.36.0 tree; lint reuses the session's scan rather than scanning again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reports.sarif_schema import sarif_errors

from planeshift.config import Config
from planeshift.lint import lint, resolve_scope
from planeshift.lint.baseline import render_baseline
from planeshift.lint.run import baseline_entries
from planeshift.reports.sarif import render_sarif
from planeshift.types import ScanResult

pytestmark = pytest.mark.corpus

# five files a commit might touch: two hold findings, three hold dispatchers and none
CHANGED = ["tools/coding.py", "session/branch.py", "hooks/bus.py", "service/broadcaster.py",
           "session/observer.py"]


def _lint(root: Path, scan: ScanResult, paths: list[str] = (), baseline: Path | None = None):
    config = Config(root=root, use_cache=False, jobs=2)
    scope = resolve_scope(root, [root / p for p in paths], cwd=root)
    return lint(config, scope, baseline, scanned=scan)


def test_whole_tree_sarif_is_valid_and_lists_every_finding(corpus_root: Path,
                                                           lionagi_scan: ScanResult) -> None:
    result = _lint(corpus_root, lionagi_scan)
    doc = json.loads(render_sarif(result))
    assert sarif_errors(doc) == []
    assert len(doc["runs"][0]["results"]) == len(lionagi_scan.findings) == 47
    assert result.failed  # the PS104 and PS110 errors, and warnings at the default fail-on
    assert result.by_severity() == {"error": 2, "warning": 31, "info": 14}


def test_changed_files_and_the_findings_they_reach_are_judged(corpus_root: Path,
                                                              lionagi_scan: ScanResult) -> None:
    """The findings in the changed files, and those elsewhere whose evidence a changed file
    holds: tools/coding.py defines the tool processors factory.py's chained hooks deny through.
    (run.py:793's restore and imodel.py:820's copy, reached from session/branch.py, are
    pass_through: no PS101.)"""
    result = _lint(corpus_root, lionagi_scan, CHANGED)
    sites = [(f.finding.rule, f.finding.file, f.finding.line, f.reached_from) for f in result.open]
    assert sites == [("PS105", "agent/factory.py", 434, ("tools/coding.py",)),
                     ("PS105", "agent/factory.py", 446, ("tools/coding.py",)),
                     ("PS103", "hooks/bus.py", 61, ()),  # HookPoint.ARTIFACT_CREATED, never emitted
                     ("PS101", "session/branch.py", 149, ()), ("PS101", "session/branch.py", 150, ()),
                     ("PS101", "session/branch.py", 151, ()), ("PS104", "session/observer.py", 369, ()),
                     ("PS104", "session/observer.py", 374, ()),
                     ("PS104", "session/observer.py", 594, ()),
                     ("PS102", "tools/coding.py", 360, ())]
    assert result.files_read == len(CHANGED) + 1 and result.errors == ()  # + the reached file


def test_a_baseline_of_the_tree_holds_every_finding(corpus_root: Path, lionagi_scan: ScanResult,
                                                    tmp_path: Path) -> None:
    entries = baseline_entries(_lint(corpus_root, lionagi_scan))
    assert len({e.key for e in entries}) == len(entries) == 47
    baseline = tmp_path / "baseline.json"
    baseline.write_text(render_baseline(entries))
    result = _lint(corpus_root, lionagi_scan, baseline=baseline)
    assert result.open == () and result.count("baselined") == 47 and not result.failed
