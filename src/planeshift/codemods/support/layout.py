"""Rewritten statements laid out as the target's formatter lays out a line that is too long.

A rewrite puts a typed registration where a bare handler was, and the statement's line grows
past the target's line length. Black and ruff then split the outermost bracket of the line, one
element a line with a trailing comma (the "magic trailing comma" both keep), and split again
inside any element still too long. This does the same in LibCST's own nodes (parenthesized
whitespace and commas), so the result is what ``ruff format`` leaves as it is, and only for
lines the migration made too long: a line of the original that was already long, or any line
the migration did not touch, keeps its layout. A from-import that is too long is wrapped in
parentheses the same way.

Statements are found by line through Python's own parser (statements correspond one to one,
in document order, to LibCST's, see ``locate``), and only those are rendered with positions.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import cast

import libcst as cst

from .lines import python_lines, width
from .locate import ast_statements, cst_statements
from .names_layout import adapter_of, wrap_long_names
from .positions import Rendering, positions_of
from .style import TargetStyle

BRACKETS = (cst.Call, cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ImportFrom)
ROUNDS = 200  # explosions a statement may take; each one splits a bracket that was flat


def fit(tree: cst.Module, before: str, style: TargetStyle,
        adapters: frozenset[str] = frozenset()) -> str:
    """The code of *tree* with each statement holding a line that is over *style*'s line
    length, and that the original text *before* did not have, split as the formatter would.
    *adapters* are the names of the calls a rewrite wraps a handler in (see ``_noted``)."""
    return fit_tree(tree, before, style, adapters).code


def fit_tree(tree: cst.Module, before: str, style: TargetStyle,
             adapters: frozenset[str] = frozenset()) -> cst.Module:
    """:func:`fit`'s result as a tree."""
    code = tree.code
    # lines as Python numbers them (the ast's and LibCST's): str.splitlines also breaks at U+2028,
    # NEL, a form feed inside a literal, and every statement below it was looked for a line off
    lines = python_lines(code)
    old = Counter(line for line in python_lines(before) if width(line) > style.line_length)
    long: list[int] = []
    for number, line in enumerate(lines, 1):
        if width(line) > style.line_length:
            if old[line] > 0:
                old[line] -= 1
            else:
                long.append(number)
    if not long:
        return tree
    stmts = list(ast_statements(ast.parse(code).body))
    entries = list(cst_statements(tree))
    units: dict[int, tuple[cst.SimpleStatementLine, tuple[cst.CSTNode, ...], int]] = {}
    for index, stmt in enumerate(stmts):
        entry = entries[index]
        unit = entry.unit
        if not isinstance(unit, cst.SimpleStatementLine) or len(unit.body) != 1:
            continue
        # the first long line at or after the statement's start (long is in line order): one
        # bisection per statement, not a pass over every long line (statements x long lines)
        at = bisect.bisect_left(long, stmt.lineno)
        if at < len(long) and long[at] <= (stmt.end_lineno or stmt.lineno):
            units[id(unit)] = (unit, entry.ancestors, stmt.col_offset)
    if not units:
        return tree
    replaced = {key: _checked(unit, *wrap_long_names(*_split(unit, col, style), col, style,
                                                     adapters))
                for key, (unit, _, col) in units.items() if not _noted(unit, adapters)}
    paths = {id(a) for _, ancestors, _ in units.values() for a in ancestors}
    return cast(cst.Module, tree.visit(_Replace(replaced, paths)))


class _Replace(cst.CSTTransformer):
    def __init__(self, replaced: dict[int, cst.SimpleStatementLine], paths: set[int]) -> None:
        super().__init__()
        self.replaced, self.paths = replaced, paths

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.paths

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine
                                  ) -> cst.SimpleStatementLine:
        return self.replaced.get(id(original_node), updated_node)


def _split(unit: cst.SimpleStatementLine, column: int, style: TargetStyle
           ) -> tuple[cst.SimpleStatementLine, str]:
    """*unit* (its first line at *column*) with the outermost flat bracket of each line over the
    line length split, one element a line, until every line fits or nothing flat is left; and
    its code. Each round renders the statement once (the rendering that showed a hugged layout
    fits is the next round's) and rebuilds only the nodes above the bracket it splits."""
    rendered, rendering = unit, _render(unit)
    for _ in range(ROUNDS):
        if rendered is not unit:
            rendered, rendering = unit, _render(unit)
        lines = python_lines(rendering.code)
        long = {n for n, line in enumerate(lines, 1)
                if column + width(line) > style.line_length}
        starts = rendering.starts
        target = next((node for node in rendering.nodes if (
            _flat(node) and starts[node] in long) or (
            _hugged(node) and starts[node] + 1 in long)), None)
        if target is None:
            return unit, rendering.code
        start = starts[target]
        line = lines[start - 1]
        depth = len(line) - len(line.lstrip(" \t"))
        inner, outer = line[:depth] + style.indent, line[:depth]
        above = rendering.above[target]
        if not _flat(target):  # its elements on one line of their own, too long now
            unit = _swap(unit, above, target, _explode(target, inner, outer))
            continue
        moved = target if rendering.entered[target] == rendering.ends[target] else cast(
            cst.CSTNode, target.visit(_Shift(style.indent)))  # line breaks inside one level in
        if isinstance(target, cst.ImportFrom):  # isort wraps one name a line
            unit = _swap(unit, above, target, _explode(moved, inner, outer))
            continue
        hugged = _swap(unit, above, target, _explode(moved, inner, outer, hug=True))
        if len(_elements(target)) == 1:
            unit = hugged
        else:
            rendered, rendering = hugged, _render(hugged)
            unit = hugged if _fits(rendering.code, start + 1, column, style) else _swap(
                unit, above, target, _explode(moved, inner, outer))
    if rendered is not unit:
        rendered, rendering = unit, _render(unit)
    return unit, rendering.code


