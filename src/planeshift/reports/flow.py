"""Text laid out in a terminal's width: words wrap, names never split, locations kept whole."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

Part = tuple[str, str, bool]  # text, style, whether it may break across lines
_BREAK_AFTER = "/._-,:=|"


def flow(parts: Sequence[Part], width: int, indent: int = 4) -> Text:
    """*parts* laid out in *width* columns, continuation lines indented by *indent*. Breaking
    parts break between words (at blanks); a word too long for a line breaks after a ``.``,
    ``/``, ``_`` or like mark, never within a name. An unbreakable part (a location) is kept
    whole on one line, even when it alone is wider than the line."""
    words: list[tuple[str, str, str, bool]] = []  # (blanks before, word, style, breakable)
    pending = ""
    for text, style, breakable in parts:
        if not breakable:
            words.append((pending, text, style, False))
            pending = ""
            continue
        for token in re.split(r"( +)", text):
            if not token:
                continue
            if token.startswith(" "):
                pending += token
            else:
                words.append((pending, token, style, True))
                pending = ""
    if pending and words:  # trailing blanks belong to no word
        pending = ""
    out = Text()
    column = 0
    room = max(width - indent, 8)
    for blanks, word, style, breakable in words:
        if column and column + len(blanks) + len(word) <= width:
            out.append(blanks)
            out.append(word, style=style)
            column += len(blanks) + len(word)
            continue
        if column:  # a new line
            out.append("\n" + " " * indent)
            column = indent
        elif blanks:
            out.append(blanks)
            column = len(blanks)
        fits = len(word) <= width - column or not breakable
        pieces = [word] if fits else _pieces(word, room, width - column)
        for i, piece in enumerate(pieces):
            if i:
                out.append("\n" + " " * indent)
                column = indent
            out.append(piece, style=style)
            column += len(piece)
    return out


def _pieces(word: str, room: int, first: int) -> list[str]:
    """*word* cut after marks into pieces: the first at most *first* long (empty when no mark
    comes early enough: the word then starts on a fresh line), the others at most *room*. Only
    a run with no mark in a whole line is cut where the line ends."""
    out = []
    limit = max(first, 1)
    while len(word) > limit:
        cut = max((i + 1 for i, ch in enumerate(word[:limit]) if ch in _BREAK_AFTER), default=0)
        if cut == 0:
            if limit < room:
                out.append("")
                limit = room
                continue
            cut = limit
        out.append(word[:cut])
        word = word[cut:]
        limit = room
    out.append(word)
    return out


