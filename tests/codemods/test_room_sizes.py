"""The codemods' rooms keep issue 22's size limits: no module over 400 lines, no class over 300
(the rest of src/ is checked where its own re-cut lands)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOM = Path(__file__).resolve().parents[2] / "src" / "planeshift" / "codemods"


def oversized(text: str, name: str) -> list[str]:
    out = []
    lines = len(text.splitlines())
    if lines > 400:
        out.append(f"{name}: {lines} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
            size = node.end_lineno - node.lineno + 1
            if size > 300:
                out.append(f"{name}: class {node.name} {size} lines")
    return out


def test_the_check_sees_a_long_module_and_a_long_class() -> None:
    text = "class A:\n" + "    x = 1\n" * 300 + "y = 2\n" * 100
    assert oversized(text, "m") == ["m: 401 lines", "m: class A 301 lines"]


def test_no_codemods_module_over_400_lines_and_no_class_over_300() -> None:
    found = [o for path in sorted(ROOM.rglob("*.py"))
             for o in oversized(path.read_text(encoding="utf-8"), str(path.relative_to(ROOM)))]
    assert found == []
