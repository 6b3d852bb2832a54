"""The layout pass's rendering reads PositionProvider's start lines on every lionagi statement
(see tests/codemods/test_layout_rendering.py)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tests.codemods.test_layout_rendering import same

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
