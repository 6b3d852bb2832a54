"""The files lint judges: their lines, and their ``# planeshift: ignore[...]`` comments (and the
``# planeshift: discard-unawaited owner=... reason`` annotations `planeshift migrate` writes,
which suppress PS101 the same way and must name an owner).

Python comments are found with ``tokenize``, so a ``#`` inside a string is never one; settings
files (YAML) with a small scanner that skips quoted scalars. A file is tokenized only when its
bytes contain ``planeshift:`` at all.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import fsio
from ..pylines import python_lines
from ..rules.discard_annotation import parse_annotation
from ..types import Suppression

MARKER = "planeshift:"  # in any case: `# PLANESHIFT: IGNORE[PS101]` is honoured as written
_MARKER_BYTES = re.compile(MARKER.encode(), re.IGNORECASE)
_DIRECTIVE = re.compile(r"planeshift:\s*ignore\b(?P<rest>.*)", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+")
_YAML = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class SourceText:
    lines: tuple[str, ...]
    comments: tuple[Suppression, ...]

    def snippet(self, start: int, end: int | None = None, comments: bool = True) -> str:
        """Lines start..end with whitespace collapsed; without the suppression comments unless
        *comments*, so adding or removing one does not change a finding's fingerprint."""
        cuts = {} if comments else {c.line: c.col for c in self.comments}
        parts = []
        for row in range(start, max(start, end or start) + 1):
            if 1 <= row <= len(self.lines):
                parts.append(self.lines[row - 1][: cuts.get(row)])
        return " ".join(" ".join(parts).split())


def read_source(path: Path, rel: str) -> SourceText | None:
    """The file's text and suppressions; None when it cannot be read (the scan says why)."""
    try:
        data = fsio.read_bytes(path)
    except OSError:
        return None
    text = _decode(data, rel)
    # Python's numbering (tokenize's rows) for a module: not str.splitlines, which also breaks
    # at U+2028, NEL, a form feed ... inside a string literal or a comment
    lines = tuple(python_lines(text) if rel.endswith(".py") else text.splitlines())
    if _MARKER_BYTES.search(data) is None:
        return SourceText(lines, ())
    found: Iterable[tuple[int, int, str]]
    if rel.endswith(".py"):
        found = _python_comments(data)
    elif rel.endswith(_YAML):
        found = _yaml_comments(lines)
    else:
        return SourceText(lines, ())  # JSON settings files have no comments
    comments = []
    for row, col, text in found:
        alone = not lines[row - 1][:col].strip() if row <= len(lines) else False
        comment = parse_comment(rel, row, col, text, alone)
        if comment is not None:
            comments.append(comment)
    return SourceText(lines, tuple(comments))


def parse_comment(file: str, row: int, col: int, text: str, alone: bool) -> Suppression | None:
    """The suppression a comment holds, or None when it holds none. Alone on its line it covers
    the next line, after code its own."""
    match = _DIRECTIVE.search(text)
    covers = (row + 1,) if alone else (row,)
    if match is None:
        annotation = parse_annotation(text)
        if annotation is None:
            return None
        owner, reason, problem = annotation
        recorded = f"intentionally discarding (owner {owner}): {reason}" if owner else reason
        return Suppression(file, row, col, ("PS101",), recorded, covers, problem)
    rest = match.group("rest").strip()
    if not rest.startswith("["):
        problem = "it names no rule code (`ignore[CODE]`)"
        return Suppression(file, row, col, (), rest, covers, problem)
    body, closed, after = rest[1:].partition("]")
    codes = tuple(c.strip().upper() for c in body.split(",") if c.strip())
    reason = after.strip()
    bad = [c for c in codes if not _CODE.fullmatch(c)]
    if not closed:
        problem = "its code list has no closing `]`"
    elif not codes:
        problem = "it names no rule code"
    elif bad:
        problem = f"{bad[0]!r} is not a rule code"
    elif not any(ch.isalnum() for ch in reason):
        problem = "it gives no reason after the codes"
    else:
        problem = ""
    return Suppression(file, row, col, codes, reason, covers, problem)


_decode = fsio.decode_source


def _python_comments(data: bytes) -> list[tuple[int, int, str]]:
    found = []
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            if tok.type == tokenize.COMMENT and MARKER in tok.string.lower():
                found.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return found  # the file cannot be analysed (the scan lists it); keep what was read
    return found


def _yaml_comments(lines: tuple[str, ...]) -> Iterator[tuple[int, int, str]]:
    for row, text in enumerate(lines, start=1):
        if MARKER in text.lower():
            col = _yaml_comment_col(text)
            if col is not None:
                yield row, col, text[col:]


def _yaml_comment_col(text: str) -> int | None:
    """Where a YAML comment starts: a ``#`` at the line start or after a blank, outside quotes."""
    quote, i = "", 0
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'" and (i == 0 or text[i - 1] in " \t[{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return i
        i += 1
    return None