def _render(unit: cst.SimpleStatementLine) -> Rendering:
    return Rendering.of(cst.Module(body=[unit]), BRACKETS)


def _swap(unit: cst.SimpleStatementLine, above: tuple[cst.CSTNode, ...], old: cst.CSTNode,
          new: cst.CSTNode) -> cst.SimpleStatementLine:
    """*unit* with *old* (below the nodes *above* it, the module first) replaced by *new*: the
    nodes on the way rebuilt, nothing else (``deep_replace`` rebuilds the whole statement)."""
    try:
        chain = above[above.index(unit):]
        for parent in reversed(chain):
            new, old = _replace_child(parent, old, new), parent
    except LookupError:  # not a field of the node rendering it: the whole statement, then
        return cast(cst.SimpleStatementLine, unit.deep_replace(old, new))
    return cast(cst.SimpleStatementLine, new)


def _replace_child(parent: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    for field in dataclasses.fields(parent):
        value = getattr(parent, field.name)
        if value is old:
            return parent.with_changes(**{field.name: new})
        if isinstance(value, (tuple, list)) and any(item is old for item in value):
            return parent.with_changes(
                **{field.name: type(value)(new if item is old else item for item in value)})
    raise LookupError(f"{type(old).__name__} is no field of {type(parent).__name__}")


class _Shift(cst.CSTTransformer):
    """Line breaks inside a bracket's elements indented one level more, as the elements are."""

    def __init__(self, indent: str) -> None:
        super().__init__()
        self.indent = indent

    def leave_ParenthesizedWhitespace(self, original: cst.ParenthesizedWhitespace,
                                      updated: cst.ParenthesizedWhitespace
                                      ) -> cst.ParenthesizedWhitespace:
        if not updated.indent:
            return updated
        return updated.with_changes(
            last_line=cst.SimpleWhitespace(self.indent + updated.last_line.value))


def _fits(code: str, number: int, column: int, style: TargetStyle) -> bool:
    lines = python_lines(code)
    return number <= len(lines) and column + width(lines[number - 1]) <= style.line_length


def _noted(unit: cst.SimpleStatementLine, adapters: frozenset[str]) -> bool:
    """The statement carries a planeshift note (or suppression) that splitting it would part
    from its registration: a note holds for the line it ends or the line below it. One at the
    end of the statement would end up after its last bracket; one above it holds only while
    the registration starts on the statement's first line, which a registration inside the
    brackets (a keyword argument, a list element, a mapping entry holding the rewritten
    handler) no longer does once they are split. A note inside the brackets stays above its
    line."""
    comment = unit.trailing_whitespace.comment
    if comment is not None and "planeshift:" in comment.value.lower():
        return True
    if not any(line.comment is not None and "planeshift:" in line.comment.value.lower()
               for line in unit.leading_lines):
        return False
    positions, _ = positions_of(cst.Module(body=[unit]))
    first = positions[unit.body[0]].start.line
    return _inner_registration(unit.body[0], adapters, False,
                               lambda node: positions[node].start.line == first)


def _inner_registration(node: cst.CSTNode, adapters: frozenset[str], inside: bool,
                        on_first: Callable[[cst.CSTNode], bool]) -> bool:
    """Does a call of an adapter sit below a keyword argument, an element or a mapping entry
    that starts on the statement's first line (*inside* one already) in *node*?"""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and inside and \
            adapter_of(node.func.value) in adapters:
        return True
    inside = inside or (isinstance(node, (cst.DictElement, cst.Element, cst.StarredElement)) or (
        isinstance(node, cst.Arg) and node.keyword is not None)) and on_first(node)
    return any(_inner_registration(child, adapters, inside, on_first) for child in node.children)


def _checked(old: cst.SimpleStatementLine, new: cst.SimpleStatementLine, code: str
             ) -> cst.SimpleStatementLine:
    """*new* (its *code* alone), unless it does not parse alone (then *old*: a long line is
    better than none)."""
    if new is old:
        return old
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return old
    return new


def _elements(node: cst.CSTNode) -> list[cst.CSTNode]:
    if isinstance(node, cst.Call):
        return list(node.args)
    if isinstance(node, cst.ImportFrom):
        return [] if isinstance(node.names, cst.ImportStar) else list(node.names)
    if isinstance(node, cst.Tuple) and not node.lpar:
        return []  # a bare tuple has no bracket to split at
    return list(getattr(node, "elements", ()))


def _flat(node: cst.CSTNode) -> bool:
    """A bracket with elements, not split yet: no line break right inside it or after a comma
    of its own (a comment there is the author's layout)."""
    if not isinstance(node, BRACKETS):
        return False
    items = _elements(node)
    if not items:
        return False  # (a sole generator argument is hugged, never given a trailing comma)
    opening = _opening(node)
    spaces = [opening] + [getattr(i, "comma", None) for i in items]
    return not any(isinstance(w, cst.ParenthesizedWhitespace) or (
        isinstance(w, cst.Comma) and isinstance(w.whitespace_after, cst.ParenthesizedWhitespace))
        for w in spaces)


def _hugged(node: cst.CSTNode) -> bool:
    """A bracket whose elements (more than one) share one line of their own, as the formatter
    writes them when they fit: ``f(\\n    a, b\\n)``."""
    if not isinstance(node, BRACKETS) or isinstance(node, cst.ImportFrom):
        return False
    items = _elements(node)
    if len(items) < 2:
        return False
    opening = _opening(node)
    if not isinstance(opening, cst.ParenthesizedWhitespace) or \
            opening.first_line.comment is not None or opening.empty_lines:
        return False
    commas = [getattr(i, "comma", None) for i in items[:-1]]
    return all(isinstance(c, cst.Comma) and isinstance(c.whitespace_after, cst.SimpleWhitespace)
               for c in commas)


def _opening(node: cst.CSTNode) -> cst.BaseParenthesizableWhitespace | None:
    if isinstance(node, cst.Call):
        return node.whitespace_before_args
    if isinstance(node, cst.ImportFrom):
        return node.lpar.whitespace_after if node.lpar else None
    if isinstance(node, cst.Tuple):
        return node.lpar[0].whitespace_after
    bracket = getattr(node, "lbracket", None) or getattr(node, "lbrace", None)
    return bracket.whitespace_after if bracket is not None else None


def _break(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))


