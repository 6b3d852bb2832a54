"""What becomes of a handler call's result inside one function: awaited, inspected then awaited,
stored for a later gather, passed on, or dropped (ADR-0120 D2's returned-awaitable disposition).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .loop_shapes import (
    AWAIT_WRAPPERS,
    COMPS,
    RESULT_CLASSIFIERS,
    SPAWNS,
    STORES,
    short,
    walk_body,
)
from .observations import Result
from .sites import last_name

AWAITING = frozenset({"wait_for", "shield"})  # awaiting these awaits their first argument


class Results:
    """Dispositions of handler results in one body; ``pending`` collects the classifiers seen on
    the way (maybe_await, isawaitable, iscoroutine) for the caller to record with the handler."""

    def __init__(self, nodes: list[ast.AST], parents: dict, is_gather: Callable[[ast.Call], bool]):
        self.nodes, self.parents, self.is_gather = nodes, parents, is_gather
        self.stored: dict[str, int] = {}  # lists holding handler results -> line of the store
        self.pending: list[tuple[str, ast.AST]] = []

    def disposition(self, node: ast.AST) -> Result:
        """What becomes of the value of *node*: awaited (under ``if <classifier>(value)``: with
        the classifier), maybe_await, inspected, stored (into a list), dropped, returned,
        gathered, task, used or passed (to a callee)."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Await):
            return Result("awaited")
        if isinstance(parent, ast.Call) and node in parent.args:
            return self._argument(parent, node)
        if isinstance(parent, ast.Expr):
            return Result("dropped")
        if isinstance(parent, ast.Return):
            return Result("returned")
        if isinstance(parent, COMPS):
            grand = self.parents.get(parent)
            grand = self.parents.get(grand) if isinstance(grand, ast.Starred) else grand
            return Result("gathered" if isinstance(grand, ast.Call) and self.is_gather(grand)
                          else "stored")
        if isinstance(parent, (ast.Assign, ast.NamedExpr, ast.AnnAssign)):
            target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
            if isinstance(target, ast.Name):
                return self._named(target.id)
        return Result("used")

    def _argument(self, call: ast.Call, node: ast.AST) -> Result:
        wrapper = last_name(call) or ""
        if wrapper in AWAITING and call.args[0] is node and isinstance(
                self.parents.get(call), ast.Await):
            return Result("awaited")  # `await asyncio.wait_for(h(x), t)` awaits what h returned
        if wrapper in AWAIT_WRAPPERS:
            self.pending.append(("maybe_await", call))
            return Result("maybe_await" if isinstance(self.parents.get(call), ast.Await)
                          else "dropped")
        if wrapper in SPAWNS:
            return Result("task")
        if wrapper in STORES and isinstance(call.func, ast.Attribute):
            return self._store(short(call.func.value, 30), call)
        return Result("gathered") if self.is_gather(call) else Result("passed", into=wrapper)

    def _store(self, name: str, node: ast.Call, classifier: str = "") -> Result:
        self.stored.setdefault(name, node.lineno)
        return Result("stored", classifier, name)

    def _named(self, var: str) -> Result:
        """What the function does with ``var = handler(...)``."""
        for node in self.nodes:
            if isinstance(node, ast.If) and isinstance(node.test, ast.Call):
                cls = RESULT_CLASSIFIERS.get(last_name(node.test) or "")
                if cls and any(isinstance(a, ast.Name) and a.id == var for a in node.test.args):
                    self.pending.append((cls, node.test))
                    return (self._use(var, list(walk_body(node.body)), cls)
                            or Result("inspected", cls))
        used = any(isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Load)
                   for n in self.nodes)
        return self._use(var, self.nodes, "") or Result("used" if used else "dropped")

    def _use(self, var: str, nodes: list[ast.AST], classifier: str) -> Result | None:
        for node in nodes:
            if isinstance(node, ast.Await) and _is_name(node.value, var):
                return Result("awaited", classifier)
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == var
                                                  for a in node.args):
                name = last_name(node) or ""
                if name in STORES and isinstance(node.func, ast.Attribute):
                    return self._store(short(node.func.value, 30), node, classifier)
                if name in AWAIT_WRAPPERS and isinstance(self.parents.get(node), ast.Await):
                    self.pending.append(("maybe_await", node))
                    return Result("maybe_await")
            if isinstance(node, ast.Return) and _is_name(node.value, var):
                return Result("returned")
        return None


def _is_name(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
