"""The rule base class and registry: a rule is one module carrying its own specification."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from ...analyzer.link.linker import Linked
    from ...types import Finding, ScanResult

REGISTRY: dict[str, type[Rule]] = {}


@dataclass(frozen=True)
class Invalid:
    """An example module that must produce this rule's finding at *line* (counted from the first
    line of the dedented example, as the tests write it)."""

    code: str
    line: int
    severity: str | None = None


class Rule:
    code: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"
    message: ClassVar[str] = ""
    VALID: ClassVar[list[str]] = []  # modules (using the tests' demo bus) with no finding
    INVALID: ClassVar[list[Invalid]] = []

    def check(self, result: ScanResult, linked: Linked) -> Iterator[Finding]:
        """Findings for one scan. Whole-project facts come from ``linked.summaries`` (one per
        file): a rule needing another adds it to ``analyzer/summary.py``, so an incremental scan
        keeps it for the files it does not read again."""
        raise NotImplementedError


def register(cls: type[Rule]) -> type[Rule]:
    if not cls.code or not cls.kind:
        raise TypeError(f"{cls.__name__} needs a code and a kind")
    if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
        raise ValueError(f"duplicate rule code {cls.code}: {cls.__name__} and {REGISTRY[cls.code].__name__}")
    REGISTRY[cls.code] = cls
    return cls
