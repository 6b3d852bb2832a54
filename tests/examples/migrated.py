"""How examples/legacy_app_migrated/ is made: copy the legacy app, vendor the kernels into
shop/dispatch, run `planeshift migrate --write`. `python tests/examples/migrated.py` rewrites it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LEGACY = REPO / "examples" / "legacy_app"
MIGRATED = REPO / "examples" / "legacy_app_migrated"
SKIP = shutil.ignore_patterns("__pycache__", ".planeshift_cache")


def produce(dest: Path) -> subprocess.CompletedProcess[str]:
    """The migrated app, made in *dest* (which must not exist) exactly as a user would."""
    from planeshift.vendor import vendor_kernels

    shutil.copytree(LEGACY, dest, ignore=SKIP)
    vendor_kernels(dest / "shop" / "dispatch", "shop.dispatch")
    return subprocess.run(
        [sys.executable, "-m", "planeshift", "migrate", "--root", str(dest), "--write",
         "--no-cache"], cwd=dest, capture_output=True, text=True, timeout=300, check=False)


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and ".planeshift_cache" not in p.parts}


if __name__ == "__main__":
    shutil.rmtree(MIGRATED, ignore_errors=True)
    done = produce(MIGRATED)
    sys.stderr.write(done.stderr)
    raise SystemExit(done.returncode)
