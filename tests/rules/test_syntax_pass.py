"""The shared statement pass and node walks the rules read: the fast versions give what the plain
ones give (the same statements in the same order and scopes, the same nodes)."""

from __future__ import annotations

import ast
import bisect
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from planeshift.rules.checks import syntax
from planeshift.rules.checks.syntax import (
    OWN_SKIP,
    all_nodes,
    header_end,
    own_nodes,
    statements,
    statements_on,
)

SAMPLE = textwrap.dedent("""
    import os
    class A(B):
        x = 1
        def f(self, a):
            import json
            try:
                y = 1
            except ValueError as e:
                z = 2
                try:
                    pass
                except* (KeyError, OSError):
                    q = (1,
                         2)
            else:
                w = 3
            finally:
                v = 4
            for i in a:
                if i:
                    return i
                elif not i:
                    continue
                else:
                    break
            else:
                u = lambda: self.k
            while a:
                with open(a) as f, open(b):
                    async def g():
                        async with x:
                            async for j in y:
                                pass
            match a:
                case 1:
                    r = 1
                case [x, *_]:
                    class C:
                        def h(self): return self.m
    def top(): return 1
    x = [
        1,
        2]
    """)


def _reference(tree: ast.Module) -> list[tuple]:
    """The pass as first written: an explicit stack of body iterators (and what the ``try``
    statements around a statement catch, as the plain walk would collect it)."""
    out: list[tuple] = []
    stack: list = [(iter(tree.body), "", "", "", None, ())]
    while stack:
        body, prefix, function, cls, handler, caught = stack[-1]
        node = next(body, None)
        if node is None:
            stack.pop()
            continue
        out.append((node, function, cls, handler, caught))
        if isinstance(node, syntax.DEFS):
            name = prefix + node.name
            stack.append((iter(node.body), name + ".", name, cls, None, ()))
        elif isinstance(node, ast.ClassDef):
            name = prefix + node.name
            stack.append((iter(node.body), name + ".", function, name, None, ()))
        elif isinstance(node, syntax._COMPOUND):
            inner = caught
            if isinstance(node, (ast.Try, ast.TryStar)):
                for clause in node.handlers:
                    types = clause.type.elts if isinstance(clause.type, ast.Tuple) else [
                        clause.type]
                    inner += tuple("" if t is None else ast.unparse(t) if isinstance(
                        t, (ast.Name, ast.Attribute)) else "?" for t in types)
            children = [(iter(b), prefix, function, cls, handler, c)
                        for b, c in ((getattr(node, "body", None), inner),
                                     (getattr(node, "orelse", None), caught)) if b]
            if isinstance(node, ast.Match):
                children = [(iter(c.body), prefix, function, cls, handler, caught)
                            for c in node.cases]
            for clause in getattr(node, "handlers", None) or []:
                children.append((iter(clause.body), prefix, function, cls, clause, caught))
            if getattr(node, "finalbody", None):
                children.append((iter(node.finalbody), prefix, function, cls, handler, caught))
            stack.extend(reversed(children))
    return out


def _reference_on(stmts: list, lines: list[int]) -> Iterator:
    for stmt in stmts:
        node = stmt.node
        i = bisect.bisect_left(lines, node.lineno)
        if i < len(lines) and lines[i] <= (getattr(node, "end_lineno", 0) or node.lineno) and (
                lines[i] <= header_end(node)):
            yield stmt


def _trees() -> Iterator[ast.Module]:
    yield ast.parse(SAMPLE)
    for path in sorted(Path(syntax.__file__).parents[2].rglob("*.py"))[:80]:
        yield ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("tree", list(_trees()))
def test_the_pass_and_walks_match_the_plain_ones(tree: ast.Module) -> None:
    syntax.forget()
    try:
        stmts = statements(tree)
        assert [tuple(s) for s in stmts] == _reference(tree)
        assert statements(tree) is stmts  # shared by the rules reading the file
        last = max((s.node.end_lineno or 0 for s in stmts), default=0)
        for lines in ([1], [3, 9, 14], list(range(1, last + 2, 7)), [last]):
            assert list(statements_on(tree, lines)) == list(_reference_on(stmts, lines))
        for stmt in stmts:
            node = stmt.node
            assert sorted(map(id, all_nodes(node))) == sorted(map(id, ast.walk(node)))
            if isinstance(node, syntax.DEFS):
                assert sorted(map(id, all_nodes(node, OWN_SKIP))) == sorted(
                    map(id, [node, *own_nodes(node)]))
    finally:
        syntax.forget()
