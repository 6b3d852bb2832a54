"""One patch of a series as `git format-patch` writes it: an mbox message (From, Subject, the
commit message), then the diff, so `git am` applies it and keeps the message as the commit's."""

from __future__ import annotations

import email.utils
import hashlib
import re
import textwrap
from dataclasses import dataclass, field

import planeshift

from ..support.linediff import opcodes, unified_diff

AUTHOR = "planeshift <planeshift@noreply.invalid>"


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's text before (None: the patch creates it) and after, with its git mode."""

    path: str  # as the repository names it (the git top-level's prefix included)
    before: str | None
    after: str
    mode: str = "100644"

    def text(self) -> str:
        """The ``diff --git`` section of this file (``\\ No newline at end of file`` as git)."""
        head = [f"diff --git a/{self.path} b/{self.path}\n"]
        if self.before is None:
            head.append(f"new file mode {self.mode}\n")
        old = [] if self.before is None else self.before.splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        lines = list(unified_diff(old, new, "/dev/null" if self.before is None
                                  else f"a/{self.path}", f"b/{self.path}"))
        body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)
        return "".join(head) + body

    def counts(self) -> tuple[int, int]:
        """(insertions, deletions)."""
        old = [] if self.before is None else self.before.splitlines()
        changes = [op for op in opcodes(old, self.after.splitlines()) if op[0] != "equal"]
        added = sum(j2 - j1 for _, _, _, j1, j2 in changes)
        return added, sum(i2 - i1 for _, i1, i2, _, _ in changes)


@dataclass
class Message:
    """A commit message: the subject, then the body's sections."""

    subject: str
    what: list[str] = field(default_factory=list)
    why: str = ""
    adr: str = ""
    gate: str = ""
    refused: list[str] = field(default_factory=list)

    def body(self) -> str:
        out = ["What:", *(_wrap(line, "  - ") for line in _counted(self.what)), "",
               _wrap(f"Why: {self.why}"), "", _wrap(f"ADR: {self.adr}"), "",
               f"Gate: {self.gate}"]  # a command to copy: never wrapped
        if self.refused:
            out += ["", f"Left as it is ({len(self.refused)}), and why:",
                    *(_wrap(line, "  - ") for line in _counted(self.refused))]
        out = "\n".join(out).splitlines()
        # a body line git would read as the end of the message or the start of the diff
        return "\n".join(re.sub(r"^(---|diff -|Index: |From )", r" \1", line) for line in out)


def _counted(lines: list[str]) -> list[str]:
    """Identical lines (one call making several registrations) once, with their count."""
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return [line if n == 1 else f"{line} (x{n})" for line, n in counts.items()]


def _wrap(text: str, first: str = "") -> str:
    return textwrap.fill(text, 72, initial_indent=first, subsequent_indent=" " * len(first),
                         break_long_words=False, break_on_hyphens=False)


def render(message: Message, files: list[FileDiff], number: int, total: int, date: str) -> str:
    """The patch file's text."""
    diff = "".join(f.text() for f in files)
    digest = hashlib.sha1((message.subject + diff).encode("utf-8")).hexdigest()
    subject = f"[PATCH {number:0{len(str(total))}}/{total}] {message.subject}"
    if not subject.isascii():
        from email.header import Header

        subject = Header(subject, "utf-8").encode()
    return (f"From {digest} Mon Sep 17 00:00:00 2001\n"
            f"From: {AUTHOR}\n"
            f"Date: {date}\n"
            f"Subject: {subject}\n"
            "MIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=UTF-8\n"
            "Content-Transfer-Encoding: 8bit\n"
            "\n"
            f"{message.body()}\n"
            "---\n"
            f"{_stat(files)}\n"
            f"{diff}"
            "-- \n"
            f"planeshift {planeshift.__version__}\n\n")


def _stat(files: list[FileDiff]) -> str:
    width = max(len(f.path) for f in files)
    lines, added, removed = [], 0, 0
    for f in files:
        plus, minus = f.counts()
        added, removed = added + plus, removed + minus
        lines.append(f" {f.path:<{width}} | {plus + minus:>4} {'+' * min(plus, 40)}"
                     f"{'-' * min(minus, 40)}")
    count = len(files)
    parts = [f" {count} file{'s' if count != 1 else ''} changed"]  # as git spells it
    if added or not removed:
        parts.append(f"{added} insertion{'s' if added != 1 else ''}(+)")
    if removed or not added:
        parts.append(f"{removed} deletion{'s' if removed != 1 else ''}(-)")
    lines.append(", ".join(parts))
    return "\n".join(lines) + "\n"


def file_name(number: int, subject: str) -> str:
    """``0001-vendor-the-kernels.patch``: git format-patch's numbering and slug."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", subject).strip("-").lower()[:52].rstrip("-")
    return f"{number:04d}-{slug}.patch"


def now() -> str:
    return email.utils.formatdate(localtime=False)
