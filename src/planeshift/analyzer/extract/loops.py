"""Dispatch-loop facts: how a function calls the callables it iterates over.

ADR-0120 D2 describes a dispatcher by its policy, and the policy is visible in its loop:
``for h in handlers: try: await maybe_await(h(...)) except Exception: log`` is sequential and
isolating; a sync call whose result is dropped is DISCARD_UNAWAITED. This module records the raw
observations; ``rules/policy.py`` turns them into a policy.
"""

from __future__ import annotations

import ast

from .facts import LoopFacts
from .sites import last_name

CLASSIFIERS = {
    "isawaitable": "inspect.isawaitable",
    "iscoroutine": "asyncio.iscoroutine",
    "is_coro_func": "by_declaration",
    "iscoroutinefunction": "by_declaration",
    "is_coroutine_function": "by_declaration",
}
CONCURRENCY = {
    "gather": "gather",
    "TaskGroup": "task_group",
    "create_task_group": "task_group",
    "start_soon": "task_group",
    "create_task": "create_task",
    "ensure_future": "create_task",
    "to_thread": "offload",
    "run_sync": "offload",
    "run_in_executor": "offload",
}
DEADLINES = {"wait_for", "timeout", "move_on_after", "fail_after", "timeout_at", "wait"}
AWAIT_WRAPPERS = {"maybe_await", "await_if_needed", "maybe_awaitable", "ensure_awaited"}


def _name(node: ast.AST) -> str:
    return last_name(node) or ""


def _walk_body(nodes: list[ast.stmt]):
    """Walk statements without entering nested function or class definitions."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)


def _target_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


class _Loop:
    """Observations gathered over one function body."""

    def __init__(self) -> None:
        self.iterates: list[str] = []
        self.results: list[str] = []
        self.guards: list[str] = []
        self.lines: list[int] = []


def loop_facts(func: ast.FunctionDef | ast.AsyncFunctionDef) -> LoopFacts | None:
    """Loop facts for *func*, or None when it never calls a callable it iterates over."""
    parents: dict[ast.AST, ast.AST] = {}
    body = list(_walk_body(func.body))
    for node in body:
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found = _Loop()
    for node in body:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            names = _target_names(node.target)
            inner = list(_walk_body(node.body))
            names |= _derived_names(inner, names)
            _scan_calls(inner, names, parents, found, ast.unparse(node.iter)[:80])
        elif isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            names = set().union(*(_target_names(g.target) for g in node.generators))
            _scan_calls(list(ast.walk(node.elt)), names, parents, found,
                        ast.unparse(node.generators[0].iter)[:80])
    if not found.lines:
        return None
    classifiers: set[str] = set()
    concurrency: set[str] = set()
    deadline: set[str] = set()
    for node in body:
        if isinstance(node, ast.Call):
            name = _name(node)
            if name in CLASSIFIERS:
                classifiers.add(CLASSIFIERS[name])
            if name in CONCURRENCY:
                concurrency.add(CONCURRENCY[name])
            if name in DEADLINES:
                deadline.add(name)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                name = _name(item.context_expr)
                if name in DEADLINES:
                    deadline.add(name)
                if name in CONCURRENCY:
                    concurrency.add(CONCURRENCY[name])
    return LoopFacts(
        iterates=tuple(dict.fromkeys(found.iterates)),
        call_result=tuple(dict.fromkeys(found.results)),
        classifiers=tuple(sorted(classifiers)),
        guards=tuple(dict.fromkeys(found.guards)),
        concurrency=tuple(sorted(concurrency)),
        deadline=tuple(sorted(deadline)),
        lines=tuple(found.lines),
    )


def _derived_names(nodes: list[ast.AST], names: set[str]) -> set[str]:
    """Names bound from a loop variable inside the loop: ``fn = entry.handler``, ``cb := ref()``."""
    derived: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.NamedExpr):
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name):
            continue
        if isinstance(value, ast.Call):
            # `cb := ref()` dereferences a weak reference held in the loop variable
            if isinstance(value.func, ast.Name) and value.func.id in names and not value.args:
                derived.add(target.id)
        elif {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & names:
            derived.add(target.id)
    return derived


def _scan_calls(nodes, names, parents, found: _Loop, iterated: str) -> None:
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in names:
            continue
        found.iterates.append(iterated)
        found.lines.append(node.lineno)
        found.results.append(_disposition(node, parents, nodes))
        found.guards.append(_guard(node, parents))


def _disposition(call: ast.Call, parents: dict, nodes: list[ast.AST]) -> str:
    parent = parents.get(call)
    if isinstance(parent, ast.Await):
        return "awaited"
    if isinstance(parent, ast.Call) and call in parent.args:
        wrapper = _name(parent)
        if wrapper in AWAIT_WRAPPERS:
            return "maybe_await" if isinstance(parents.get(parent), ast.Await) else "dropped"
        if wrapper in ("create_task", "ensure_future", "start_soon"):
            return "task"
        if wrapper == "append":
            return "stored"
        return "passed"
    if isinstance(parent, ast.Expr):
        return "dropped"
    if isinstance(parent, ast.Return):
        return "returned"
    if isinstance(parent, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        grand = parents.get(parent)
        if isinstance(grand, (ast.Call, ast.Starred)):
            return "gathered" if "gather" in ast.unparse(grand)[:40] else "stored"
        return "stored"
    if isinstance(parent, (ast.Assign, ast.NamedExpr)):
        target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
        if isinstance(target, ast.Name):
            return _follow(target.id, nodes)
    return "used"


def _follow(var: str, nodes: list[ast.AST]) -> str:
    """What the loop does with ``var = handler(...)``."""
    awaited = stored = inspected = False
    for node in nodes:
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Name) and node.value.id == var:
            awaited = True
        elif isinstance(node, ast.Call):
            arg_names = {a.id for a in node.args if isinstance(a, ast.Name)}
            if var in arg_names:
                name = _name(node)
                if name in CLASSIFIERS:
                    inspected = True
                elif name in AWAIT_WRAPPERS:
                    awaited = True
                elif name in ("append", "add", "extend", "create_task", "ensure_future"):
                    stored = True
    if awaited:
        return "awaited_if_awaitable" if inspected else "awaited"
    if stored:
        return "stored"
    return "dropped"


def _guard(call: ast.Call, parents: dict) -> str:
    node: ast.AST | None = call
    while node is not None:
        parent = parents.get(node)
        if isinstance(parent, ast.Try) and node in parent.body:
            return _classify_try(parent)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
                break
        node = parent
    return "propagate"


def _classify_try(node: ast.Try) -> str:
    kinds: list[str] = []
    for handler in node.handlers:
        caught = ast.unparse(handler.type) if handler.type is not None else "BaseException"
        stmts = list(_walk_body(handler.body))
        if any(isinstance(s, ast.Raise) for s in handler.body):
            kinds.append(f"propagate:{caught}")  # an unconditional re-raise
        elif any(isinstance(s, ast.Raise) for s in stmts) and not any(
            isinstance(s, (ast.Expr, ast.Assign)) for s in handler.body
        ):
            kinds.append(f"propagate:{caught}")
        elif any(isinstance(s, ast.Break) for s in stmts):
            kinds.append(f"stop:{caught}")
        elif any(isinstance(s, ast.Call) and _name(s) in ("append", "add") for s in stmts):
            kinds.append(f"collect:{caught}")
        else:
            kinds.append(f"isolate:{caught}")
    return ";".join(kinds) or "propagate"
