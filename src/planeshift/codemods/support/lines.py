"""A module's lines as Python numbers them (:mod:`planeshift.pylines`, where the layers below the
codemods find it too)."""

from __future__ import annotations

from ...pylines import python_lines

__all__ = ["python_lines"]
