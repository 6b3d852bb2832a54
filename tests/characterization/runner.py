"""Runs the characterization suite against another copy of lionagi, such as a migrated tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# Names the folder whose lionagi/ the suite must import; the suite's conftest enforces it.
EXPECT_ENV = "PLANESHIFT_CHARACTERIZE_EXPECT"
SUITE = Path(__file__).resolve().parent
REPO = SUITE.parents[1]


def run_suite(
    package_parent: Path, *pytest_args: str, timeout: float = 600.0
) -> subprocess.CompletedProcess[str]:
    """Run the suite in a subprocess whose ``import lionagi`` finds ``package_parent/lionagi``.

    ``package_parent`` goes first on PYTHONPATH, so the copy shadows an installed lionagi, and
    the suite's conftest fails every test if the copy is not the one imported after all. The
    runner's own test module is left out, so a run never recurses.
    """
    parent = Path(package_parent).resolve()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(parent), env.get("PYTHONPATH")]))
    env[EXPECT_ENV] = str(parent)
    command = [
        sys.executable, "-m", "pytest", str(SUITE),
        f"--ignore={SUITE / 'test_runner.py'}", "-p", "no:cacheprovider", *pytest_args,
    ]
    return subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def copy_installed_lionagi(package_parent: Path) -> Path:
    """Copy the lionagi this interpreter imports to ``package_parent/lionagi`` (no __pycache__)."""
    import lionagi

    copy = Path(package_parent) / "lionagi"
    shutil.copytree(Path(lionagi.__file__).resolve().parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy
