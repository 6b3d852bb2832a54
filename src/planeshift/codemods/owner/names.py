"""What the owner codemods read in a dispatch method: resolved names of the concurrency helpers,
the names a block binds or reads, and fresh names for what they add.

Every helper is matched on its resolved name (``from lionagi.ln.concurrency import maybe_await``,
``import anyio``), never on its spelling, so a façade's own function of the same name is left
alone and its loop refused.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
import libcst.matchers as m

from ..support.names import ModuleNames

_LN = "lionagi.ln.concurrency"
MAYBE_AWAIT = frozenset({f"{_LN}.maybe_await", f"{_LN}.utils.maybe_await", "lionagi.ln.maybe_await"})
IS_CORO_FUNC = frozenset({f"{_LN}.is_coro_func", f"{_LN}.utils.is_coro_func", "lionagi.ln.is_coro_func",
                          "asyncio.iscoroutinefunction", "inspect.iscoroutinefunction"})
# the returned-value classifiers the kernels have (ADR-0120 D2): inspect.iscoroutine is not one
CLASSIFIERS = {"inspect.isawaitable": "inspect_awaitable", "asyncio.iscoroutine": "asyncio_coroutine_only"}
ANYIO_RUN_SYNC = frozenset({"anyio.to_thread.run_sync"})
TO_THREAD = frozenset({"asyncio.to_thread"})
GATHER = frozenset({f"{_LN}.gather", f"{_LN}.patterns.gather", "asyncio.gather"})
TASK_GROUPS = frozenset({f"{_LN}.create_task_group", f"{_LN}.task.create_task_group",
                         "anyio.create_task_group"})
ASYNCIO_TASK_GROUP = frozenset({"asyncio.TaskGroup", "asyncio.taskgroups.TaskGroup"})
MOVE_ON = frozenset({f"{_LN}.move_on_after", f"{_LN}.cancel.move_on_after", "anyio.move_on_after"})
FAIL_AFTER = frozenset({f"{_LN}.fail_after", f"{_LN}.cancel.fail_after", "anyio.fail_after",
                        "asyncio.timeout"})
CANCELLED = frozenset({"asyncio.CancelledError", "asyncio.exceptions.CancelledError"})
CANCELLED_CLASS_OF = frozenset({f"{_LN}.get_cancelled_exc_class", f"{_LN}.errors.get_cancelled_exc_class",
                                "anyio.get_cancelled_exc_class"})


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name / Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


class Resolver:
    """Resolved qualified names of the expressions of one module."""

    def __init__(self, names: ModuleNames) -> None:
        self.names = names

    def qualified(self, node: cst.BaseExpression) -> str | None:
        text = dotted(node)
        if text is None:
            return None
        resolved = self.names.resolve(text)
        if resolved is not None:
            return resolved
        return text if "." not in text and self.names.builtin(text) else None

    def is_(self, node: cst.BaseExpression, qualified: Iterable[str]) -> bool:
        return self.qualified(node) in set(qualified)

    def call_of(self, node: cst.BaseExpression, qualified: Iterable[str]) -> cst.Call | None:
        """*node* when it is a call of one of *qualified*."""
        if isinstance(node, cst.Call) and self.is_(node.func, qualified):
            return node
        return None

    def cancelled(self, node: cst.BaseExpression | None) -> bool:
        """An except clause's class that is the cancellation exception (asyncio's, or
        ``get_cancelled_exc_class()``)."""
        if node is None:
            return False
        if isinstance(node, cst.Call) and not node.args:
            return self.is_(node.func, CANCELLED_CLASS_OF)
        return self.is_(node, CANCELLED)


class _Collect(cst.CSTVisitor):
    def __init__(self, imports: bool = True) -> None:
        self.reads: set[str] = set()
        self.binds: set[str] = set()
        self.imports = imports

    def visit_Import(self, node: cst.Import) -> bool:
        return self.imports

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return self.imports

    def visit_Name(self, node: cst.Name) -> None:
        self.reads.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # ``x.attr``: the attribute's name is not a variable
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.binds |= _target_names(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.binds |= _target_names(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.binds |= _target_names(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.binds |= _target_names(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.binds |= _target_names(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.binds |= _target_names(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.binds.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.binds.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.binds |= {n.name.value for n in node.names}

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.binds |= {n.name.value for n in node.names}

    def visit_Del(self, node: cst.Del) -> None:
        self.binds |= _target_names(node.target)


def _target_names(node: cst.CSTNode) -> set[str]:
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, (cst.Tuple, cst.List)):
        return {n for el in node.elements for n in _target_names(el.value)}
    if isinstance(node, cst.StarredElement):
        return _target_names(node.value)
    return set()


def target_names(node: cst.CSTNode) -> set[str]:
    return _target_names(node)


def reads_and_binds(nodes: Iterable[cst.CSTNode], imports: bool = True
                    ) -> tuple[set[str], set[str]]:
    """(every name read or written, every name bound) in *nodes*, nested functions included;
    the names import statements bind count unless *imports* is False."""
    collect = _Collect(imports)
    for node in nodes:
        node.visit(collect)
    return collect.reads, collect.binds


def fresh(base: str, taken: set[str]) -> str:
    """*base*, or *base* with a number, whichever is not in *taken* (and then is)."""
    name, index = base, 2
    while name in taken:
        name, index = f"{base}{index}", index + 1
    taken.add(name)
    return name


def leaves_loop(nodes: Iterable[cst.CSTNode]) -> cst.CSTNode | None:
    """A ``break`` / ``continue`` / ``return`` / ``yield`` that would leave (or end) the loop the
    statements sit in, outside any nested function or loop of their own."""
    for node in nodes:
        found = _leaving(node, top=True)
        if found is not None:
            return found
    return None


def _leaving(node: cst.CSTNode, top: bool) -> cst.CSTNode | None:
    if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        return None
    if isinstance(node, (cst.Return, cst.Yield)):
        return node
    if isinstance(node, (cst.Break, cst.Continue)) and top:
        return node
    nested_loop = isinstance(node, (cst.For, cst.While))
    for child in node.children:
        # a break inside a nested loop leaves that loop only
        found = _leaving(child, top and not nested_loop)
        if found is not None:
            return found
    return None


def statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A block's statements; a one-line suite (``if x: y``) as one statement line."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def has_await(nodes: Iterable[cst.CSTNode]) -> bool:
    return any(m.findall(node, m.Await() | m.For(asynchronous=m.Asynchronous())
                         | m.With(asynchronous=m.Asynchronous())) for node in nodes)
