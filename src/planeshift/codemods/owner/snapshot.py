"""Whether a fan-out runs over a snapshot the method took, as the kernel does.

The kernel takes the entries it is handed as a list when the fan-out starts. A loop over
``list(self._handlers)``, a comprehension, or a local list the method (or a method of its class it
calls) builds, sees the same handlers whatever a handler does to the owner's storage meanwhile;
a loop over ``self._handlers`` itself does not, so it is refused with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from .idiom import Code, Refused

_COPIES = frozenset({"list", "tuple", "sorted"})


class Snapshots:
    def __init__(self, method: cst.FunctionDef, cls: cst.ClassDef, code: Code) -> None:
        self.method, self.cls, self.code = method, cls, code

    def require(self, expr: cst.BaseExpression, before: Sequence[cst.BaseStatement], where: str
                ) -> None:
        if not self._fresh(expr, self.method, set()):
            raise Refused(
                f"concurrency: {where} runs over `{self.code(expr).strip()}` as it is, not a "
                "snapshot: a handler that changes it during the emit changes what this emit runs, "
                "and the kernel runs over the list it is handed")

    def _fresh(self, expr: cst.BaseExpression, fn: cst.FunctionDef, seen: set[str]) -> bool:
        if isinstance(expr, (cst.ListComp, cst.List, cst.Tuple, cst.SetComp)):
            return True
        if isinstance(expr, cst.Subscript):  # x[:]
            return len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice) and \
                self.code(expr.slice[0].slice).strip() == ":"
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in _COPIES and len(expr.args) >= 1:
                return True
            if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not expr.args:
                return True
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                    func.value.value in ("self", "cls"):
                return self._fresh_method(func.attr.value, seen)
            return False
        if isinstance(expr, cst.Name):
            key = f"{fn.name.value}:{expr.value}"
            if key in seen:
                return True
            seen.add(key)
            values = _assigned(fn, expr.value)
            return bool(values) and all(v is not None and self._fresh(v, fn, seen) for v in values)
        return False

    def _fresh_method(self, name: str, seen: set[str]) -> bool:
        methods = [s for s in self.cls.body.body if isinstance(s, cst.FunctionDef)
                   and s.name.value == name]
        if len(methods) != 1 or f"method:{name}" in seen:
            return False
        seen.add(f"method:{name}")
        returns = [n for n in _own_nodes(methods[0]) if isinstance(n, cst.Return)]
        return bool(returns) and all(r.value is not None and self._fresh(r.value, methods[0], seen)
                                     for r in returns)


def _own_nodes(fn: cst.FunctionDef) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    todo: list[cst.CSTNode] = [fn.body]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(c for c in node.children
                    if not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))
    return out


def _assigned(fn: cst.FunctionDef, name: str) -> list[cst.BaseExpression | None]:
    """Every value *name* is bound to in *fn* (None for a binding that is not an assignment of a
    value: a parameter, a loop target, an augmented assignment, ...)."""
    values: list[cst.BaseExpression | None] = []
    params = fn.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(p.name.value == name for p in every):
        values.append(None)
    for node in _own_nodes(fn):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                values += _bound(target.target, node.value, name)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            values += _bound(node.target, node.value, name)
        elif isinstance(node, (cst.AugAssign, cst.For, cst.NamedExpr)) and \
                _binds(getattr(node, "target", None), name) or isinstance(node, cst.AsName) and _binds(node.name, name):
            values.append(None)
    return values


def _bound(target: cst.BaseExpression, value: cst.BaseExpression, name: str
           ) -> list[cst.BaseExpression | None]:
    if isinstance(target, cst.Name):
        return [value] if target.value == name else []
    if isinstance(target, (cst.Tuple, cst.List)):
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
            out: list[cst.BaseExpression | None] = []
            for t, v in zip(target.elements, value.elements):
                out += _bound(t.value, v.value, name)
            return out
        return [None] if _binds(target, name) else []
    return []


def _binds(target: cst.CSTNode | None, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(e.value, name) for e in target.elements)
    return False