def _explode(node: cst.CSTNode, inner: str, outer: str, hug: bool = False) -> cst.CSTNode:
    """*node*'s elements one a line at *inner*, each with a comma (the trailing comma the
    formatter then keeps), its closing bracket at *outer*; with *hug*, all of them on one line
    at *inner* and no trailing comma, as the formatter writes a body that fits (or a single
    element it goes on to split inside)."""
    items = _elements(node)
    out = []
    space, none = cst.SimpleWhitespace(" "), cst.SimpleWhitespace("")
    call = isinstance(node, cst.Call)
    for index, item in enumerate(items):
        last = index == len(items) - 1
        if hug:
            comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT if last else \
                cst.Comma(whitespace_after=space)
            after = _break(outer) if last else none
        else:
            after = _break(outer if last else inner)
            comma = cst.Comma(whitespace_after=none if last and call else after)
        if call:
            changes = {"comma": comma, "whitespace_after_arg": after if last else none}
        elif last and hug and not isinstance(item, cst.ImportAlias):
            changes = {"comma": cst.Comma(whitespace_before=none, whitespace_after=after)
                       if _needs_comma(node, items) else cst.MaybeSentinel.DEFAULT}
        else:
            changes = {"comma": comma}
        if isinstance(item, cst.ImportAlias) and last:
            changes = {"comma": cst.Comma() if not hug else cst.MaybeSentinel.DEFAULT}
        out.append(item.with_changes(**changes))
    opening = _break(inner)
    if hug and not call and not isinstance(node, cst.ImportFrom) and not _needs_comma(node, items):
        node = _close_on_own_line(node, outer)
    if isinstance(node, cst.Call):
        return node.with_changes(args=out, whitespace_before_args=opening)
    if isinstance(node, cst.ImportFrom):
        return node.with_changes(names=out, lpar=cst.LeftParen(whitespace_after=opening),
                                 rpar=cst.RightParen(whitespace_before=_break(outer)))
    if isinstance(node, cst.Tuple):
        return node.with_changes(elements=out,
                                 lpar=[node.lpar[0].with_changes(whitespace_after=opening),
                                       *node.lpar[1:]])
    key = "lbracket" if hasattr(node, "lbracket") else "lbrace"
    bracket = getattr(node, key)
    return node.with_changes(elements=out, **{key: bracket.with_changes(whitespace_after=opening)})


def _needs_comma(node: cst.CSTNode, items: list[cst.CSTNode]) -> bool:
    """A one-element tuple keeps its comma."""
    return isinstance(node, cst.Tuple) and len(items) == 1


def _close_on_own_line(node: cst.CSTNode, outer: str) -> cst.CSTNode:
    """*node* with a line break before its closing bracket."""
    if isinstance(node, cst.Tuple):
        return node.with_changes(rpar=[node.rpar[0].with_changes(whitespace_before=_break(outer)),
                                       *node.rpar[1:]])
    key = "rbracket" if hasattr(node, "rbracket") else "rbrace"
    bracket = getattr(node, key)
    return node.with_changes(**{key: bracket.with_changes(whitespace_before=_break(outer))})
