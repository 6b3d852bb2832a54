"""What a migration run returns: what was rewritten, what was not and why, and each file's change."""

from __future__ import annotations

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

    @property
    def diff(self) -> str:
        """A unified diff (``a/`` and ``b/`` prefixes, as ``git apply`` and ``patch -p1`` read)."""
        lines = unified_diff(
            self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
            f"a/{self.file}", f"b/{self.file}")
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
