"""The shapes a dispatch path is read by: handler-call results, try/except guards and raises.

Helpers of ``loops.py`` that look at one node and its parents only; the names they recognise
(``maybe_await``, ``move_on_after``, ``is_coro_func`` ...) are listed here, in one place.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .observations import Action
from .sites import last_name
from .visitor import child_nodes

# attributes of a registry entry that hold the handler: `reg.handler(env)`, `sub.callback(x)`
HANDLER_ATTRS = frozenset({
    "handler", "callback", "cb", "fn", "func", "function", "hook", "listener", "subscriber",
    "observer", "callable", "receiver", "processor",
})
DECLARATION = frozenset({
    "is_coro_func", "iscoroutinefunction", "is_coroutine_function", "is_async_callable",
})
RESULT_CLASSIFIERS = {"isawaitable": "isawaitable", "iscoroutine": "iscoroutine"}
AWAIT_WRAPPERS = frozenset({"maybe_await", "await_if_needed", "maybe_awaitable", "ensure_awaited"})
OFFLOAD = {"run_sync": 0, "to_thread": 0, "run_in_threadpool": 0, "run_in_executor": 1}
DEADLINES = frozenset({
    "move_on_after", "move_on_at", "fail_after", "fail_at", "timeout", "timeout_at", "wait_for",
})
TASK_GROUPS = {"create_task_group": "anyio", "TaskGroup": "asyncio"}
SPAWNS = frozenset({"start_soon", "create_task", "ensure_future"})
STORES = frozenset({"append", "add", "extend", "insert"})
NOT_PREDICATES = frozenset({
    "isinstance", "issubclass", "hasattr", "callable", "getattr", "len", "bool", "type", "id",
    "str", "repr", "all", "any",
})
LOG_CALLS = frozenset({
    "exception", "error", "warning", "warn", "info", "debug", "critical", "log", "print",
    "print_exc",
})
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


def walk_body(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node below *nodes*, without entering nested functions, lambdas or classes."""
    stack: list[ast.AST] = [n for n in reversed(nodes) if not isinstance(n, FUNCS)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in child_nodes(node) if not isinstance(c, FUNCS))


def short(node: ast.AST, limit: int = 90) -> str:
    """Source of *node* on one line, cut at *limit* characters."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def statement_of(node: ast.AST, parents: dict) -> ast.AST:
    """The statement holding *node*."""
    while not isinstance(node, ast.stmt) and node in parents:
        node = parents[node]
    return node


def evidence_text(node: ast.AST, parents: dict) -> str:
    """The source line an observation is about: the simple statement, or a compound's header."""
    stmt = statement_of(node, parents)
    if isinstance(stmt, (ast.If, ast.While)):
        return f"{'if' if isinstance(stmt, ast.If) else 'while'} {short(stmt.test)}:"
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return f"for {short(stmt.target)} in {short(stmt.iter)}:"
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return f"with {', '.join(short(i.context_expr) for i in stmt.items)}:"
    if isinstance(stmt, ast.Try):
        return short(node)
    return short(stmt)


