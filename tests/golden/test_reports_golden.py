"""Whole-tree reports, byte for byte: the analyzer may change shape, its answers may not.

The JSON reports (without ``stats``, whose timings and cache counters vary by design, and with
the scan root replaced by ``<root>``) of lionagi 0.36.0, the bundled example and the perf
fixture tree are compared with golden files. A change in behaviour that is meant shows up as a
diff of these files, reviewed and regenerated with ``PLANESHIFT_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from analyzer.helpers import write_tree
from perf.fixture_tree import fixture_files, run

from planeshift.api import scan
from planeshift.config import Config, load_config
from planeshift.reports.json_report import render_json
from planeshift.types import ScanResult

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def normalised(result: ScanResult) -> str:
    data = json.loads(render_json(result))
    del data["stats"]
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return text.replace(json.dumps(result.root)[1:-1], "<root>")


def check(name: str, actual: str) -> None:
    path = HERE / name
    if os.environ.get("PLANESHIFT_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8", newline="\n")
        return
    assert path.is_file(), f"no golden file {path}; run with PLANESHIFT_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    if actual != expected:  # show the first differing lines, not two megabytes of JSON
        for number, (a, e) in enumerate(zip(actual.splitlines(), expected.splitlines()), 1):
            if a != e:
                pytest.fail(f"{name}:{number} differs\n  golden: {e}\n  now:    {a}")
        pytest.fail(f"{name}: one report is a prefix of the other")


@pytest.mark.corpus
def test_lionagi_report_is_unchanged(corpus_root: Path) -> None:
    check("lionagi-0.36.0.json", normalised(scan(Config(root=corpus_root, use_cache=False,
                                                        jobs=2))))


def test_bundled_example_report_is_unchanged() -> None:
    root = REPO / "examples" / "legacy_app"
    # the library the example's packs name is judged from the packs alone (installed or not)
    config = load_config(root).with_flags(use_cache=False, use_context=False)
    check("legacy_app.json", normalised(scan(config)))


def test_perf_fixture_tree_report_is_unchanged(tmp_path: Path) -> None:
    write_tree(tmp_path, fixture_files())
    check("perf_fixture_tree.json", normalised(run(tmp_path)))
