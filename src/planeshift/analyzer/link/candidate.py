"""A registration the link found, before classification: plain facts, no syntax."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Activation, Handler


@dataclass(frozen=True, slots=True)
class Candidate:
    """Where a handler is registered on which mechanism, by which form, with the link's evidence
    (how the receiver and the point resolved) and flags; ``rules.classify`` gives it a plane."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
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
    site: tuple[int, int] = (0, 0)  # where the whole site starts (a keyword's call): one per site
    helper: str | None = None  # the function it is made in, when its handler is fixed there
    activations: tuple[Activation, ...] = ()  # the calls of that helper (or of the plugin's)
    # the narrowing keywords the form names, as spelled: `sender=Book`, `weak=False`
    conditions: tuple[str, ...] = ()
    # a hook implementation: the plugin it belongs to (its module, or its class), registered whole
    # where the dispatcher's plugin methods are called with it (`pm.register(module)`)
    plugin: str | None = None

    @property
    def key(self) -> tuple:
        """Two forms matching one site with the same mechanism, handler and point are one."""
        return (self.file, *self.site, self.mechanism, self.handler.expr, self.point)

    @property
    def sort_key(self) -> tuple:
        return (self.file, self.line, self.col, self.mechanism, self.handler.expr)


@dataclass(frozen=True, slots=True)
class Call:
    """A call of a helper: where, in which function, and whether it hands that function's own
    parameters on (then the function is a wrapper and its callers activate the helper too)."""

    helper: str
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    scope: str  # the calling function's qualified name ("" at module level)
    forwards: bool
    resolved: bool = True  # False: matched by the method's name alone (an untyped receiver)
