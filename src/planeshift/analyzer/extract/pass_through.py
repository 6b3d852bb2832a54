"""Assignments the scan reads as registrations that register nothing new: a handler copied from
the slot it already sits in (``new.f = self.f``, ``Model(f=self.f)``), a saved handler put back
(``prev = m.f`` ... ``finally: m.f = prev``), and a value that is not callable (``m.f = object()``
through a name). The scan flags them ``pass_through`` (no PS101 for them: the handler's own
registration carries it), and the registration codemod leaves them alone, with the reason:
wrapping them in a typed registration would change what they do (a restore in a ``finally``
that raises ``PolicyError`` masks the exception in flight).
"""

from __future__ import annotations

import ast

from .facts import Ref

_LITERALS = (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr)


def pass_through(slot: str, handler: str, resolved: bool, scope: str, tree: ast.Module) -> str:
    """Why assigning *handler* to *slot* (in the function *scope*, a qualname; "" for the
    module) is no registration, or "" when it may be one. A *resolved* handler (the scan found
    the function it is) is a registration whatever it is spelled like (``cb=self.cb`` handing
    on a method of the class)."""
    try:
        value = ast.parse(handler.strip(), mode="eval").body
    except SyntaxError:
        return ""
    if not resolved and _reads(value, slot):
        return f"copies the handler `{slot}` already holds ({handler}), not a new registration"
    scoped = _scope(tree, scope)
    return put_back(slot, value, resolved, scoped, tree)


def put_back(slot: str, value: ast.expr, resolved: bool, scope: ast.AST | None,
             module: ast.AST) -> str:
    """Why *value* (a name, assigned to *slot* in *scope*, a function node or None for the
    module) is a saved handler put back or a value that is not callable, or ""."""
    if not isinstance(value, ast.Name):
        return ""
    bindings = _bindings(value.id, scope) if scope is not None else []
    if bindings == []:  # not bound in the function: the module's name
        bindings = _bindings(value.id, module)
    if not bindings:
        return ""
    if not resolved and all(_reads(b, slot) for b in bindings):
        return (f"puts back the handler saved from `{slot}` ({value.id} = "
                f"{ast.unparse(bindings[0])}), not a new registration")
    if all(_not_callable(b) for b in bindings):
        return f"{value.id} is not callable ({value.id} = {ast.unparse(bindings[0])})"
    return ""


def copies(ref: Ref, slot: str) -> bool:
    """The scan's ref of a handler reads *slot* itself (``x.slot``, ``getattr(x, "slot")``)."""
    if ref[0] == "attr":
        return ref[2] == slot
    return (ref[0] == "call" and ref[1] == ("name", "getattr") and len(ref[2]) >= 2
            and ref[2][1] == ("str", slot))


def _reads(node: ast.expr, slot: str) -> bool:
    """``x.slot`` or ``getattr(x, "slot"[, default])``."""
    if isinstance(node, ast.Attribute):
        return node.attr == slot
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "getattr" and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and node.args[1].value == slot)


def _not_callable(node: ast.expr) -> bool:
    """A literal, or an instance of ``object`` (a sentinel)."""
    if isinstance(node, _LITERALS):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "object" and not node.args and not node.keywords)


def _scope(tree: ast.Module, qualname: str) -> ast.AST | None:
    node: ast.AST = tree
    for part in filter(None, qualname.split(".")):
        found = _definitions(node).get(part)
        if found is None:
            return None
        node = found
    return node if node is not tree else None


def _definitions(node: ast.AST) -> dict[str, ast.AST]:
    """The first definition (function or class) of each name among *node*'s children; built
    once per node (kept on it), not once per registration: a module's are asked about for
    each of its registrations."""
    cached = getattr(node, "_planeshift_definitions", None)
    if cached is None:
        cached = {}
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                cached.setdefault(child.name, child)
        node._planeshift_definitions = cached  # type: ignore[attr-defined]
    return cached  # type: ignore[no-any-return]


def _bindings(name: str, scope: ast.AST) -> list[ast.expr] | None:
    """The values *name* is assigned in *scope* (its own statements and blocks, not nested
    functions or classes); None when any binding is not a plain assignment (a parameter, a
    loop target, an augmented assignment, ``global``, an import)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = scope.args
        every = [*params.posonlyargs, *params.args, *params.kwonlyargs,
                 *filter(None, (params.vararg, params.kwarg))]
        if any(a.arg == name for a in every):
            return None
    values, other = _index(scope)
    return None if name in other else list(values.get(name, ()))


def _index(scope: ast.AST) -> tuple[dict[str, list[ast.expr]], set[str]]:
    """The values each name is assigned in *scope*'s own nodes (in their order), and the names
    bound otherwise; built once per scope (kept on the node), not once per registration: a
    module's scope is the whole module, asked about for each of its registrations."""
    cached = getattr(scope, "_planeshift_bindings", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    values: dict[str, list[ast.expr]] = {}
    other: set[str] = set()
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign):
            for name in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
                values.setdefault(name, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            values.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                               ast.NamedExpr, ast.Global, ast.Nonlocal, ast.Import,
                               ast.ImportFrom)):
            other |= _names_bound(node)
    scope._planeshift_bindings = (values, other)  # type: ignore[attr-defined]
    return values, other


def own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of *scope* (a module, function or class) that are its own: every node below
    it down to each nested function, class or lambda, which is listed with nothing of its
    own (not even its decorators or defaults)."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def _names_bound(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets: list[ast.AST] = []
    if isinstance(node, ast.AugAssign | ast.NamedExpr):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
