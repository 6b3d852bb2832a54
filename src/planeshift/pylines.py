"""A module's lines as Python numbers them: ended by LF, CRLF or a lone CR and nothing else.

``str.splitlines`` also ends a line at a form feed, a vertical tab, U+001C..U+001E, NEL (U+0085)
and U+2028 / U+2029, all legal inside a string literal or a comment; a line number from the ast,
``tokenize`` or LibCST then names the wrong line of its list. Every layer numbering a Python
file's lines uses this (``lint`` reading suppressions, the codemods locating statements).
"""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def python_lines(text: str, keepends: bool = False) -> list[str]:
    """*text*'s lines as the tokenizer counts them (with their endings when *keepends*)."""
    lines = _LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]
