"""Roles of the names in a function on a dispatch path: handlers, registry entries, errors.

A name holds a handler (or an entry carrying one) when it is a loop variable, a parameter, or
bound from one (``_t, preds, handler = entry``; ``cb := ref()``), or fetched from a ``self``
attribute (``h = self._hooks.get(key)``). It holds collected errors when an except clause
appends the exception to it, or it is gathered with ``return_exceptions=True``. Each carries a
*root*, an :class:`~.observations.Origin`: where the value came from (made here, a parameter, an
attribute of the dispatcher).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from .loop_shapes import HANDLER_ATTRS, STORES, short
from .observations import LOCAL, Origin, Raise
from .sites import last_name

Node = ast.FunctionDef | ast.AsyncFunctionDef
_COMPS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
_COPIES = frozenset({"list", "tuple", "sorted", "reversed", "iter", "dict", "set"})


class FileScope:
    """The functions of one file a dispatch path may call, by qualname."""

    def __init__(self, functions: dict[str, Node], classes: frozenset[str]) -> None:
        self.functions, self.classes = functions, classes
        self._methods: dict[str, frozenset[str]] = {}

    def own_class(self, qualname: str) -> str | None:
        """The class whose method *qualname* is (or is nested in)."""
        parts = qualname.split(".")[:-1]
        while parts:
            if ".".join(parts) in self.classes:
                return ".".join(parts)
            parts.pop()
        return None

    def methods(self, qualname: str) -> frozenset[str]:
        cls = self.own_class(qualname) or ""
        if cls not in self._methods:
            self._methods[cls] = frozenset(
                q.rpartition(".")[2] for q in self.functions if q.rpartition(".")[0] == cls)
        return self._methods[cls]

    def params(self, qualname: str) -> tuple[list[str], list[str]]:
        """(positional parameter names a caller fills, keyword-only names); self/cls dropped."""
        node = self.functions[qualname]
        pos = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        decorators = {last_name(d) for d in node.decorator_list}
        if qualname.rpartition(".")[0] in self.classes and "staticmethod" not in decorators:
            pos = pos[1:]
        return pos, [a.arg for a in node.args.kwonlyargs]

    def resolve(self, func: ast.expr, qualname: str) -> str | None:
        """The same-file function a call of *func* from *qualname* runs, or None."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id not in ("self", "cls"):
                return None
            cls = self.own_class(qualname)
            target = f"{cls}.{func.attr}" if cls else ""
            return target if target in self.functions else None
        if not isinstance(func, ast.Name):
            return None
        parts = qualname.split(".")
        while parts:
            scope = ".".join(parts)
            target = f"{scope}.{func.id}"
            if scope not in self.classes and target in self.functions:
                return target
            parts.pop()
        return func.id if func.id in self.functions else None


