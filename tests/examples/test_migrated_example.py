"""The bundled example, before and after `planeshift migrate`: both run and print the same, and
the committed migrated copy is exactly what `migrate --write` makes of the legacy app today."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .migrated import LEGACY, MIGRATED, files, produce


def run_shop(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "shop"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_legacy_and_the_migrated_app_print_the_same() -> None:
    legacy, migrated = run_shop(LEGACY), run_shop(MIGRATED)
    assert legacy.returncode == 0, legacy.stderr
    assert migrated.returncode == 0, migrated.stderr
    assert legacy.stdout.splitlines()[0] == "denied: shell tools are not allowed in the shop"
    assert migrated.stdout == legacy.stdout


def test_the_committed_migrated_copy_is_what_migrate_write_produces_today(
        tmp_path: Path) -> None:
    if os.environ.get("PLANESHIFT_UPDATE_EXAMPLE") == "1":
        shutil.rmtree(MIGRATED)
        assert produce(MIGRATED).returncode == 0
    done = produce(tmp_path / "app")
    assert done.returncode == 0, done.stderr
    assert "3 files written" in done.stderr
    fresh, committed = files(tmp_path / "app"), files(MIGRATED)
    assert sorted(fresh) == sorted(committed)
    stale = [rel for rel in fresh if fresh[rel] != committed[rel]]
    assert not stale, f"stale: run `python tests/examples/migrated.py` ({stale})"


def test_a_second_run_on_the_migrated_copy_changes_nothing(tmp_path: Path) -> None:
    copy = tmp_path / "again"
    shutil.copytree(MIGRATED, copy)
    done = subprocess.run(
        [sys.executable, "-m", "planeshift", "migrate", "--root", str(copy), "--check",
         "--no-cache"], cwd=copy, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "" and "nothing to change" in done.stderr
