"""The lionagi 0.36.0 corpus: the installed package the test extra pins (see source.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift import api
from planeshift.config import Config
from planeshift.types import ScanResult

from .source import CorpusUnavailable, lionagi_package


def lionagi_tree() -> Path:
    """The ``lionagi/`` package folder; a clear failure when it cannot be had."""
    try:
        return lionagi_package()
    except CorpusUnavailable as exc:
        pytest.fail(f"the lionagi corpus: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    return lionagi_tree()


@pytest.fixture(scope="session")
def lionagi_scan(corpus_root: Path) -> ScanResult:
    return api.scan(Config(root=corpus_root, use_cache=False, jobs=2))
