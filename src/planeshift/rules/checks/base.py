"""The rule base class and registry: a rule is one module carrying its own specification."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ...types import Finding, Registration

if TYPE_CHECKING:
    from ...project import ProjectFacts

REGISTRY: dict[str, type[Rule]] = {}


@dataclass(frozen=True)
class Invalid:
    """An example module that must produce this rule's finding at *line* (counted from the first
    line of the dedented example, as the tests write it)."""

    code: str
    line: int
    severity: str | None = None


@dataclass(frozen=True, slots=True)
class Hazard:
    """A finding, and the registration it is about (which then carries the rule's kind as a flag)."""

    finding: Finding
    registration: Registration | None = None


class Rule:
    """A hazard rule: ``check`` reads the whole project's plain facts and yields its hazards.

    Everything a rule decides is computed here from :class:`ProjectFacts` (registrations with
    their handler facts, emissions, each mechanism's policy and points, each file's summary);
    a rule needing a fact nobody extracts yet adds it to the per-file summary
    (``analyzer/extract/summary.py``), so an incremental scan keeps it for unchanged files.
    """

    code: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"
    message: ClassVar[str] = ""
    VALID: ClassVar[list[str]] = []  # modules (using the tests' demo bus) with no finding
    INVALID: ClassVar[list[Invalid]] = []

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        raise NotImplementedError

    def on(self, reg: Registration, message: str, severity: str | None = None) -> Hazard:
        """A finding at a registration, which is flagged with this rule's kind."""
        return Hazard(Finding(self.code, self.kind, reg.file, reg.line, reg.col,
                              severity or self.severity, message, reg.mechanism), reg)

    def at(self, file: str, line: int, col: int, message: str, severity: str | None = None,
           mechanism: str = "") -> Hazard:
        """A finding at a place that is not a registration (a stored field, a definition)."""
        return Hazard(Finding(self.code, self.kind, file, line, col, severity or self.severity,
                              message, mechanism))


def register(cls: type[Rule]) -> type[Rule]:
    if not cls.code or not cls.kind:
        raise TypeError(f"{cls.__name__} needs a code and a kind")
    if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
        raise ValueError(f"duplicate rule code {cls.code}: {cls.__name__} and {REGISTRY[cls.code].__name__}")
    REGISTRY[cls.code] = cls
    return cls
