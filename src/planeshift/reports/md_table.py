"""Markdown table pieces shared by the inventory and the Phase 0 matrix."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def cell(text: object) -> str:
    """A table cell: pipes escaped and line breaks flattened so the row stays one row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(text: object) -> str:
    """Inline code, with a longer fence when the text itself holds a backtick."""
    value = str(text)
    fence = "``" if "`" in value else "`"
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; ``align`` gives one letter (l/r) per column."""
    marks = ["---:" if a == "r" else "---" for a in align.ljust(len(header), "l")]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
