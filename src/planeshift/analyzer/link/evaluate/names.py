"""Names: lookups through scopes, imports, re-exports and lazy tables, and attributes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...extract.facts import Ref
from ...extract.refs import render
from .values import (
    BUILTIN_CONTAINERS,
    BUILTIN_NAMES,
    Value,
    Values,
    all_unknown,
    is_field_spec,
    unknown,
)

if TYPE_CHECKING:
    from .evaluation import Evaluation


class Names:
    def __init__(self, evaluator: Evaluation) -> None:
        self.ev = evaluator

    def lookup(self, name: str, module: str, scope: str, depth: int = 0) -> Values:
        index = self.ev.index
        for key in index.scope_chain(module, scope):
            refs = index.binding(key, name)
            if refs:
                out: set[Value] = set()
                for ref in refs:
                    out |= self.binding(ref, name, key[0], key[1], depth + 1)
                return frozenset(out)
        star = index.binding((module, ""), "*") or []
        for ref in star:
            target = ref[1]
            if target in index.modules:
                found = self.module_attr(target, name, depth + 1)
                if not all_unknown(found):
                    return found
        if name in BUILTIN_CONTAINERS:
            return frozenset({("cls", f"builtins.{name}")})
        if name in BUILTIN_NAMES:
            return frozenset({("ext", f"builtins.{name}")})
        return unknown(f"name {name!r} is not bound where it is used")

    def binding(self, ref: Ref, name: str, module: str, scope: str, depth: int) -> Values:
        kind = ref[0]
        if kind == "param":
            return self.param(ref, name, module, scope, depth)
        if kind == "import":
            if not ref[2]:
                bound = self._package_binds(ref[1])
                if bound is not None:
                    return self.module_attr(bound[0], bound[1], depth)
            return self.qualified(ref[1], depth, is_module=ref[2])
        if kind == "lazy":
            target = self.ev.index.resolve_module_target(module, ref[1])
            return self.qualified(f"{target}.{ref[2]}" if ref[2] else target, depth)
        if kind == "def":
            qn = f"{module}.{ref[1]}"
            func = self.ev.index.functions.get(qn)
            if func is not None and func.kind == "property":
                return self.ev.calls.returns(qn, depth)
            return frozenset({("func", qn)})
        if kind == "class":
            return frozenset({("cls", f"{module}.{ref[1]}")})
        if kind == "iter":
            return frozenset({("dyn", self.ev.literals.loop_reason(ref[1], None, module, scope))})
        if kind == "annot":
            if ref[1] is not None:
                typed = self.ev.annotations.annotation(ref[1], module, scope, depth)
                if not all_unknown(typed) or ref[2] is None or is_field_spec(ref[2]):
                    return typed
            return self.ev.eval(ref[2], module, scope, depth)
        if kind == "unpack":
            inner = ref[1]
            if inner[0] == "seq" and ref[2] < len(inner[2]):
                return self.ev.eval(inner[2][ref[2]], module, scope, depth)
            if inner[0] == "iter":
                return frozenset({("dyn", self.ev.literals.loop_reason(inner[1], ref[2], module, scope))})
            return frozenset({("dyn", f"unpacked from {render(inner)}")})
        if kind == "other":
            return unknown(f"{name} bound by {ref[1]}")
        return self.ev.eval(ref, module, scope, depth)

    def param(self, ref: Ref, name: str, module: str, scope: str, depth: int) -> Values:
        _, pkind, annotation, default = ref
        owner = self.ev.index.enclosing_class(module, scope)
        if pkind == "self" and owner:
            return frozenset({("inst", owner)})
        if pkind == "cls" and owner:
            return frozenset({("cls", owner)})
        if pkind in ("vararg", "kwarg"):
            return frozenset({("dyn", f"*{name} parameter")})
        parent = scope.rsplit(".", 1)[0] if "." in scope else ""
        if annotation is not None:
            typed = self.ev.annotations.annotation(annotation, module, parent, depth)
            if not all_unknown(typed):
                return typed
        if default is not None and default != ("const", "None"):
            return self.ev.eval(default, module, parent, depth)
        return unknown(f"untyped parameter {name!r}")

    def qualified(self, qualname: str, depth: int = 0, is_module: bool = False) -> Values:
        """What a fully qualified dotted name refers to, following re-exports."""
        if qualname in self.ev.index.modules:
            return frozenset({("mod", qualname)})
        split = self.ev.index.split_module(qualname)
        if split is None:
            return frozenset({("mod", qualname)}) if is_module else frozenset({("ext", qualname)})
        module, rest = split
        values: Values = frozenset({("mod", module)})
        for attr in rest:
            out: set[Value] = set()
            for value in values:
                out |= self.attribute(value, attr, depth + 1)
            values = frozenset(out)
        return values

    def _package_binds(self, target: str) -> tuple[str, str] | None:
        """``from pkg import name`` where ``pkg/__init__`` binds ``name`` itself and a submodule
        ``pkg/name.py`` exists too: the import is the package's attribute, which its ``__init__``
        set (Pelican's ``from pelican import signals`` is ``pelican.plugins.signals``, not the
        ``pelican/signals.py`` stub). (package, name), or None when the submodule is the answer."""
        package, _, name = target.rpartition(".")
        index = self.ev.index
        if not package or target not in index.modules or package not in index.modules:
            return None
        bound = index.binding((package, ""), name)
        if not bound or any(ref == ("import", target, False) for ref in bound):
            return None  # (`from . import name` in the package itself: the submodule)
        return package, name

    def module_attr(self, module: str, name: str, depth: int) -> Values:
        submodule = f"{module}.{name}"
        if self.ev.index.binding((module, ""), name):
            return self.lookup(name, module, "", depth + 1)
        if submodule in self.ev.index.modules:
            return frozenset({("mod", submodule)})
        star = self.ev.index.binding((module, ""), "*")
        if star:
            return self.lookup(name, module, "", depth + 1)
        return unknown(f"{module} has no name {name!r}")

    def attribute(self, value: Value, name: str, depth: int) -> Values:
        kind = value[0]
        if kind == "mod":
            if value[1] in self.ev.index.modules:
                return self.module_attr(value[1], name, depth)
            return frozenset({("ext", f"{value[1]}.{name}")})
        if kind == "cls":
            return self.ev.classes.class_attr(value[1], name, depth, instance=False)
        if kind == "inst":
            return self.ev.classes.class_attr(value[1], name, depth, instance=True)
        if kind == "ext":
            return frozenset({("ext", f"{value[1]}.{name}")})
        if kind in ("dyn", "unknown"):
            return frozenset({value})
        if kind == "extcall" and f"{value[1]}.{name}" in self.ev.factories:
            # a pack's factory method of an external class (blinker's `Namespace().signal`)
            return frozenset({("ext", f"{value[1]}.{name}")})
        return unknown(f"attribute {name!r} of {kind}")
