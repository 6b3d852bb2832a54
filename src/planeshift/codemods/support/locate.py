"""The one lookup from a scan position to LibCST nodes, cheap enough for whole trees.

The scan reports a registration at its 1-based line and 0-based character column, where its
own node starts (the registering call, the keyword argument, the mapping entry's key, the
decorator's ``@``, the assignment), and where it ends. LibCST's PositionProvider would answer that for any node, but it renders the whole
module with position tracking (about 3x a parse). So the statement is found with Python's own
parser, whose statements correspond one to one, in document order, to LibCST's; and only that
statement (a compound one with its body stubbed out) is rendered with positions, indented as in
the file, so its columns are the file's. The innermost Call / Decorator / Arg / DictElement /
Assign / AugAssign (``callbacks += [h]``) starting there is the answer; every ancestor is
known, so a transformer can visit just the paths to the nodes it edits.

A later codemod sees a tree earlier ones edited in place (expressions rewritten on their lines),
whose columns the scan no longer describes. It locates on the tree first parsed, which the text
and the scan describe, and follows the same child positions into the edited tree.
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

from .lines import python_lines
from .positions import of_kind, positions_of
from .statements import (Entry, ast_kind, ast_statements_with_parents, cst_kind, cst_statements,
                         indexed, statement_start)

TARGETS = (cst.Call, cst.Decorator, cst.Arg, cst.DictElement, cst.Assign, cst.AugAssign)


@dataclass(frozen=True, slots=True)
class Found:
    """The nodes of TARGETS starting at a position, innermost first, with their statement."""

    nodes: tuple[cst.CSTNode, ...]
    entry: Entry
    parents: dict[int, cst.CSTNode]  # id(child) -> parent, inside the statement's unit

    def path(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """The ancestors of *node* (inside this statement), from the module down."""
        chain = []
        current = self.parents.get(id(node))
        while current is not None:
            chain.append(current)
            current = self.parents.get(id(current))
        return (*self.entry.ancestors, *reversed(chain))


class Locator:
    """Positions to nodes in *module*, given the text *original* (the tree first parsed, *module*
    itself by default) was parsed from; *module* may have its expressions rewritten in place."""

    def __init__(self, module: cst.Module, text: str, tree: ast.Module | None = None,
                 original: cst.Module | None = None) -> None:
        self.module, self.text = module, text
        self.original = original if original is not None else module
        self.lines = python_lines(text, keepends=True)
        self.entries = list(cst_statements(module))
        self.first = self.entries if self.original is module else list(
            cst_statements(self.original))
        self.stmts: list[ast.stmt] = []
        self.parent: list[int] = []  # the index of each statement's enclosing one, -1 at the top
        for stmt, parent in indexed(ast_statements_with_parents((tree or ast.parse(text)).body)):
            self.stmts.append(stmt)
            self.parent.append(parent)
        kinds = [ast_kind(s) for s in self.stmts]
        if kinds != [cst_kind(e.node) for e in self.first] or len(self.first) != len(
                self.entries):
            raise LookupError("the ast and LibCST statements of this file do not correspond")
        # statements by position, built once: in document (pre-)order their starts are sorted,
        # so the last one starting at or before a position is found by bisection, and the
        # innermost one holding it is that one or one of its enclosing statements
        self._starts = [(statement_start(s)[0], self._chars(*statement_start(s))) for s in self.stmts]
        self._ends = [(s.end_lineno or statement_start(s)[0],
                       self._chars(s.end_lineno, s.end_col_offset or 0) if s.end_lineno
                       else statement_start(s)[1]) for s in self.stmts]
        self._lines = [line for line, _ in self._starts]
        self._by_node: dict[int, int] | None = None
        if any(a > b for a, b in zip(self._starts, self._starts[1:])):
            raise LookupError("the statements of this file are not in document order")

    def at(self, line: int, col: int, end_line: int | None = None,
           end_col: int | None = None) -> Found | None:
        """The TARGETS nodes starting at (line, col), innermost first; with an end, those that
        also end there come first."""
        index = self._innermost(line, col)
        if index is None:
            return None
        positions, parents, offset = self._positions(self.first[index], index)
        found = [node for node, where in positions.items() if of_kind(node, TARGETS)
                 and (where.start.line + offset, where.start.column) == (line, col)]
        if not found:
            return None
        depth = {id(n): _depth(n, parents) for n in found}
        found.sort(key=lambda n: -depth[id(n)])
        if end_line is not None and end_col is not None:
            ends = [n for n in found if (positions[n].end.line + offset,
                                         positions[n].end.column) == (end_line, end_col)]
            found = ends + [n for n in found if n not in ends]
        return self._current(index, found, parents)

    def line_break_before(self, line: int, col: int) -> Found | None:
        """The parenthesized line break ending where *line*'s text starts, inside the statement
        holding (line, col): where a comment line can go directly above a continuation line."""
        index = self._innermost(line, col)
        if index is None:
            return None
        text = self.lines[line - 1]
        start = len(text) - len(text.lstrip(" \t"))
        positions, parents, offset = self._positions(self.first[index], index)
        for node, where in positions.items():
            if isinstance(node, cst.ParenthesizedWhitespace) and where.start.line + offset < line \
                    and (where.end.line + offset, where.end.column) == (line, start):
                return self._current(index, [node], parents)
        return None

    def _current(self, index: int, nodes: Sequence[cst.CSTNode],
                 parents: dict[int, cst.CSTNode]) -> Found | None:
        """*nodes* of the first-parsed statement *index*, as the nodes at the same child
        positions of the statement in the current tree."""
        entry = self.entries[index]
        if self.original is self.module:
            return Found(tuple(nodes), entry, parents)
        unit = self.first[index].unit
        here: dict[int, cst.CSTNode] = {}
        _record_parents(entry.unit, here)
        mapped = [n for n in (_follow(entry.unit, _child_path(node, unit, parents))
                              for node in nodes) if n is not None]
        return Found(tuple(mapped), entry, here) if mapped else None

    def first_line(self, entry: Entry) -> int:
        """The first line of *entry*'s statement (its first decorator's, for a definition)."""
        if self._by_node is None:
            self._by_node = {id(e.node): i for i, e in enumerate(self.entries)}
        return self._starts[self._by_node[id(entry.node)]][0]

    def statement_at(self, line: int) -> Entry | None:
        """The innermost statement whose lines hold *line* (the last in document order)."""
        index = bisect.bisect_right(self._lines, line) - 1
        while index >= 0 and self._ends[index][0] < line:
            index = self.parent[index]
        return self.entries[index] if index >= 0 else None

    def _innermost(self, line: int, col: int) -> int | None:
        """The innermost statement holding (line, col): the last one starting at or before it,
        or the nearest enclosing one that also ends at or after it (statements nest, so any
        other holding it encloses that last one)."""
        index = bisect.bisect_right(self._starts, (line, col)) - 1
        while index >= 0 and self._ends[index] < (line, col):
            index = self.parent[index]
        return index if index >= 0 else None

    def _chars(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return min(byte_col, len(text))
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def _positions(self, entry: Entry, index: int
                   ) -> tuple[dict[cst.CSTNode, CodeRange], dict[int, cst.CSTNode], int]:
        """The positions of the entry's unit, rendered alone (a compound without its body), its
        parent map, and the line offset to the file."""
        unit = entry.unit
        shown = unit
        if entry.node is unit and isinstance(getattr(unit, "body", None), cst.BaseSuite):
            shown = unit.with_changes(body=_stub())
        stmt = self.stmts[index]
        first = self.lines[statement_start(stmt)[0] - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        body: cst.SimpleStatementLine | cst.BaseCompoundStatement = shown  # type: ignore[assignment]
        parent = entry.ancestors[-1] if entry.ancestors else None
        if isinstance(parent, cst.If) and parent.orelse is unit:  # rendered as `elif` only there
            body = cst.If(test=cst.Name("_"), body=_stub(), orelse=shown)  # type: ignore[arg-type]
        if indent:
            body = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[body], indent=indent))
        alone = cst.Module(body=[body], default_indent=self.module.default_indent,
                           default_newline=self.module.default_newline)
        parents: dict[int, cst.CSTNode] = {}
        positions, _ = positions_of(alone, parents, shown)
        if shown is not unit:
            for key, parent in list(parents.items()):
                if parent is shown:
                    parents[key] = unit
            positions[unit] = positions.pop(shown)
        anchor = positions[entry.node]
        offset = stmt.lineno - anchor.start.line
        return positions, parents, offset


def _stub() -> cst.IndentedBlock:
    return cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _record_parents(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> None:
    for child in node.children:
        parents[id(child)] = node
        _record_parents(child, parents)


def _child_path(node: cst.CSTNode, unit: cst.CSTNode, parents: dict[int, cst.CSTNode]
                ) -> list[tuple[int, type]]:
    """The child indices (and node types) leading from *unit* down to *node*."""
    path = []
    current = node
    while current is not unit:
        parent = parents[id(current)]
        index = next(i for i, child in enumerate(parent.children) if child is current)
        path.append((index, type(current)))
        current = parent
    return path[::-1]


def _follow(unit: cst.CSTNode, path: list[tuple[int, type]]) -> cst.CSTNode | None:
    node = unit
    for index, kind in path:
        children = node.children
        if index >= len(children) or type(children[index]) is not kind:
            return None
        node = children[index]
    return node


def _depth(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> int:
    depth = 0
    current = parents.get(id(node))
    while current is not None:
        depth += 1
        current = parents.get(id(current))
    return depth


def handler_node(found: Found, expr: str, keyword: str | None,
                 code: Callable[[cst.CSTNode], str],
                 unwrap: Callable[[cst.BaseExpression], cst.BaseExpression | None] | None = None,
                 ) -> cst.BaseExpression | None:
    """The handler expression (an argument, a list element, a mapping value, an assigned or
    added value, or what *unwrap* finds inside one) whose text is *expr*, in the innermost found node holding
    one; LookupError when two match and *keyword* does not tell them apart."""
    want = _Wanted(expr)
    for node in found.nodes:
        values = list(_values(node))
        if unwrap is not None:
            values += [inner for v in values if (inner := unwrap(v)) is not None]
        matches = [v for v in values if _same(code(_bare(v)), want)]
        if len(matches) > 1 and keyword:
            matches = [m for m in matches if _keyword_of(m, found.parents) == keyword] or matches
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise LookupError(f"{len(matches)} expressions {want} at this site")
    return None


class _Wanted:
    """An expression as the scan gives it: its text with whitespace folded (a written one), and
    its canonical form (one the scan rendered from its facts: ``name='x'`` for ``name="x"``),
    made only when a text is not the folded one."""

    def __init__(self, expr: str) -> None:
        self.expr, self.folded = expr, " ".join(expr.split())

    @functools.cached_property
    def canonical(self) -> str | None:
        return _canonical(self.expr)

    def __repr__(self) -> str:
        return repr(self.folded)


def _same(text: str, want: _Wanted) -> bool:
    """*text* is the expression *want* stands for."""
    if " ".join(text.split()) == want.folded:
        return True
    return want.canonical is not None and _canonical(text) == want.canonical


def _canonical(text: str) -> str | None:
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _values(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    if isinstance(node, cst.Call):
        for arg in node.args:
            yield from _values(arg)
    elif isinstance(node, cst.Arg):
        yield node.value
        yield from _elements(node.value)
    elif isinstance(node, cst.DictElement):
        yield node.value
    elif isinstance(node, (cst.Assign, cst.AugAssign)):  # a slot, or `callbacks += [h]`
        yield node.value
        yield from _elements(node.value)


def _elements(value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        yield from (e.value for e in value.elements if isinstance(e, cst.Element))
    elif isinstance(value, cst.Dict):
        yield from (e.value for e in value.elements if isinstance(e, cst.DictElement))


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _keyword_of(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> str | None:
    current = parents.get(id(node))
    while current is not None and not isinstance(current, cst.Arg):
        current = parents.get(id(current))
    if isinstance(current, cst.Arg) and current.keyword is not None:
        return current.keyword.value
    return None
