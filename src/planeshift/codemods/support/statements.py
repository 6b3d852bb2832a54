"""Every statement of a module in document order, as LibCST's nodes (each small statement with
the line or compound that renders it and its ancestors) and as Python's (with the statement
enclosing each): the two correspond one to one, which is how the locator maps the scan's
positions to LibCST's nodes, and the layout pass finds the lines it lays out."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from ...analyzer.extract.outline import first_line


_SUITES = ("body", "handlers", "orelse", "finalbody", "cases")
_AST_SUITES = ("body", "handlers", "orelse", "finalbody", "cases")


@dataclass(frozen=True, slots=True)
class Entry:
    """One statement: the small statement or compound statement, the line or compound that owns
    its leading comment lines, and every node from the module down to that owner (excluded)."""

    node: cst.CSTNode
    unit: cst.CSTNode  # SimpleStatementLine, or the compound statement (or the suite for `x: a; b`)
    ancestors: tuple[cst.CSTNode, ...]


def cst_statements(module: cst.Module) -> Iterator[Entry]:
    """Every statement in document order (small statements one by one), with its ancestors."""
    yield from _walk_suite(module.body, (module,))


def _walk_suite(body: object, ancestors: tuple[cst.CSTNode, ...]) -> Iterator[Entry]:
    for stmt in body:  # type: ignore[attr-defined]
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                yield Entry(small, stmt, ancestors)
        elif isinstance(stmt, cst.BaseSmallStatement):  # `if x: a; b`: the compound renders it
            owner = next(i for i in range(len(ancestors) - 1, -1, -1)
                         if isinstance(ancestors[i], cst.BaseCompoundStatement))
            yield Entry(stmt, ancestors[owner], ancestors[:owner])
        else:
            yield Entry(stmt, stmt, ancestors)
            yield from _walk_compound(stmt, (*ancestors, stmt))


def _walk_compound(node: cst.CSTNode, ancestors: tuple[cst.CSTNode, ...]) -> Iterator[Entry]:
    for name in _SUITES:
        part = getattr(node, name, None)
        if part is None:
            continue
        for child in part if isinstance(part, (list, tuple)) else (part,):
            if isinstance(child, cst.BaseCompoundStatement):  # an `elif`
                yield Entry(child, child, ancestors)
                yield from _walk_compound(child, (*ancestors, child))
            elif isinstance(child, cst.BaseSuite):
                yield from _walk_suite(child.body, (*ancestors, child))
            else:  # Else, Finally, ExceptHandler, MatchCase: a clause holding a suite
                yield from _walk_compound(child, (*ancestors, child))


def ast_statements_with_parents(body: list[ast.stmt], parent: ast.stmt | None = None
                                ) -> Iterator[tuple[ast.stmt, ast.stmt | None]]:
    """:func:`ast_statements` with each statement's enclosing statement (None at the top)."""
    for stmt in body:
        yield stmt, parent
        for name in _AST_SUITES:
            for child in getattr(stmt, name, ()) or ():
                if isinstance(child, ast.stmt):
                    yield from ast_statements_with_parents([child], stmt)
                else:  # an except handler or a match case
                    yield from ast_statements_with_parents(child.body, stmt)


def indexed(pairs: Iterator[tuple[ast.stmt, ast.stmt | None]]) -> Iterator[tuple[ast.stmt, int]]:
    index: dict[int, int] = {}
    for i, (stmt, parent) in enumerate(pairs):
        index[id(stmt)] = i
        yield stmt, index[id(parent)] if parent is not None else -1


def ast_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for name in _AST_SUITES:
            for child in getattr(stmt, name, ()) or ():
                if isinstance(child, ast.stmt):
                    yield from ast_statements([child])
                else:  # an except handler or a match case
                    yield from ast_statements(child.body)


def statement_start(stmt: ast.stmt) -> tuple[int, int]:
    """Where a statement starts: its first line (a definition's first decorator's), its column."""
    return (first_line(stmt), stmt.col_offset)


def ast_kind(stmt: ast.stmt) -> str:
    name = type(stmt).__name__
    return {"AsyncFunctionDef": "FunctionDef", "AsyncFor": "For", "AsyncWith": "With",
            "Delete": "Del"}.get(name, name)


def cst_kind(node: cst.CSTNode) -> str:
    return type(node).__name__
