"""A module's top-level statements as lines: what a migration needs to cut out the few it
rewrites without Python parsing the whole module again.

Each group is one of LibCST's top-level statements: Python's statements sharing lines
(``a = 1; b = 2``) are one. A group is three integers, flattened into one tuple (a facts field
marshal stores as it is): its first line (a definition's first decorator's), its last line, and
its kind:

- ``DEFINITION``: a function or class definition whose decorators, defaults, annotations and
  bases bind nothing in the module (no ``:=``). Its body is its own scope: nothing in it binds
  or declares a name of the module, so a reader of the module's own level may skip it whole;
- ``IMPORTS``: import statements only;
- ``EXPRESSION``: its first statement is an expression (a docstring, at the top);
- ``OTHER``: anything else.
"""

from __future__ import annotations

import ast

OTHER, DEFINITION, IMPORTS, EXPRESSION = 0, 1, 2, 3
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def outline(body: list[ast.stmt], text: str) -> tuple[int, ...]:
    """The groups of *body* (a module's statements; *text* its source) as (first, last, kind)
    triples, flattened."""
    walrus = ":=" in text
    out: list[int] = []
    for stmt in body:
        first = first_line(stmt)
        last = stmt.end_lineno or stmt.lineno
        kind = _kind(stmt, walrus)
        if out and first <= out[-2]:  # shares a line with the group before: one group
            out[-2] = max(out[-2], last)
            if not (out[-1] == IMPORTS and kind == IMPORTS or out[-1] == EXPRESSION):
                out[-1] = OTHER
        else:
            out += (first, last, kind)
    return tuple(out)


def groups(flat: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The (first, last, kind) triples of an :func:`outline`."""
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]


def first_line(stmt: ast.stmt) -> int:
    """A statement's first line: its first decorator's, for a definition."""
    decorators = getattr(stmt, "decorator_list", None)
    return min(d.lineno for d in decorators) if decorators else stmt.lineno


def _kind(stmt: ast.stmt, walrus: bool) -> int:
    if isinstance(stmt, _DEFINITIONS):
        return OTHER if walrus and _binds_in_header(stmt) else DEFINITION
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return IMPORTS
    return EXPRESSION if isinstance(stmt, ast.Expr) else OTHER


def _binds_in_header(stmt: ast.stmt) -> bool:
    """Does an assignment expression in the definition's header (evaluated in the module's
    scope: decorators, defaults, annotations, bases) bind a name of the module?"""
    body = stmt.body  # type: ignore[attr-defined]
    header = [child for child in ast.iter_child_nodes(stmt) if child not in body]
    return any(isinstance(node, ast.NamedExpr) for part in header for node in ast.walk(part))
