"""The rule base class and registry: a rule is one module carrying its own specification."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ...types import Finding, Registration
from .records import from_row

if TYPE_CHECKING:
    from ...project import ProjectFacts

REGISTRY: dict[str, type[Rule]] = {}


@dataclass(frozen=True)
class Valid:
    """An example that must give no finding of this rule, written to *path* (a plain string in
    ``VALID`` is a module written to ``example.py``)."""

    code: str
    path: str = "example.py"


@dataclass(frozen=True)
class Invalid:
    """An example that must produce this rule's finding at *line* of *path* (counted from the
    first line of the dedented example, as the tests write it)."""

    code: str
    line: int
    severity: str | None = None
    path: str = "example.py"


@dataclass(frozen=True, slots=True)
class Hazard:
    """A finding, and the registrations it is about (each then carries the rule's kind as a flag)."""

    finding: Finding
    registrations: tuple[Registration, ...] = ()


class Rule:
    """A hazard rule: ``check`` reads the whole project's plain facts and yields its hazards.

    Everything a rule decides is computed here from :class:`ProjectFacts` (registrations with
    their handler facts, emissions, each mechanism's policy and points, each file's summary).
    A rule that needs something of the syntax nobody extracts yet gathers it itself: it names
    the words a file must contain (``FACT_WORDS``) and ``file_facts`` reads such a file's tree
    (and text) during extraction (``syntax.statements`` is one statement-level pass the rules
    share; ``names.Names`` resolves names across modules); the result is cached with the file's facts, kept in its summary (so an
    incremental scan keeps it for unchanged files) and read back with :meth:`facts`, as the
    rule's ``FACTS`` record (``records.py``).
    """

    code: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"
    message: ClassVar[str] = ""
    VALID: ClassVar[list[str | Valid]] = []  # examples (on the tests' demo bus) with no finding
    INVALID: ClassVar[list[Invalid]] = []
    FACT_WORDS: ClassVar[tuple[str, ...]] = ()  # a file holding one of these is read by file_facts
    FACTS: ClassVar[type | None] = None  # the record file_facts returns (a frozen dataclass)

    def file_facts(self, tree: ast.Module, text: str = "") -> Any:
        """What this rule needs from one file's syntax (its tree, and its text for a rule that
        finds its places faster by pattern): a ``FACTS`` record, or plain marshal data (tuples,
        strings, numbers, booleans, None); None when the file has nothing for it."""
        return None

    def facts(self, project: ProjectFacts) -> Iterator[tuple[str, Any]]:
        """(file, what :meth:`file_facts` gave: a ``FACTS`` record) for every file this rule
        read something of."""
        for path, row in project.rule_facts(self.code):
            yield path, from_row(self.FACTS, row) if self.FACTS is not None else row

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        raise NotImplementedError

    def on(self, reg: Registration, message: str, severity: str | None = None) -> Hazard:
        """A finding at a registration, which is flagged with this rule's kind."""
        return Hazard(Finding(self.code, self.kind, reg.file, reg.line, reg.col,
                              severity or self.severity, message, reg.mechanism, reg.end_line,
                              reg.end_col), (reg,))

    def at(self, file: str, line: int, col: int, message: str, severity: str | None = None,
           mechanism: str = "", about: tuple[Registration, ...] = ()) -> Hazard:
        """A finding at a place that is not a registration (a stored field, a raise, a
        definition); the registrations it is *about* are flagged with this rule's kind."""
        return Hazard(Finding(self.code, self.kind, file, line, col, severity or self.severity,
                              message, mechanism), about)


def register(cls: type[Rule]) -> type[Rule]:
    if not cls.code or not cls.kind:
        raise TypeError(f"{cls.__name__} needs a code and a kind")
    if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
        raise ValueError(f"duplicate rule code {cls.code}: {cls.__name__} and {REGISTRY[cls.code].__name__}")
    REGISTRY[cls.code] = cls
    return cls
