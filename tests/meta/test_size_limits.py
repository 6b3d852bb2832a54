"""No module of planeshift over 400 lines and no class over 300 (issue 22): a part a reader can
hold in mind, split by what each piece decides when it grows past that. The whole of src/, the
codemods' rooms included (``tests/codemods/test_room_sizes.py`` checks those alone)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "planeshift"
MODULE_LINES = 400
CLASS_LINES = 300


def oversized(root: Path = PACKAGE) -> list[str]:
    """Each module over MODULE_LINES and each class over CLASS_LINES under *root*, as
    ``path: N lines`` / ``path: class C: N lines``."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            found.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > CLASS_LINES:
                    found.append(f"{name}: class {node.name}: {size} lines")
    return found


def test_no_module_or_class_is_over_the_limits() -> None:
    assert oversized() == []


def test_the_check_sees_an_oversized_module_and_class(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(CLASS_LINES))
    (tmp_path / "big.py").write_text(f"class Big:\n{body}\n" + "\n" * (MODULE_LINES - CLASS_LINES),
                                     encoding="utf-8")
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "fine.py").write_text("\n" * MODULE_LINES, encoding="utf-8")
    assert oversized(tmp_path) == [f"big.py: {MODULE_LINES + 1} lines",
                                   f"big.py: class Big: {CLASS_LINES + 1} lines"]


if __name__ == "__main__":  # the figures, for a report: python tests/meta/test_size_limits.py
    for line in oversized() or ["no module over 400 lines, no class over 300"]:
        print(line)
