"""The syntax the hazard rules read during extraction: one statement-level pass per file, shared."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_BODIES = ("body", "orelse", "finalbody")
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True, slots=True)
class Stmt:
    """A statement and where it stands: its enclosing function and class (qualnames inside the
    module, "" for none) and the innermost ``except`` clause around it in that function."""

    node: ast.stmt
    function: str
    cls: str
    handler: ast.ExceptHandler | None = None

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
    _collect(tree.body, "", "", "", None, out)
    _memo[:] = [(tree, out)]
    return out


def _collect(body: list[ast.stmt], prefix: str, function: str, cls: str,
             handler: ast.ExceptHandler | None, out: list[Stmt]) -> None:
    for node in body:
        out.append(Stmt(node, function, cls, handler))
        if isinstance(node, DEFS):
            name = prefix + node.name
            _collect(node.body, name + ".", name, cls, None, out)
        elif isinstance(node, ast.ClassDef):
            name = prefix + node.name
            _collect(node.body, name + ".", function, name, None, out)
        else:
            for field in _BODIES:
                _collect(getattr(node, field, None) or [], prefix, function, cls, handler, out)
            for clause in getattr(node, "handlers", None) or []:
                _collect(clause.body, prefix, function, cls, clause, out)
            for case in getattr(node, "cases", None) or []:
                _collect(case.body, prefix, function, cls, handler, out)


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
