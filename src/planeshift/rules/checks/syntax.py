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
    # (statements left, qualname prefix, function, class, except clause), innermost last
    stack: list[tuple[Iterator[ast.stmt], str, str, str, ast.ExceptHandler | None]] = [
        (iter(tree.body), "", "", "", None)]
    while stack:
        body, prefix, function, cls, handler = stack[-1]
        node = next(body, None)
        if node is None:
            stack.pop()
            continue
        out.append(Stmt(node, function, cls, handler))
        if isinstance(node, DEFS):
            name = prefix + node.name
            stack.append((iter(node.body), name + ".", name, cls, None))
        elif isinstance(node, ast.ClassDef):
            name = prefix + node.name
            stack.append((iter(node.body), name + ".", function, name, None))
        elif isinstance(node, _COMPOUND):
            stack.extend(reversed(_children(node, prefix, function, cls, handler)))
    _memo[:] = [(tree, out)]
    return out


def forget() -> None:
    """Drop the remembered pass (and its tree) once a file's rules have read it."""
    _memo.clear()


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
             ast.TryStar, ast.Match)


def _children(node: ast.stmt, prefix: str, function: str, cls: str,
              handler: ast.ExceptHandler | None) -> list:
    """The nested bodies of a compound statement, in source order."""
    out = [(iter(body), prefix, function, cls, handler)
           for body in (getattr(node, "body", None), getattr(node, "orelse", None)) if body]
    if isinstance(node, ast.Match):
        out = [(iter(case.body), prefix, function, cls, handler) for case in node.cases]
    for clause in getattr(node, "handlers", None) or []:
        out.append((iter(clause.body), prefix, function, cls, clause))
    final = getattr(node, "finalbody", None)
    if final:
        out.append((iter(final), prefix, function, cls, handler))
    return out


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
    for stmt in statements(tree):
        node = stmt.node
        i = bisect.bisect_left(lines, node.lineno)
        if i < len(lines) and lines[i] <= (getattr(node, "end_lineno", 0) or node.lineno) and (
                lines[i] <= header_end(node)):
            yield stmt
