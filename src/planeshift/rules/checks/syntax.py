"""The syntax the hazard rules read during extraction: one statement-level pass per file, shared."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Stmt(NamedTuple):
    """A statement and where it stands: its enclosing function and class (qualnames inside the
    module, "" for none), the innermost ``except`` clause around it in that function, and the
    exceptions the ``try`` statements it is in the body of catch there (dotted as written, ""
    for a bare ``except``), innermost last."""

    node: ast.stmt
    function: str
    cls: str
    handler: ast.ExceptHandler | None = None
    caught: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """The innermost enclosing function or class (qualnames nest, so the longer one)."""
        return self.function if len(self.function) > len(self.cls) else self.cls


_memo: list[tuple[ast.Module, list[Stmt]]] = []


def statements(tree: ast.Module) -> list[Stmt]:
    """Every statement of *tree*, nested bodies included, in source order; computed once per tree
    (the rules reading one file share the pass, about a tenth of the cost of walking every node)."""
    if _memo and _memo[0][0] is tree:
        return _memo[0][1]
    out: list[Stmt] = []
    _walk(tree.body, "", "", "", None, (), out)
    _memo[:] = [(tree, out)]
    return out


def _walk(body: list[ast.stmt], prefix: str, function: str, cls: str,
          handler: ast.ExceptHandler | None, caught: tuple[str, ...], out: list[Stmt]) -> None:
    """Append the statements of *body* and of its nested bodies to *out*, depth first: a
    compound statement's body, ``else``, ``except`` clauses and ``finally`` (a ``match``'s cases),
    a def's or class's body under its qualname (one frame per level of indentation)."""
    append, new = out.append, tuple.__new__  # (Stmt's own __new__ is a Python function)
    for node in body:
        append(new(Stmt, (node, function, cls, handler, caught)))
        kind = type(node)
        if kind in _DEF_TYPES:
            name = prefix + node.name
            _walk(node.body, name + ".", name, cls, None, (), out)
        elif kind is ast.ClassDef:
            name = prefix + node.name
            _walk(node.body, name + ".", function, name, None, (), out)
        elif kind in _COMPOUND_TYPES:
            if kind is ast.Match:
                for case in node.cases:
                    if case.body:
                        _walk(case.body, prefix, function, cls, handler, caught, out)
                continue
            trying = kind is ast.Try or kind is ast.TryStar
            if node.body:
                inner = caught + _caught_by(node.handlers) if trying else caught
                _walk(node.body, prefix, function, cls, handler, inner, out)
            orelse = getattr(node, "orelse", None)
            if orelse:
                _walk(orelse, prefix, function, cls, handler, caught, out)
            if trying:
                for clause in node.handlers:
                    if clause.body:
                        _walk(clause.body, prefix, function, cls, clause, caught, out)
                if node.finalbody:
                    _walk(node.finalbody, prefix, function, cls, handler, caught, out)


def _caught_by(handlers: list[ast.ExceptHandler]) -> tuple[str, ...]:
    """The exceptions *handlers* catch, dotted as written ("" for a bare ``except``; "?" for an
    expression that is not a name)."""
    out: list[str] = []
    for clause in handlers:
        kinds = clause.type.elts if isinstance(clause.type, ast.Tuple) else [clause.type]
        out += ["" if k is None else dotted(k) or "?" for k in kinds]
    return tuple(out)


def forget() -> None:
    """Drop the remembered pass (and its tree) once a file's rules have read it."""
    _memo.clear()


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
             ast.TryStar, ast.Match)
_DEF_TYPES = frozenset(DEFS)
_COMPOUND_TYPES = frozenset(_COMPOUND)


def functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualname, node) of every function and method."""
    for stmt in statements(tree):
        if isinstance(stmt.node, DEFS):
            yield qualname(stmt), stmt.node


def qualname(stmt: Stmt) -> str:
    """The qualname a def or class statement defines."""
    name = getattr(stmt.node, "name", "")
    return f"{stmt.scope}.{name}" if stmt.scope else name


def own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not descending into nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*DEFS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def all_nodes(root: ast.AST, skip: frozenset[type] = frozenset()) -> Iterator[ast.AST]:
    """*root* and every node under it, in no particular order (``ast.walk``'s nodes, faster):
    the nodes of a type in *skip* are given but not entered. For a test over every node
    (``any``, a set), where the order does not matter."""
    stack = [root]
    pop, push, AST = stack.pop, stack.append, ast.AST
    while stack:
        node = pop()
        yield node
        if skip and type(node) in skip and node is not root:
            continue
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)


OWN_SKIP = frozenset((*DEFS, ast.ClassDef, ast.Lambda))  # own_nodes does not enter these


def dotted(expr: ast.AST | None) -> str | None:
    """``a.b.c`` for a name or attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def self_path(expr: ast.AST) -> str | None:
    """``a.b`` for ``self.a.b``, else None."""
    text = dotted(expr)
    if text and text.startswith("self.") and len(text) > 5:
        return text[5:]
    return None


def called(expr: ast.AST) -> str | None:
    """The dotted callee of a call (seen through ``await``); None when *expr* is no call."""
    if isinstance(expr, ast.Await):
        expr = expr.value
    if isinstance(expr, ast.Call):
        return dotted(expr.func)
    return None


def header_end(node: ast.stmt) -> int:
    """The last line of the expressions a statement holds itself."""
    head = header(node)
    return max((getattr(h, "end_lineno", 0) or 0 for h in head), default=node.lineno)


def header(node: ast.stmt) -> list[ast.AST]:
    """The expressions a statement holds itself (not its nested bodies)."""
    if isinstance(node, (ast.If, ast.While)):
        return [node.test]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target, node.iter]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return list(node.items)
    if isinstance(node, (*DEFS, ast.ClassDef, ast.Try, ast.Match)):
        return []
    return [node]


def header_nodes(node: ast.stmt) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """(node, parent) for every node of a statement's own expressions (an f-string is one)."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(h, None) for h in header(node)]
    while stack:
        item, parent = stack.pop()
        yield item, parent
        if not isinstance(item, ast.JoinedStr):
            stack.extend((child, item) for child in ast.iter_child_nodes(item))


def lines_of(pattern: re.Pattern[str], text: str) -> list[int]:
    """The sorted 1-based lines where *pattern* matches (one pass over the text)."""
    out: list[int] = []
    line, last = 1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        if not out or out[-1] != line:
            out.append(line)
    return out


def statements_on(tree: ast.Module, lines: list[int]) -> Iterator[Stmt]:
    """The statements (in functions or classes) whose own expressions span one of *lines*
    (sorted): the few places a pattern found, without looking at the others."""
    if not lines:
        return
    n, first, last_line, bisect_left = len(lines), lines[0], lines[-1], bisect.bisect_left
    for stmt in statements(tree):
        node = stmt.node
        start = node.lineno
        if start > last_line:
            continue
        end = node.end_lineno or start
        if end < first:
            continue
        i = bisect_left(lines, start)
        if i < n and lines[i] <= end and lines[i] <= header_end(node):
            yield stmt
