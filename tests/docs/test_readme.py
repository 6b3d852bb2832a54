"""The README stays true: its Python examples run, and its two set-up commands are the CI's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```python\n(.*?)```", README, re.S)


@pytest.mark.parametrize("code", [c for c in EXAMPLES if "planeshift.kernels" in c])
def test_kernel_example_runs(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_ci_runs_the_readme_test_command() -> None:
    command = "python -m pip install -e '.[test]' && python -m pytest"
    assert command in README
    assert command in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_first_command_scans_the_bundled_example() -> None:
    assert "python -m pip install . && planeshift scan examples/legacy_app" in README
    assert (REPO / "examples" / "legacy_app" / "pyproject.toml").is_file()
