"""A declared name too long for its line, written as the target's formatter keeps a long string.

A rewrite declares ``name="<module>.<qualified name>"``; deep in a package the line holding it
can stay over the line length once every bracket is split, and a formatter never splits a string
(ruff and black leave such a line long). A maintainer writes it in parentheses, on its own line
when it fits there (as ruff puts it), else as parts, which the formatter keeps as they are once
joined they would not fit::

    name=(
        "lionagi.state.lifecycle.notify_settings."
        "register_settings_terminal_callback.handler"
    ),

Only the ``name`` keyword of a call a rewrite wraps a handler in is written so, only a plain
string without escapes, cut after a dot; the value Python reads is the same string.
"""

from __future__ import annotations

import libcst as cst

from .lines import python_lines, width
from .positions import positions_of
from .style import TargetStyle

__all__ = ["adapter_of", "wrap_long_names"]


def adapter_of(name: str) -> str:
    """The adapter an import alias (``_as_subscriber``, ``_as_subscriber_1``) stands for."""
    base = name.lstrip("_")
    head, _, tail = base.rpartition("_")
    return head if name.startswith("_") and tail.isdigit() else base


def wrap_long_names(unit: cst.SimpleStatementLine, code: str, column: int, style: TargetStyle,
                    adapters: frozenset[str]) -> tuple[cst.SimpleStatementLine, str]:
    """*unit* (its *code*, its first line at *column*) with each declared name whose line is
    over the line length cut into parenthesized parts, and its new code; *adapters* are the
    calls a rewrite wraps a handler in."""
    lines = python_lines(code)
    if all(column + width(line) <= style.line_length for line in lines):
        return unit, code
    positions, _ = positions_of(cst.Module(body=[unit]))
    changes: dict[cst.Arg, cst.Arg] = {}
    for arg in _declared(unit, adapters, False):
        line = lines[positions[arg].start.line - 1]
        if column + width(line) > style.line_length:
            depth = len(line) - len(line.lstrip(" \t"))
            parts = _parts(arg.value, column + depth + len(style.indent), style.line_length)
            if parts:
                changes[arg] = arg.with_changes(
                    value=_joined(parts, line[:depth] + style.indent, line[:depth]))
    if not changes:
        return unit, code
    unit = unit.visit(_Swap(changes))  # type: ignore[assignment]
    return unit, cst.Module(body=[unit]).code


def _declared(node: cst.CSTNode, adapters: frozenset[str], inside: bool) -> list[cst.Arg]:
    """The ``name`` arguments of the calls in or under an adapter call in *node*."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            adapter_of(node.func.value) in adapters:
        inside = True
    if inside and isinstance(node, cst.Arg) and _named(node):
        return [node]
    return [arg for child in node.children for arg in _declared(child, adapters, inside)]


def _named(arg: cst.Arg) -> bool:
    value = arg.value
    return (arg.keyword is not None and arg.keyword.value == "name"
            and isinstance(value, cst.SimpleString) and not value.lpar
            and value.value[:1] in "\"'" and value.value[:3] not in ('"""', "'''")
            and "\\" not in value.value)


def _parts(value: cst.BaseExpression, column: int, line_length: int) -> list[str]:
    """The string's body cut after dots into as few parts as fit at *column* (one, when it fits
    below ``name=(``), each quoted; two parts as even as the dots allow (the module, then the qualified name, as a maintainer cuts
    ``"<package>.<module>." "<function>.<name>"``), more filled in order."""
    assert isinstance(value, cst.SimpleString)
    quote, body = value.value[0], value.value[1:-1]
    room = line_length - column - 2  # the quotes
    pieces = [p + "." for p in body.split(".")]
    pieces[-1] = pieces[-1][:-1]
    parts: list[str] = []
    for piece in pieces:
        if parts and len(parts[-1]) + len(piece) <= room:
            parts[-1] += piece
        else:
            parts.append(piece)
    if len(parts) == 2:
        cuts = [body[:i + 1] for i, c in enumerate(body) if c == "."]
        fitting = [c for c in cuts if len(c) <= room and len(body) - len(c) <= room]
        if fitting:
            cut = min(fitting, key=lambda c: max(len(c), len(body) - len(c)))
            parts = [cut, body[len(cut):]]
    return [f"{quote}{part}{quote}" for part in parts if part]


def _joined(parts: list[str], inner: str, outer: str) -> cst.BaseString:
    """The parts in parentheses, one a line at *inner* (as ruff writes a string that fits only
    below the parenthesis, and keeps parts that would not fit joined)."""
    def down(indent: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))

    joined: cst.SimpleString | cst.ConcatenatedString = cst.SimpleString(parts[-1])
    for part in reversed(parts[:-1]):
        joined = cst.ConcatenatedString(left=cst.SimpleString(part), right=joined,
                                        whitespace_between=down(inner))
    return joined.with_changes(lpar=[cst.LeftParen(whitespace_after=down(inner))],
                               rpar=[cst.RightParen(whitespace_before=down(outer))])


class _Swap(cst.CSTTransformer):
    def __init__(self, changes: dict[cst.Arg, cst.Arg]) -> None:
        super().__init__()
        self.changes = changes

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return self.changes.get(original_node, updated_node)
