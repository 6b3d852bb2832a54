"""Lint results: each finding with its owner, fingerprint and status, and the run's verdict."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..config import LEVELS
from ..types import ContextUse, FileError, Finding

RANK = {level: len(LEVELS) - i for i, level in enumerate(LEVELS)}  # error 3, warning 2, info 1
STATUSES = ("open", "suppressed", "baselined")


@dataclass(frozen=True, slots=True)
class LintFinding:
    finding: Finding  # its severity is the configured one
    owner: str | None
    fingerprint: str
    status: str = "open"  # open | suppressed (by a comment) | baselined
    justification: str = ""  # the suppression's reason, or the baseline file
    # the files in PATHS it was judged through, when its own file is not among them (the
    # handler it registers, or its dispatcher, changed): root-relative
    reached_from: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**self.finding.to_json(), "owner": self.owner, "fingerprint": self.fingerprint,
                "status": self.status, "justification": self.justification or None,
                "reached_from": list(self.reached_from)}


@dataclass(frozen=True, slots=True)
class LintResult:
    root: str
    paths: tuple[str, ...]  # root-relative; () = the whole project
    findings: tuple[LintFinding, ...]  # sorted by file, line, col, rule; every status
    errors: tuple[FileError, ...]  # files in scope that could not be analysed
    fail_on: str
    severity: tuple[tuple[str, str], ...] = ()  # the configured per-rule levels ("off" included)
    baseline: str | None = None
    baseline_fixed: int = 0  # baseline entries in scope that matched no finding
    files_read: int = 0
    context: tuple[ContextUse, ...] = ()  # the library source the scan read (scan's "context")
    packs: tuple[str, ...] = ()  # the rule packs in use
    stats: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def open(self) -> tuple[LintFinding, ...]:
        return tuple(f for f in self.findings if f.status == "open")

    def count(self, status: str) -> int:
        return sum(1 for f in self.findings if f.status == status)

    def by_severity(self) -> dict[str, int]:
        """Open findings per severity, every level present, highest first."""
        counts = Counter(f.finding.severity for f in self.open)
        return {level: counts.get(level, 0) for level in LEVELS}

    @property
    def failing(self) -> tuple[LintFinding, ...]:
        """Open findings at or above ``fail_on``."""
        return tuple(f for f in self.open if RANK[f.finding.severity] >= RANK[self.fail_on])

    @property
    def failed(self) -> bool:
        """The gate's verdict: a failing finding remains, or a judged file cannot be analysed."""
        return bool(self.errors or self.failing)
