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
from collections.abc import Callable, Mapping
from typing import cast

import libcst as cst

from .brackets import BRACKETS, elements, explode, is_flat, is_hugged
from .lines import python_lines, width
from .statements import ast_statements, cst_statements
from .names_layout import adapter_of, wrap_long_names
from .positions import Rendering, positions_of
from .style import TargetStyle

ROUNDS = 200  # explosions a statement may take; each one splits a bracket that was flat


def fit(tree: cst.Module, before: str, style: TargetStyle,
        adapters: frozenset[str] = frozenset(), original: cst.Module | None = None,
        units: Mapping[int, tuple[cst.CSTNode, cst.CSTNode]] | None = None) -> str:
    """The code of *tree* with each statement holding a line that is over *style*'s line
    length, and that the original text *before* did not have, split as the formatter would.
    *adapters* are the names of the calls a rewrite wraps a handler in (see ``_noted``). Given
    the tree first parsed, *original*, only the statement lines not in it are looked at, each
    keeping the long lines it had (*units*: see ``base.UNITS``)."""
    return fit_tree(tree, before, style, adapters, original, units).code


def fit_tree(tree: cst.Module, before: str, style: TargetStyle,
             adapters: frozenset[str] = frozenset(), original: cst.Module | None = None,
             units: Mapping[int, tuple[cst.CSTNode, cst.CSTNode]] | None = None
             ) -> cst.Module:
    """:func:`fit`'s result as a tree."""
    if original is not None:
        return _fit_rewritten(tree, before, original, units or {}, style, adapters)
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


def _fit_rewritten(tree: cst.Module, before: str, original: cst.Module,
                   units: Mapping[int, tuple[cst.CSTNode, cst.CSTNode]], style: TargetStyle,
                   adapters: frozenset[str]) -> cst.Module:
    """:func:`fit_tree` for the statement lines of *tree* that are not *original*'s (those an
    edit rebuilt, or an import added): each rendered alone, its lines as they stand in the
    module (its block's indentation where LibCST puts it), and split when one is over the line
    length that the line it was first parsed as (*units*) did not have. The module is not
    rendered: the other lines are the text's own."""
    kept = {id(entry.unit) for entry in cst_statements(original)}
    # the long lines of the text the tree was parsed from: a line none of them is was not had
    long_before = {line for line in python_lines(before) if width(line) > style.line_length}
    replaced: dict[int, cst.SimpleStatementLine] = {}
    paths: set[int] = set()
    for entry in cst_statements(tree):
        unit = entry.unit
        if id(unit) in kept or not isinstance(unit, cst.SimpleStatementLine) or \
                len(unit.body) != 1 or id(unit) in replaced:
            continue
        indent = "".join(block.indent if block.indent is not None else tree.default_indent
                         for block in entry.ancestors if isinstance(block, cst.IndentedBlock))
        rendering = _render(unit)
        long = [line for line in _as_placed(rendering, indent) if
                width(line) > style.line_length]
        first = units.get(id(unit))
        if first is not None and first[0] is unit and any(line in long_before for line in long):
            had = Counter(_as_placed(_render(cast(cst.SimpleStatementLine, first[1])), indent))
            long = [line for line in long if not _taken(had, line)]
        if not long or _noted(unit, adapters):
            continue
        column = len(indent)
        split, code = _split(unit, column, style, rendering)
        replaced[id(unit)] = _checked(unit, *wrap_long_names(split, code, column, style,
                                                             adapters))
        paths.update(id(a) for a in entry.ancestors)
    if not replaced:
        return tree
    return cast(cst.Module, tree.visit(_Replace(replaced, paths)))


def _as_placed(rendering: Rendering, indent: str) -> list[str]:
    """The lines of a statement rendered alone as they stand in its block: *indent* where
    LibCST indents a line (the statement's first, a line break inside brackets), not inside
    a string."""
    return [indent + line if number in rendering.indented else line
            for number, line in enumerate(python_lines(rendering.code), 1)]


def _taken(had: Counter[str], line: str) -> bool:
    """Was *line* one of the lines *had* counts (then one fewer)?"""
    if had[line] > 0:
        had[line] -= 1
        return True
    return False


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


def _split(unit: cst.SimpleStatementLine, column: int, style: TargetStyle,
           rendering: Rendering | None = None) -> tuple[cst.SimpleStatementLine, str]:
    """*unit* (its first line at *column*) with the outermost flat bracket of each line over the
    line length split, one element a line, until every line fits or nothing flat is left; and
    its code. Each round renders the statement once (the rendering that showed a hugged layout
    fits is the next round's) and rebuilds only the nodes above the bracket it splits."""
    rendered, rendering = unit, rendering or _render(unit)  # (*rendering*: *unit*'s, if known)
    for _ in range(ROUNDS):
        if rendered is not unit:
            rendered, rendering = unit, _render(unit)
        lines = python_lines(rendering.code)
        long = {n for n, line in enumerate(lines, 1)
                if column + width(line) > style.line_length}
        starts = rendering.starts
        target = next((node for node in rendering.nodes if (
            is_flat(node) and starts[node] in long) or (
            is_hugged(node) and starts[node] + 1 in long)), None)
        if target is None:
            return unit, rendering.code
        start = starts[target]
        line = lines[start - 1]
        depth = len(line) - len(line.lstrip(" \t"))
        inner, outer = line[:depth] + style.indent, line[:depth]
        above = rendering.above[target]
        if not is_flat(target):  # its elements on one line of their own, too long now
            unit = _swap(unit, above, target, explode(target, inner, outer))
            continue
        moved = target if rendering.entered[target] == rendering.ends[target] else cast(
            cst.CSTNode, target.visit(_Shift(style.indent)))  # line breaks inside one level in
        if isinstance(target, cst.ImportFrom):  # isort wraps one name a line
            unit = _swap(unit, above, target, explode(moved, inner, outer))
            continue
        hugged = _swap(unit, above, target, explode(moved, inner, outer, hug=True))
        if len(elements(target)) == 1:
            unit = hugged
        else:
            rendered, rendering = hugged, _render(hugged)
            unit = hugged if _fits(rendering.code, start + 1, column, style) else _swap(
                unit, above, target, explode(moved, inner, outer))
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


