"""lionagi 0.36.0's own migration as a patch series: every patch applies with `git am` on top of
the ones before it on a git copy of the package, and after each the package imports and the
Phase 0 gate the series wrote (its second patch) passes (ADR-0120: each phase a merge gate)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods.test_series import GIT, apply_one_by_one, committed, git, series, subjects

pytestmark = [pytest.mark.corpus, pytest.mark.skipif(GIT is None, reason="git is not installed")]

OWNERS = ("HookBus", "MessageManager", "Broadcaster", "SessionObserver",
          "TerminalCallbackRegistry", "SchedulerSignalBus")


def test_lionagi_s_series_applies_commit_by_commit_and_the_gate_stays_green(
        corpus_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "lionagi-git"
    shutil.copytree(corpus_root, root / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    committed(root)
    out = tmp_path / "patches"
    done = series(root, out, "--no-cache")
    assert done.returncode == 0, done.stderr[-3000:]
    found = [subject.split("] ", 1)[1] for _, subject in subjects(out)]
    assert found[0] == "Vendor the ADR-0120 dispatch kernels as lionagi.runtime.dispatch"
    assert found[1] == "tests: add the Phase 0 characterization gate"
    # one patch per owner the kernels run, each before the call sites that rely on it
    owners = [i for i, s in enumerate(found) if "on the fan-out kernel" in s]
    assert sorted(s.split(" run ")[1].split(" on ")[0] for s in (found[i] for i in owners)) \
        == sorted(OWNERS)
    assert owners == list(range(2, 2 + len(OWNERS)))
    copy = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", str(root), str(copy)).returncode == 0
    applied = apply_one_by_one(copy, out, "lionagi")
    assert len(applied) == len(found)
