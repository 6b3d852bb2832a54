"""What a migration run returns: what was rewritten, what was not and why, and each file's change."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..types import ContextUse, FileError, Registration
from .support.linediff import unified_diff


def registration_json(reg: Registration | None) -> dict[str, Any] | None:
    if reg is None:
        return None
    return {"mechanism": reg.mechanism, "api": reg.api, "point": reg.point, "plane": reg.plane,
            "confidence": reg.confidence, "via": reg.via, "handler": reg.handler.expr,
            "col": reg.col}


@dataclass(frozen=True, slots=True)
class Migrated:
    """One rewrite: the registration (or handler, or settings entry) and what it became."""

    file: str
    line: int
    codemod: str
    action: str
    registration: Registration | None = None
    owner: dict[str, Any] | None = None  # owner codemods: the owner, its entry, policy, profile

    def to_json(self) -> dict[str, Any]:
        out = {"file": self.file, "line": self.line, "codemod": self.codemod,
               "action": self.action, "registration": registration_json(self.registration)}
        if self.owner is not None:
            out["owner"] = self.owner
        return out


@dataclass(frozen=True, slots=True)
class NotMigrated:
    """Something left as it is, with the reason; ``error`` when a failure (not a decision) kept
    it (an unparseable result, a file changed on disk, a codemod bug), which fails the run."""

    file: str
    line: int
    codemod: str
    reason: str
    error: bool = False
    registration: Registration | None = None
    owner: dict[str, Any] | None = None  # owner codemods: the owner and its entry

    def to_json(self) -> dict[str, Any]:
        out = {"file": self.file, "line": self.line, "codemod": self.codemod,
               "reason": self.reason, "error": self.error,
               "registration": registration_json(self.registration)}
        if self.owner is not None:
            out["owner"] = self.owner
        return out


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's text before and after; ``written`` once it is on disk."""

    file: str
    before: str
    after: str
    written: bool = False
    # the character spans (before start, end, after start, end) outside which the two texts are
    # the same, each starting and ending at a line's start; None: not known
    changed: tuple[tuple[int, int, int, int], ...] | None = None

    @property
    def diff(self) -> str:
        """A unified diff (``a/`` and ``b/`` prefixes, as ``git apply`` and ``patch -p1`` read)."""
        a, b = self.before.splitlines(keepends=True), self.after.splitlines(keepends=True)
        within = None
        if self.changed is not None:
            at_a, at_b = _line_of(a), _line_of(b)
            within = [(at_a(i1), at_a(i2), at_b(j1), at_b(j2)) for i1, i2, j1, j2 in self.changed]
        lines = unified_diff(a, b, f"a/{self.file}", f"b/{self.file}", within=within)
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "written": self.written, "diff": self.diff}


@dataclass(frozen=True, slots=True)
class MigrateResult:
    root: str
    mode: str  # "diff" | "check" | "write"
    codemods: tuple[str, ...]
    kernel_modules: tuple[str, ...]
    migrated: tuple[Migrated, ...] = ()
    not_migrated: tuple[NotMigrated, ...] = ()
    changes: tuple[FileChange, ...] = ()
    errors: tuple[FileError, ...] = ()  # files the scan could not analyse
    already: int = 0  # registrations found already in their migrated form
    context: tuple[ContextUse, ...] = ()  # the library source the scan read (scan's "context")
    packs: tuple[str, ...] = ()  # the rule packs in use
    stats: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def failed(self) -> bool:
        """A file could not be migrated because of an error (not a refusal with a reason), or a
        file in the run's paths could not be analysed (what it registers is unknown)."""
        return bool(self.errors) or any(n.error for n in self.not_migrated)

    @property
    def pending(self) -> bool:
        """Changes that are not on disk (a dry run or --check found something to do)."""
        return any(not c.written for c in self.changes)


def _line_of(lines: list[str]) -> Callable[[int], int]:
    """The index of the line of *lines* starting at a character offset of their text."""
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))

    def at(offset: int) -> int:
        index = bisect.bisect_left(starts, offset)
        if index == len(starts) or starts[index] != offset:
            raise ValueError(f"offset {offset} is not at a line's start")
        return index

    return at
