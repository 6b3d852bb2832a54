"""Migration reports for people: the unified diff (coloured on a terminal), and the lists of what
was migrated and what was not, with the reasons, closed by a one-line summary."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from ...reports.guidance import context_lines
from ...rules.discard_annotation import UNASSIGNED, recorded
from ..model import MigrateResult
from .owners import OWNER_CODEMODS, owners_text

_COLOURS = (("+++", "bold"), ("---", "bold"), ("+", "green"), ("-", "red"), ("@@", "cyan"))


def render_diff(result: MigrateResult, style: Callable[[str, str], str] | None = None) -> str:
    """Every change as one unified diff, in file order; *style(line, colour)* colours lines."""
    text = "".join(change.diff for change in result.changes)
    if style is None or not text:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        colour = next((c for prefix, c in _COLOURS if line.startswith(prefix)), "")
        out.append(style(line.rstrip("\n"), colour) + "\n" if colour else line)
    return "".join(out)


def render_report(result: MigrateResult, cwd: Path | None = None) -> str:
    """The migrated and not-migrated lists (``path:line: codemod: ...``, identical lines once
    with their count), the context read, and the summary."""
    lines = []
    # the owner codemods' outcomes are listed per owner (owners_text), not site by site
    migrated = [m for m in result.migrated if m.codemod not in OWNER_CODEMODS]
    not_migrated = [n for n in result.not_migrated if n.codemod not in OWNER_CODEMODS]
    if migrated:
        lines.append(f"migrated ({len(migrated)}):")
        lines += collapse(f"  {_path(result, m.file, cwd)}:{m.line}: {m.codemod}: {m.action}"
                          for m in migrated)
    if not_migrated:
        lines.append(f"not migrated ({len(not_migrated)}):")
        lines += collapse(f"  {_path(result, n.file, cwd)}:{n.line}: {n.codemod}: "
                          f"{'error: ' if n.error else ''}{n.reason}" for n in not_migrated)
    lines += owners_text(result)
    lines += unassigned_lines(result, cwd)
    for error in result.errors:
        lines.append(f"{_path(result, error.file, cwd)}: cannot be analysed: {error.message}")
    lines += context_lines(result.context, result.packs)
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def unassigned_lines(result: MigrateResult, cwd: Path | None = None) -> list[str]:
    """The files whose DISCARD_UNAWAITED registrations were recorded with no owner, once each,
    and what to do about them."""
    files = sorted({m.file for m in result.migrated if m.action == recorded(UNASSIGNED)})
    if not files:
        return []
    return [f"owner to fill in ({len(files)} file{'s' if len(files) > 1 else ''}; "
            f"recorded `owner={UNASSIGNED}`, which lint does not accept until it names a team: "
            "set owners in [tool.planeshift] or CODEOWNERS and re-run, or edit the comments):",
            *(f"  {_path(result, f, cwd)}" for f in files)]


def collapse(lines: Iterable[str]) -> list[str]:
    """Identical lines once each, in first-seen order, a repeated one ending in ``(×N)`` (a call
    that makes several registrations is one site with one outcome for each)."""
    counts = Counter(lines)
    return [line if n == 1 else f"{line} (×{n})" for line, n in counts.items()]


def summary_line(result: MigrateResult) -> str:
    files = len(result.changes)
    errors = sum(1 for n in result.not_migrated if n.error)
    parts = [f"{len(result.migrated)} migrated", f"{len(result.not_migrated)} not migrated"
             + (f" ({errors} {'error' if errors == 1 else 'errors'})" if errors else ""),
             f"{result.already} already migrated"]
    noun = "file" if files == 1 else "files"
    if result.mode == "write":
        tail = f"{files} {noun} written"
    elif files:
        tail = f"{files} {noun} would change" + ("" if result.mode == "check"
                                                 else " (apply with --write)")
    else:
        tail = "nothing to change"
    return f"{', '.join(parts)}; {tail}"


def _path(result: MigrateResult, rel: str, cwd: Path | None) -> str:
    if cwd is None:
        return rel
    return Path(os.path.relpath(Path(result.root) / rel, cwd)).as_posix()
