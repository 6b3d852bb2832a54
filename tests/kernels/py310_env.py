"""Find a Python 3.10 and give it what the kernels and their tests import there (``exceptiongroup``,
``pytest``, ``click``, and ``anyio``, which a characterized bus uses), for test_kernel_py310.py and
the generated characterization suite on 3.10 (tests/characterize/test_gate.py).

The interpreter: ``$PLANESHIFT_PYTHON310``, else ``python3.10`` on PATH, else pyenv's 3.10 builds;
each candidate is run to check that it really is 3.10 (a pyenv shim answers for a version that is
not selected with an error). When it lacks the packages, a venv with ``--system-site-packages`` is
made once under ``.kernels-py310/`` at the repository root (git-ignored) and pip installs them into
it; a lock file lets concurrent test runs share it, and it is reused until the interpreter changes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".kernels-py310"
NEEDS = ("exceptiongroup", "pytest", "click", "anyio")


class Unavailable(Exception):
    """No usable Python 3.10 here; the message says why (the test skips with it)."""


def _is_310(python: str) -> bool:
    try:
        result = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"],
                                capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0 and result.stdout.strip() == "True"


def _candidates() -> list[str]:
    found = []
    if os.environ.get("PLANESHIFT_PYTHON310"):
        found.append(os.environ["PLANESHIFT_PYTHON310"])
    on_path = shutil.which("python3.10")
    if on_path:
        found.append(on_path)
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            root = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            root = ""
        if root:
            builds = sorted(Path(root, "versions").glob("3.10*/bin/python3.10"),
                            key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parts[-3].split(".")])
            found += [str(p) for p in reversed(builds)]
    return found


def find_python310() -> str:
    """The first candidate that runs as Python 3.10; Unavailable when there is none."""
    tried = _candidates()
    for python in tried:
        if _is_310(python):
            return python
    where = ", ".join(tried) if tried else "no $PLANESHIFT_PYTHON310, no python3.10 on PATH, no pyenv 3.10 build"
    raise Unavailable(f"no Python 3.10 interpreter found ({where})")


def _has_needs(python: str) -> bool:
    probe = "import " + ", ".join(NEEDS)
    result = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120,
                            env=_clean_env())
    return result.returncode == 0


def _clean_env() -> dict[str, str]:
    """The environment without this (3.11) venv's settings, so 3.10 sees only its own packages."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYENV_VERSION")}
    return env


def python310_with_needs() -> str:
    """A Python 3.10 that imports everything in NEEDS: the interpreter itself, or the cached venv."""
    base = find_python310()
    if _has_needs(base):
        return base
    key = hashlib.sha256(os.path.realpath(base).encode()).hexdigest()[:12]
    venv = CACHE / f"venv-{key}"
    python = venv / "bin" / "python"
    CACHE.mkdir(exist_ok=True)
    with open(CACHE / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / "ready").is_file() and _has_needs(str(python)):
            return str(python)
        shutil.rmtree(venv, ignore_errors=True)
        steps = [
            [base, "-m", "venv", "--system-site-packages", str(venv)],
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *NEEDS],
        ]
        for step in steps:
            result = subprocess.run(step, capture_output=True, text=True, timeout=600, env=_clean_env())
            if result.returncode != 0:
                tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
                raise Unavailable(f"could not prepare a 3.10 venv ({' '.join(step[:4])}...): "
                                  + " | ".join(tail))
        if not _has_needs(str(python)):
            raise Unavailable(f"the 3.10 venv at {venv} still cannot import {', '.join(NEEDS)}")
        (venv / "ready").write_text(base + "\n")
    return str(python)
