"""A module's lines as Python numbers them (:mod:`planeshift.pylines`, where the layers below the
codemods find it too), and how wide a line is to a formatter."""

from __future__ import annotations

from ...pylines import python_lines

__all__ = ["python_lines", "width"]


def width(line: str) -> int:
    """The columns *line* takes, a tab to the next multiple of 8 (as the formatters count)."""
    return len(line.expandtabs(8)) if "\t" in line else len(line)
