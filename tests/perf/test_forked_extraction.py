"""A few changed files are extracted on two cores by one forked helper: the blobs are the ones a
single process makes, and a helper that fails costs time, never a result."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_PACK

from perf.fixture_tree import fixture_files
from planeshift.analyzer.extract import pool
from planeshift.analyzer.shapes import vocabulary
from planeshift.api import load_packs
from planeshift.config import Config

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture
def items() -> list[tuple]:
    vocab = vocabulary(load_packs(Config(root=Path("."), packs=(DEMO_PACK,), builtin_packs=())))
    files = fixture_files()
    chosen = ["demo/bus.py", "app/mod_0.py", "app/mod_1.py", "app/mod_2.py", "app/mod_3.py"]
    return [(textwrap.dedent(files[rel]).encode(), rel, rel[:-3].replace("/", "."), False, vocab)
            for rel in chosen]


def test_forked_blobs_equal_one_process(items: list[tuple]) -> None:
    assert pool._extract_forked(items, ["k"] * len(items), None) == [
        pool._work_encoded(item) for item in items]


def test_a_failing_helper_is_replaced_by_the_parent(items: list[tuple],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    real = pool._work_encoded

    def only_in_the_parent(item: tuple) -> bytes:
        if os.getpid() != parent:
            raise RuntimeError("the helper dies")
        return real(item)

    monkeypatch.setattr(pool, "_work_encoded", only_in_the_parent)
    assert pool._extract_forked(items, ["k"] * len(items), None) == [real(i) for i in items]
