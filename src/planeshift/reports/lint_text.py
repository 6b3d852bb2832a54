"""Lint reports for people and CI logs: ``path:line:col: CODE [severity] message`` lines and
GitHub Actions workflow commands, each closed by a one-line summary."""

from __future__ import annotations

import os
from pathlib import Path

from ..lint.model import LintFinding, LintResult
from .guidance import context_lines, next_step_lines

GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def display_path(result: LintResult, rel: str, cwd: Path | None) -> str:
    """The file as the user named it: relative to *cwd* when given, else to the root."""
    if cwd is None:
        return rel
    return Path(os.path.relpath(Path(result.root) / rel, cwd)).as_posix()


def message_of(item: LintFinding, result: LintResult, cwd: Path | None) -> str:
    """The finding's message, its owner, and the changed files it was judged through."""
    owner = f" (owner: {item.owner})" if item.owner else ""
    reached = ""
    if item.reached_from:
        files = ", ".join(display_path(result, rel, cwd) for rel in item.reached_from)
        reached = f" (reached through {files})"
    return f"{item.finding.message}{owner}{reached}"


def render_text(result: LintResult, cwd: Path | None = None) -> str:
    """One line per open finding (columns 1-based, as editors count), one per file that could
    not be analysed, the context read, the summary, then (when a finding is open) the next
    steps: explain, suppress, baseline."""
    lines = []
    for item in result.open:
        f = item.finding
        lines.append(f"{display_path(result, f.file, cwd)}:{f.line}:{f.col + 1}: {f.rule} "
                     f"[{f.severity}] {message_of(item, result, cwd)}")
    for error in result.errors:
        path = display_path(result, error.file, cwd)
        lines.append(f"{path}: cannot be analysed: {error.message}")
    lines += context_lines(result.context, result.packs)
    lines.append(summary_line(result))
    lines += next_step_lines((item.finding.rule, item.finding.severity) for item in result.open)
    return "\n".join(lines) + "\n"


def summary_line(result: LintResult) -> str:
    counts = result.by_severity()
    total = sum(counts.values())
    parts = [f"{total} {'finding' if total == 1 else 'findings'} "
             f"({', '.join(f'{n} {level}' for level, n in counts.items())})",
             f"{result.count('suppressed')} suppressed", f"{result.count('baselined')} baselined"]
    if result.baseline_fixed:
        fixed = result.baseline_fixed
        parts.append(f"{fixed} baseline {'entry' if fixed == 1 else 'entries'} fixed "
                     "(no longer found)")
    line = ", ".join(parts)
    if result.errors:
        n = len(result.errors)
        line += f"; {n} {'file' if n == 1 else 'files'} could not be analysed"
    verdict = "failed" if result.failed else "passed"
    return f"{line}; {verdict} (fail-on {result.fail_on})"


def render_github(result: LintResult, cwd: Path | None = None) -> str:
    """GitHub Actions workflow commands (``::error file=...::message``), then the summary."""
    lines = []
    for item in result.open:
        f = item.finding
        props = {"file": display_path(result, f.file, cwd), "line": f.line, "col": f.col + 1}
        end_line, end_col = getattr(f, "end_line", None), getattr(f, "end_col", None)
        if end_line is not None:
            props["endLine"] = end_line
        if end_col is not None:
            props["endColumn"] = end_col  # 0-based exclusive = 1-based inclusive
        props["title"] = f"{f.rule} {f.kind}"
        lines.append(command(GITHUB_COMMAND[f.severity], props, message_of(item, result, cwd)))
    for error in result.errors:
        props = {"file": display_path(result, error.file, cwd), "title": "planeshift"}
        lines.append(command("error", props, f"cannot be analysed: {error.message}"))
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def command(name: str, props: dict[str, object], message: str) -> str:
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items())
    return f"::{name} {joined}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """GitHub's escaping of a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """GitHub's escaping of a property value: the message's, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
