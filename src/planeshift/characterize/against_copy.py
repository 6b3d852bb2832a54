"""Run a generated characterization module against a copy of the package (a migrated tree).

The copy's folder goes first on ``PYTHONPATH``, so it shadows the installed package, and
``PLANESHIFT_CHARACTERIZE_EXPECT`` names it: the module's autouse guard then fails every test
whose package was imported from anywhere else. The module runs from a scratch folder under an
empty pytest configuration: no conftest, ini option or rootdir entry of the project it was
written into can put another copy of the package on the path.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXPECT_ENV = "PLANESHIFT_CHARACTERIZE_EXPECT"


class RunError(Exception):
    """The suite cannot be run against the copy (the message says why)."""


def copy_folder(copy: Path, packages: tuple[str, ...]) -> Path:
    """The folder to put on PYTHONPATH: *copy* itself, or its parent when *copy* is the package
    folder; every guarded package must be in it."""
    copy = copy.resolve()
    if copy.name in packages and (copy / "__init__.py").is_file():
        copy = copy.parent
    missing = [p for p in packages if not ((copy / p).is_dir() or (copy / f"{p}.py").is_file())]
    if missing:
        raise RunError(f"{copy} holds no {missing[0]} package (give the folder that holds it)")
    return copy


def run_against(module: Path, copy: Path, packages: tuple[str, ...], *pytest_args: str,
                capture: bool = False,
                timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run *module* with pytest in a subprocess whose imports of *packages* find the copy."""
    if importlib.util.find_spec("pytest") is None:
        raise RunError("pytest is not installed in this interpreter")
    folder = copy_folder(copy, packages)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), env.get("PYTHONPATH")]))
    env[EXPECT_ENV] = str(folder)
    with tempfile.TemporaryDirectory(prefix="planeshift-gate-") as tmp:
        suite = Path(tmp) / module.name
        shutil.copyfile(module, suite)
        config = Path(tmp) / "pytest.ini"
        config.write_text("[pytest]\n", encoding="utf-8")
        command = [sys.executable, "-m", "pytest", str(suite), "-c", str(config), "--rootdir",
                   tmp, "-p", "no:cacheprovider", "-rfEs", *pytest_args]
        return subprocess.run(command, cwd=tmp, env=env, text=True, capture_output=capture,
                              timeout=timeout, check=False)