def guards(node: ast.AST, parents: dict) -> Iterator[tuple[ast.Try, ast.ExceptHandler]]:
    """The except clauses a failure of *node* reaches (with their try), innermost try first."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and any(child is s for s in parent.body):
            yield from ((parent, h) for h in parent.handlers)
        child, parent = parent, parents.get(parent)


def caught(handler: ast.ExceptHandler) -> str:
    return "BaseException" if handler.type is None else short(handler.type, 60)


def clause_actions(handler: ast.ExceptHandler) -> tuple[Action, ...]:
    """What an except clause does, in order: raise, raise_if, raise_new (of a class), log,
    collect (into a list), report (into a list of results, beside its handler), return, break,
    continue, assign, pass."""
    actions: list[Action] = []
    top = set(map(id, handler.body))
    exc = handler.name
    for node in walk_body(handler.body):
        if isinstance(node, ast.Raise):
            if node.exc is None:
                actions.append(Action("raise" if id(node) in top else "raise_if"))
            else:
                actions.append(Action("raise_new", last_name(node.exc) or short(node.exc, 30)))
        elif isinstance(node, ast.Break):
            actions.append(Action("break"))
        elif isinstance(node, ast.Continue):
            actions.append(Action("continue"))
        elif isinstance(node, ast.Return):
            actions.append(Action("return"))
        elif isinstance(node, ast.Call):
            name = last_name(node) or ""
            if name in LOG_CALLS:
                actions.append(Action("log"))
            elif name in STORES and isinstance(node.func, ast.Attribute) and exc and any(
                isinstance(a, ast.Name) and a.id == exc for a in node.args
            ):
                actions.append(Action("collect", short(node.func.value, 30)))
            elif name in STORES and isinstance(node.func, ast.Attribute) and exc and any(
                isinstance(a, (ast.Tuple, ast.List)) and any(
                    isinstance(e, ast.Name) and e.id == exc for e in a.elts) for a in node.args
            ):  # `responses.append((receiver, err))`: the error kept beside the results
                actions.append(Action("report", short(node.func.value, 30)))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            actions.append(Action("assign"))
        elif isinstance(node, ast.Pass):
            actions.append(Action("pass"))
    return tuple(dict.fromkeys(actions)) or (Action("pass"),)


def in_predicate_position(node: ast.AST, parents: dict) -> bool:
    """*node*'s value is tested: an if / while test, a comprehension filter, a loop's iterable
    (matching), or an argument of all() / any() / filter()."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and child is parent.test:
            return True
        if isinstance(parent, ast.comprehension) and child in parent.ifs:
            return True
        if isinstance(parent, (ast.For, ast.AsyncFor)) and child is parent.iter:
            return True
        if isinstance(parent, ast.Call) and last_name(parent) in ("all", "any", "filter"):
            return True
        if isinstance(parent, ast.stmt):
            return False
        child, parent = parent, parents.get(parent)
    return False


def loop_line(node: ast.AST, parents: dict) -> int:
    """Line of the innermost loop whose body (or comprehension element) holds *node*, or 0."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, (ast.For, ast.AsyncFor)) and child is not parent.iter:
            return parent.lineno
        if isinstance(parent, ast.While) and child is not parent.test:
            return parent.lineno
        if isinstance(parent, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            gens = parent.generators
            if child is not gens[0].iter and not any(child in g.ifs for g in gens):
                return parent.lineno
        child, parent = parent, parents.get(parent)
    return 0


def raised_alone(node: ast.Raise, parents: dict) -> bool:
    """The raise sits under ``if len(x) == 1:``."""
    child, parent = node, parents.get(node)
    while parent is not None and not isinstance(parent, FUNCS):
        if isinstance(parent, ast.If) and any(child is s for s in parent.body):
            test = parent.test
            if (isinstance(test, ast.Compare) and last_name(test.left) == "len"
                    and isinstance(test.comparators[0], ast.Constant)
                    and test.comparators[0].value == 1):
                return True
        child, parent = parent, parents.get(parent)
    return False


def iterable(loop: ast.AST) -> ast.expr:
    """What a loop goes over: a for's iterable, a comprehension's first, a while's test."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return loop.iter
    if isinstance(loop, ast.While):
        return loop.test
    assert isinstance(loop, COMPS)
    return loop.generators[0].iter


def local_aliases(nodes: list[ast.AST]) -> dict[str, str]:
    """Names imported under another name inside a function: ``gather as _gather``."""
    return {a.asname: a.name.rsplit(".", 1)[-1] for n in nodes
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names if a.asname}


def returns_exceptions(call: ast.Call) -> bool:
    """``gather(..., return_exceptions=True)``."""
    return any(k.arg == "return_exceptions" and isinstance(k.value, ast.Constant)
               and k.value.value is True for k in call.keywords)


def in_handler(node: ast.AST, parents: dict) -> bool:
    """*node* sits in an except clause."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.ExceptHandler):
            return True
    return False
