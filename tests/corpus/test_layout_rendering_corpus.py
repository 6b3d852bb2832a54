"""The layout pass's rendering reads PositionProvider's start lines, and the locator's each node's
parent, on every lionagi statement (see tests/codemods/test_layout_rendering.py)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tests.codemods.test_layout_rendering import same, same_parents, same_positions

pytestmark = pytest.mark.corpus


def test_the_start_lines_are_the_position_providers_on_lionagi_statements(
        corpus_root: Path) -> None:
    checked = 0
    for path in sorted(corpus_root.rglob("*.py")):
        for stmt in cst.parse_module(path.read_bytes()).body:
            if isinstance(stmt, cst.SimpleStatementLine):
                same(cst.Module(body=[stmt]))
                checked += 1
    assert checked > 5000


def test_the_parents_are_those_of_a_walk_of_the_children_on_lionagi_statements(
        corpus_root: Path) -> None:
    """And the positions are LibCST's own. Compound statements too: the locator renders a
    statement of any kind."""
    checked = 0
    for path in sorted(corpus_root.rglob("*.py")):
        for stmt in cst.parse_module(path.read_bytes()).body:
            same_parents(cst.Module(body=[stmt]))
            same_positions(cst.Module(body=[stmt]))
            checked += 1
    assert checked > 8000
