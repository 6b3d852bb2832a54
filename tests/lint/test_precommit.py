"""The planeshift-lint pre-commit hook, end to end: pre-commit installs this repository into its
own environment (from the package index) and runs the hook in a temporary git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .helpers import HAZARD, module, write_project

REPO = Path(__file__).resolve().parents[2]


def test_the_hook_is_declared_for_a_whole_project_analysis() -> None:
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "planeshift-lint" and hook["entry"] == "planeshift lint"
    assert hook["pass_filenames"] is True and hook["require_serial"] is True
    assert hook["language"] == "python" and "python" in hook["types_or"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def _try_repo(project: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "planeshift-lint",
         "--verbose", "--files", *files],
        cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_pre_commit_runs_the_hook_on_the_changed_files(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", {"app/main.py": module(HAZARD),
                                                   "app/clean.py": "x = 1\n"})
    _git(project, "init", "-q")
    _git(project, "add", ".")
    home = tmp_path / "pre-commit-home"

    failed = _try_repo(project, home, "app/main.py", "app/clean.py")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "app/main.py:6:16: PS101 [error]" in failed.stdout

    main = project / "app" / "main.py"
    main.write_text(main.read_text().replace(
        HAZARD, HAZARD + "  # planeshift: ignore[PS101] fire-and-forget by design; owner @hooks"))
    _git(project, "add", ".")
    passed = _try_repo(project, home, "app/main.py")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "1 suppressed" in passed.stdout
