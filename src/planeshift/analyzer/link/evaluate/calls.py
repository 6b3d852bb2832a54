"""Calls: what calling a value returns (classes, functions, partials, getattr, cast, super)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...extract.facts import Ref
from ...extract.refs import render
from .values import PARTIALS, Value, Values, all_unknown, unknown

if TYPE_CHECKING:
    from .evaluation import Evaluation


class Calls:
    def __init__(self, evaluator: Evaluation) -> None:
        self.ev = evaluator

    def call(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        if ref[1] == ("name", "super") and not ref[2]:
            return self.super(module, scope)
        callee = self.ev.eval(ref[1], module, scope, depth)
        out: set[Value] = set()
        for value in callee:
            out |= self.call_result(value, ref, module, scope, depth)
        return frozenset(out)

    def super(self, module: str, scope: str) -> Values:
        """``super()`` inside a method: the enclosing class's bases, as instances."""
        parts = scope.split(".")
        while parts:
            cls = self.ev.index.enclosing_class(module, ".".join(parts))
            if cls is not None:
                return frozenset(("inst", base) for base in self.ev.classes.mro(cls)[1:]) or unknown(
                    "super() of a class without bases")
            parts.pop()
        return unknown("super() outside a method")

    def call_result(self, value: Value, ref: Ref, module: str, scope: str, depth: int) -> Values:
        kind = value[0]
        if kind == "cls":
            return frozenset({("inst", value[1])})
        if kind == "ext":
            name = value[1]
            if name in PARTIALS and ref[2]:
                inner = self.ev.eval(ref[2][0], module, scope, depth)
                return frozenset(("partial", v) for v in inner)
            if name == "builtins.getattr" and len(ref[2]) >= 2:
                if ref[2][1][0] == "str":
                    out: set[Value] = set()
                    for base in self.ev.eval(ref[2][0], module, scope, depth):
                        out |= self.ev.names.attribute(base, ref[2][1][1], depth)
                    return frozenset(out)
                return frozenset({("dyn", f"getattr with a computed name {render(ref[2][1])}")})
            if name in ("typing.cast", "typing_extensions.cast") and ref[2]:
                return self.ev.annotations.annotation(ref[2][0], module, scope, depth)
            if name in self.ev.known_classes:
                return frozenset({("inst", name)})
            if name in self.ev.factories:
                return frozenset({("inst", self.ev.factories[name])})
            return frozenset({("extcall", name)})
        if kind == "func":
            return self.returns(value[1], depth)
        if kind == "bound":
            qn = self.ev.classes.method(value[1], value[2])
            return self.returns(qn, depth) if qn else unknown(f"method {value[2]}")
        if kind in ("dyn", "unknown"):
            return frozenset({value})
        return unknown(f"call of {kind}")

    def returns(self, func_qn: str, depth: int) -> Values:
        """Values a call returns: the return annotation, else the returned expressions."""
        func = self.ev.index.functions.get(func_qn)
        if func is None:
            return unknown(f"no function {func_qn}")
        module, scope = self.ev.index.function_scope(func_qn)
        parent = scope.rsplit(".", 1)[0] if "." in scope else ""
        if func.returns is not None:
            typed = self.ev.annotations.annotation(func.returns, module, parent, depth + 1)
            if not all_unknown(typed):
                return typed
        out: set[Value] = set()
        for ref in func.return_values:
            out |= self.ev.eval(ref, module, scope, depth + 1)
        return frozenset(out) or unknown(f"{func.name}() returns nothing inferable")