class Roles:
    """Handler, origin and error roles of one function body's names, bound in source order."""

    def __init__(self, nodes: list[ast.AST], parents: dict, params: tuple[list[str], list[str]]):
        self.parents = parents
        names = [*params[0], *params[1]]
        self.handlers: dict[str, Origin] = {p: Origin(param=p) for p in names}  # name -> root
        self.origins: dict[str, Origin] = dict(self.handlers)  # where an entry was taken from
        self.via: dict[str, str] = {}  # name -> the helper it was fetched through
        self.errors: dict[str, Origin] = dict(self.handlers)
        self.error_items: dict[str, Origin] = {}
        self.results: set[str] = set()
        self.calls: dict[str, ast.Call] = {}  # name -> the call it was last bound to
        for node in nodes:
            if isinstance(node, ast.ExceptHandler) and node.name:
                self._collected(node)
        binders = [n for n in nodes if isinstance(
            n, (ast.For, ast.AsyncFor, ast.Assign, ast.AnnAssign, ast.NamedExpr, *_COMPS))]
        for node in sorted(binders, key=lambda n: (n.lineno, n.col_offset)):
            self._bind(node)

    # -- binding ----------------------------------------------------------------------------
    def _collected(self, handler: ast.ExceptHandler) -> None:
        for node in ast.walk(ast.Module(body=handler.body, type_ignores=[])):
            if not (isinstance(node, ast.Call) and last_name(node) in STORES):
                continue
            target = node.func.value if isinstance(node.func, ast.Attribute) else None
            if isinstance(target, ast.Name) and any(
                    isinstance(a, ast.Name) and a.id == handler.name for a in node.args):
                self.errors.setdefault(target.id, LOCAL)

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._loop_target(node.target, node.iter)
        elif isinstance(node, _COMPS):
            for gen in node.generators:
                self._loop_target(gen.target, gen.iter)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if value is not None:
                for target in targets:
                    self._assign(target, value)

    def _loop_target(self, target: ast.expr, iterable: ast.expr) -> None:
        origin = self.origin(iterable) or LOCAL
        error = self._errors_root(iterable)
        for name in _names(target):
            self.handlers[name], self.origins[name] = LOCAL, origin
            if error is not None:
                self.error_items[name] = error

    def _assign(self, target: ast.expr, value: ast.expr) -> None:
        names = _names(target)
        source = self._item_source(value)
        if isinstance(value, ast.Call):
            self.calls.update((n, value) for n in names)
        for name in names:
            if source is not None:
                self.handlers[name], self.origins[name], via = source
                if via:
                    self.via[name] = via
            elif _gathers_exceptions(value):
                self.results.add(name)
            elif isinstance(value, _COMPS) and (
                    root := self._errors_root(value.generators[0].iter)) is not None:
                self.errors[name] = root
            else:
                items = [n.id for n in ast.walk(value)
                         if isinstance(n, ast.Name) and n.id in self.error_items]
                if items:  # `refusal = refusal_in(error)`: still one of the collected errors
                    self.error_items[name] = self.error_items[items[0]]

    def _item_source(self, value: ast.expr) -> tuple[Origin, Origin, str] | None:
        """(handler root, origin, helper) when *value* is an entry or a handler, else None."""
        if isinstance(value, ast.Name) and value.id in self.handlers:
            return None if value.id in self.results else self._of(value.id)
        if isinstance(value, (ast.Attribute, ast.Subscript)):
            base = _base(value)
            if isinstance(base, ast.Name) and base.id in self.handlers:
                return self._of(base.id)
            slot = _self_attr(value)
            return (Origin(attr=slot), Origin(attr=slot), "") if slot else None
        if isinstance(value, ast.Call):
            name = last_name(value) or ""
            if not value.args and not value.keywords and isinstance(value.func, ast.Name):
                return self._item_source(value.func)  # `cb := ref()` dereferences an entry
            if name in _COPIES and value.args:
                return self._item_source(value.args[0])
            if name == "get" and isinstance(value.func, ast.Attribute):
                return self._item_source(value.func.value)
            for arg in value.args:
                slot = _self_attr(arg)
                if slot:
                    return Origin(attr=slot), Origin(attr=slot), name
        return None

    def _of(self, name: str) -> tuple[Origin, Origin, str]:
        return self.handlers[name], self.origins.get(name, LOCAL), self.via.get(name, "")

    # -- questions --------------------------------------------------------------------------
    def origin(self, expr: ast.expr) -> Origin | None:
        base = _base(expr.args[0] if isinstance(expr, ast.Call) and last_name(expr) in _COPIES
                     and expr.args else expr)
        if isinstance(base, ast.Name) and base.id in self.origins:
            return self.origins[base.id]
        return None

    def _errors_root(self, expr: ast.expr) -> Origin | None:
        base = _base(expr)
        if isinstance(base, ast.Name):
            if base.id in self.results:
                return LOCAL
            if base.id in self.errors:
                return self.errors[base.id]
        return None

    def handler_root(self, expr: ast.expr) -> Origin | None:
        """Root of the handler *expr* names: ``cb``, ``reg.handler``."""
        if isinstance(expr, ast.Name):
            return self.handlers.get(expr.id)
        if not isinstance(expr, ast.Attribute):
            return None
        base = expr.value
        if isinstance(base, ast.Name) and base.id in self.handlers:
            root = self.handlers[base.id]
            if root.attr:  # an entry of a dispatcher attribute: its slot decides
                return replace(root, attr=f"{root.attr}.{expr.attr}")
            return root if _handler_attr(expr.attr) else None
        return None

    def callee_root(self, func: ast.expr, methods: frozenset[str]) -> Origin | None:
        """Root of the handler a call of *func* invokes; ``self.<slot>(...)`` for an attribute
        that is not a method of the class."""
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls")):
            return None if func.attr in methods else Origin(attr=func.attr)
        return self.handler_root(func)

    def is_deref(self, call: ast.Call) -> bool:
        """``cb := ref()``: a weak reference read, not a handler run."""
        parent = self.parents.get(call)
        return (not call.args and not call.keywords
                and isinstance(parent, (ast.NamedExpr, ast.Assign)))

    def involved_origin(self, call: ast.Call) -> Origin | None:
        """The origin of an entry the call tests (its callee or an argument), or None."""
        for expr in (call.func, *call.args):
            base = _base(expr)
            if isinstance(base, ast.Name) and self.is_entry(base):
                return self.origins[base.id]
        return None

    def is_entry(self, expr: ast.expr) -> bool:
        """*expr* is (part of) a registration entry: ``r`` of ``r.matches(e)``."""
        base = _base(expr)
        return (isinstance(base, ast.Name) and base.id in self.origins
                and base.id not in ("self", "cls"))

    def via_of(self, call: ast.Call) -> str:
        base = _base(call.func)
        if isinstance(base, ast.Name):
            return self.via.get(base.id, "")
        return ""

    def roles_of(self, value: ast.expr) -> list[tuple[str, Origin]]:
        """What an argument passes on: ("item", root) and / or ("errors", root)."""
        out: list[tuple[str, Origin]] = []
        base = _base(value)
        if isinstance(base, ast.Name):
            if base.id in self.handlers and base.id not in self.results:
                out.append(("item", self.handlers[base.id]))
            if base.id in self.results:
                out.append(("errors", LOCAL))
            elif base.id in self.errors:
                out.append(("errors", self.errors[base.id]))
        return out

    def raised(self, node: ast.Raise) -> tuple[Raise | None, Origin]:
        """(what is raised: a group, one error, a cancellation translated; the errors' root) of a
        raise outside except clauses."""
        exc = node.exc
        call = exc if isinstance(exc, ast.Call) else (
            self.calls.get(exc.id) if isinstance(exc, ast.Name) else None)
        if call is not None:
            name = last_name(call) or ""
            if name.endswith("ExceptionGroup"):
                roots = [r for a in call.args for role, r in self.roles_of(a) if role == "errors"]
                return Raise("group"), roots[0] if roots else LOCAL
            if "cancel" in name.lower():
                return Raise("translate", raised=name), LOCAL
        if isinstance(exc, ast.Subscript):
            root = self._errors_root(exc.value)
            return (Raise("one"), root) if root is not None else (None, LOCAL)
        if isinstance(exc, ast.Name) and exc.id in self.error_items:
            return Raise("one"), self.error_items[exc.id]
        return None, LOCAL


def _names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _base(expr: ast.expr) -> ast.expr:
    """The innermost value of an attribute / subscript / starred chain: ``entry`` of
    ``entry[2].x``."""
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred)):
        expr = expr.value
    return expr


def _self_attr(expr: ast.expr) -> str | None:
    """``A`` of ``self.A``, ``self.A[k]``, ``cls.A``."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value
    if (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and expr.value.id in ("self", "cls")):
        return expr.attr
    return None


def _handler_attr(attr: str) -> bool:
    return attr in HANDLER_ATTRS or attr.startswith("on_")


def _gathers_exceptions(value: ast.expr) -> bool:
    call = value.value if isinstance(value, ast.Await) else value
    if not (isinstance(call, ast.Call) and (last_name(call) or "").lstrip("_").endswith("gather")):
        return False
    return any(k.arg == "return_exceptions" and isinstance(k.value, ast.Constant)
               and k.value.value is True for k in call.keywords)


__all__ = ["FileScope", "Roles", "short"]
