"""The lionagi 0.36.0 corpus: fetched once with the shared script into the git-ignored .corpus/."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from planeshift import api
from planeshift.config import Config
from planeshift.types import ScanResult

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO.parent / "shared" / "corpus" / "get-lionagi.sh"


def lionagi_tree() -> Path:
    """The unpacked sdist (it holds lionagi/); fetched on first use, then reused."""
    if not SCRIPT.is_file():
        pytest.fail(f"the corpus script is missing: {SCRIPT} (CI runs with ../shared beside the repo)")
    done = subprocess.run(
        ["bash", str(SCRIPT), str(REPO / ".corpus")],
        capture_output=True, text=True, timeout=600, check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"fetching lionagi 0.36.0 failed:\n{done.stderr[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    return lionagi_tree() / "lionagi"


@pytest.fixture(scope="session")
def lionagi_scan(corpus_root: Path) -> ScanResult:
    return api.scan(Config(root=corpus_root, use_cache=False, jobs=2))
