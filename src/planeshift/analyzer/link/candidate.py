"""A registration the link found, before classification: plain facts, no syntax."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Handler


@dataclass(frozen=True, slots=True)
class Candidate:
    """Where a handler is registered on which mechanism, by which form, with the link's evidence
    (how the receiver and the point resolved) and flags; ``rules.classify`` gives it a plane."""

    file: str
    line: int
    col: int
    scope: str  # enclosing function qualname ("" at module level)
    mechanism: str
    via: str  # the registration form's kind: method, function, decorator, keyword, ...
    api: str
    point: str | None
    point_note: str | None  # why the point is unknown, when it is
    handler: Handler
    confidence: str = "high"
    evidence: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()

    @property
    def sort_key(self) -> tuple:
        return (self.file, self.line, self.col, self.mechanism, self.handler.expr)
