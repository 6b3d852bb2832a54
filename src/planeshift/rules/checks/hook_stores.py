"""What PS102 reads of one file: failure callbacks a class stores from its parameters, and the
places a failure bucket's key is used (the reads that may wire a keyed store)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .syntax import (
    DEFS,
    OWN_SKIP,
    all_nodes,
    called,
    dotted,
    functions,
    header_nodes,
    lines_of,
    self_path,
    statements,
    statements_on,
)

FAILURE = re.compile(r"error|failure|fail|exception", re.IGNORECASE)
HOOK_NAME = re.compile(r"^_*on_|(?:hooks?|callbacks?|handlers?|_cb|_fn)$")
KEY_WORD = re.compile(r"_*(?:on_)?([A-Za-z]+)")
# a string literal starting with a failure word: "error", f"error:{x}", 'on_failure'
MENTION = re.compile(r"""["'](?:on_)?(?:error|failure|fail|exception)s?(?=["':._{\- ])""")
ADDERS = ("append", "add", "insert", "extend", "appendleft")
GETTERS = ("get", "pop", "__getitem__")


@dataclass(frozen=True, slots=True)
class StoredHook:
    """A failure callback a method stores on ``self``: assigned, added to a container, or put
    under a key."""

    cls: str
    method: str
    param: str  # the parameter it comes from
    attr: str  # self.<attr>
    word: str  # the key's word ("error" for f"error:{tool}"), "" for the whole attribute
    line: int


@dataclass(frozen=True, slots=True)
class GuardedCall:
    """A call an ``if`` runs when its test holds."""

    callee: str
    line: int


@dataclass(frozen=True, slots=True)
class Mention:
    """A failure word used as a string in a function."""

    word: str
    role: str  # "key" (a key read of X.A), "compare", "arg" (a call argument)
    detail: str  # key: the attribute A; arg: the callee's name
    function: str
    line: int
    loads: tuple[str, ...]  # the attributes the function (and an "arg" callee) reads
    guarded: tuple[GuardedCall, ...]  # compare: the calls of the ``if`` it guards


def key_word(key: ast.AST | None) -> str:
    """The constant word a bucket key starts with ("error" for ``f"error:{tool}"``), or ""."""
    if isinstance(key, ast.JoinedStr) and key.values:
        key = key.values[0]
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        found = KEY_WORD.match(key.value)
        return found.group(1).lower() if found else ""
    return ""


def failure_params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters that are failure callbacks: named like one (``on_error``, ``failure_hook``),
    or a callable (annotated ``Callable`` or named like a hook) given to a failure method."""
    failing_method = bool(FAILURE.search(func.name))
    out = set()
    for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
        if not (failing_method or FAILURE.search(arg.arg)):
            continue  # (the cheap half of the test first: the annotation is walked for the few)
        if HOOK_NAME.search(arg.arg) or (arg.annotation is not None
                                         and _callable(arg.annotation)):
            out.add(arg.arg)
    return out - {"self", "cls"}


def _callable(annotation: ast.expr) -> bool:
    """``Callable[...]`` somewhere in an annotation (a string annotation included)."""
    for node in all_nodes(annotation):
        if (isinstance(node, ast.Name) and node.id == "Callable") or (
                isinstance(node, ast.Attribute) and node.attr == "Callable") or (
                isinstance(node, ast.Constant) and isinstance(node.value, str)
                and "Callable" in node.value):
            return True
    return False


def _holds(value: ast.AST | None, params: set[str]) -> str | None:
    """The parameter *value* is or holds (``p``, ``p or default``, ``x if c else p``, ``[p]``)."""
    if isinstance(value, ast.Name) and value.id in params:
        return value.id
    parts = (value.values if isinstance(value, ast.BoolOp)
             else [value.body, value.orelse] if isinstance(value, ast.IfExp)
             else value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [])
    return next((p for p in (_holds(v, params) for v in parts) if p), None)


def _container(expr: ast.AST) -> tuple[str, str] | None:
    """(attribute, key word) of ``self.A``, ``self.A[k]`` or ``self.A.setdefault(k, ...)``."""
    if isinstance(expr, ast.Subscript):
        attr = self_path(expr.value)
        return (attr, key_word(expr.slice)) if attr and "." not in attr else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and (
            expr.func.attr == "setdefault" and expr.args):
        attr = self_path(expr.func.value)
        return (attr, key_word(expr.args[0])) if attr and "." not in attr else None
    attr = self_path(expr)
    return (attr, "") if attr and "." not in attr else None


def stores(tree: ast.Module) -> list[StoredHook]:
    """Each failure callback a method stores on ``self``."""
    out = []
    methods = {}
    for stmt in statements(tree):
        if isinstance(stmt.node, DEFS) and stmt.cls and stmt.scope == stmt.cls:
            params = failure_params(stmt.node)
            if params:
                methods[f"{stmt.cls}.{stmt.node.name}"] = (stmt.cls, stmt.node.name, params)
    for stmt in statements(tree):
        if stmt.function not in methods:
            continue
        cls, method, params = methods[stmt.function]
        for target, value in _writes(stmt.node):
            param, where = _holds(value, params), _container(target)
            if param and where:
                out.append(StoredHook(cls, method, param, where[0], where[1], stmt.node.lineno))
    return out


def _writes(node: ast.stmt) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(container, value) of ``t = v`` and ``t.append(v)``-style statements."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield target, node.value
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in ADDERS and call.args:
            yield call.func.value, call.args[-1]


def mentions(tree: ast.Module, text: str, skip: set[int]) -> list[Mention]:
    """Each use of a failure word as a string in a function: a key read of ``X.A``, a
    comparison, or a call argument. Lines in *skip* (the stores) are left out."""
    found = [line for line in lines_of(MENTION, text) if line not in skip]
    if not found:
        return []
    lines = set(found)
    defs: dict[str, ast.AST] = dict(functions(tree))
    loads: dict[str, frozenset[str]] = {}
    out = []
    for stmt in statements_on(tree, found):
        if not stmt.function:
            continue
        for node, parent in header_nodes(stmt.node):
            word = key_word(node) if getattr(node, "lineno", 0) in lines else ""
            role = _role(node, parent, stmt.node) if word and FAILURE.fullmatch(word) else None
            if role is None:
                continue
            callee = role[1] if role[0] == "arg" else ""
            seen = _loads(defs, stmt.function, loads) | _loads_named(defs, callee, loads)
            guarded = _guarded_calls(stmt.node) if role[0] == "compare" else ()
            out.append(Mention(word, role[0], role[1], stmt.function, getattr(node, "lineno", 0),
                               tuple(sorted(seen)), guarded))
    return out


def _loads(defs: dict[str, ast.AST], qualname: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    if qualname not in memo:
        func = defs.get(qualname)
        memo[qualname] = frozenset(
            n.attr for n in all_nodes(func, OWN_SKIP) if type(n) is ast.Attribute
            and type(n.ctx) is ast.Load) if func is not None else frozenset()
    return memo[qualname]


def _loads_named(defs: dict[str, ast.AST], name: str, memo: dict) -> frozenset[str]:
    """What the file's functions called *name* load (a helper handed the key)."""
    if not name:
        return frozenset()
    return frozenset().union(*(_loads(defs, q, memo) for q in defs if q.rsplit(".", 1)[-1] == name))


def _role(node: ast.AST, parent: ast.AST | None, stmt: ast.stmt) -> tuple[str, str] | None:
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        parent = next((p for n, p in header_nodes(stmt) if n is parent), None)
    if isinstance(parent, ast.Compare):
        return "compare", ""
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        attr = parent.value.attr if isinstance(parent.value, ast.Attribute) else ""
        return ("key", attr) if attr else None
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        if isinstance(func, ast.Attribute) and func.attr in GETTERS and isinstance(
                func.value, ast.Attribute):
            return "key", func.value.attr
        name = dotted(func)
        return ("arg", name.rsplit(".", 1)[-1]) if name else None
    return None


def _guarded_calls(node: ast.stmt) -> tuple[GuardedCall, ...]:
    """The calls an ``if`` runs when its test holds (its body only)."""
    if not isinstance(node, ast.If):
        return ()
    out = []
    for stmt in node.body:
        value = getattr(stmt, "value", None)
        name = called(value) if value is not None else None
        if name:
            out.append(GuardedCall(name, stmt.lineno))
    return tuple(out)

