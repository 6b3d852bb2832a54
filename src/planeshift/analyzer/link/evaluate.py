"""Lightweight, demand-driven value inference over refs: what could this expression be?

A value is a small tuple::

    ("inst", cls)          an instance of a class (project qualname or external dotted name)
    ("cls", cls)           the class object itself        ("mod", module)
    ("func", qualname)     a function or unbound method   ("bound", cls, method)
    ("member", cls, name)  a class constant such as an enum member
    ("ext", dotted)        an external name we cannot look inside
    ("extcall", dotted)    the result of calling an external name that is not a known class
    ("str", text)          ("const", repr)
    ("lambda", module, scope, body, params)               ("partial", inner-value)
    ("dyn", reason)        decided at run time: a loop variable, getattr, a subscript
    ("unknown", reason)    not inferable statically: an untyped parameter, a missing module

This replaces LibCST's scope metadata, which costs ten times the parse on a large tree; it is
deliberately shallow (a bounded depth, no flow sensitivity) and says so when it gives up.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from ..extract.facts import Function, Ref
from .index import ProjectIndex
from ..extract.refs import parse_annotation, render

Value = tuple
Values = frozenset
MAX_DEPTH = 14
BUILTIN_CONTAINERS = {"list", "dict", "set", "tuple", "frozenset"}
PARTIALS = {"functools.partial", "functools.partialmethod"}
BUILTIN_NAMES = frozenset(dir(builtins))
FIELD_SPECS = {"Field", "PrivateAttr", "field", "attrib", "ib", "Attribute"}
WRAPPER_TYPES = {  # X[T] means "a T" for inference
    "typing.Optional", "typing.Annotated", "typing_extensions.Annotated",
    "pydantic.json_schema.SkipJsonSchema",
}
OPAQUE_TYPES = {"typing.Any", "typing_extensions.Any", "builtins.object", "typing.Callable",
                "collections.abc.Callable"}


def unknown(reason: str) -> Values:
    return frozenset({("unknown", reason)})


class Evaluator:
    """Evaluates refs in a scope of the project index; results are memoised per (ref, scope)."""

    def __init__(self, index: ProjectIndex, known_classes: Iterable[str] = ()) -> None:
        self.index = index
        self.known_classes = set(known_classes)  # external names that are classes (packs)
        self.factories: dict[str, str] = {}  # external factory -> class it returns
        # memoised results keep what they read (index.deps), so a frame that reuses one
        # records the same entries as the frame that computed it
        self._memo: dict[tuple, tuple[Values, frozenset]] = {}
        self._active: set[tuple] = set()
        self._cutoffs = 0  # results cut short by the cycle guard or the depth limit so far
        self._mro: dict[str, tuple[tuple[str, ...], frozenset]] = {}

    # -- entry points -------------------------------------------------------------------------
    def eval(self, ref: Ref, module: str, scope: str, depth: int = 0) -> Values:
        key = (ref, module, scope)
        deps = self.index.deps
        if key in self._memo:
            result, read = self._memo[key]
            deps.add(read)
            return result
        if key in self._active or depth > MAX_DEPTH:
            self._cutoffs += 1
            return unknown("recursive or too deep")
        self._active.add(key)
        deps.push()
        cutoffs = self._cutoffs
        try:
            result = self._eval(ref, module, scope, depth + 1)
        finally:
            self._active.discard(key)
            read = deps.pop()
        if self._cutoffs == cutoffs:
            # a result cut short by a cycle or the depth limit depends on where the evaluation
            # entered, so it is not memoised: results never depend on evaluation order, which
            # an incremental link (evaluating fewer units, in another order) relies on
            self._memo[key] = (result, read)
        return result

    def lookup(self, name: str, module: str, scope: str, depth: int = 0) -> Values:
        index = self.index
        for key in index.scope_chain(module, scope):
            refs = index.binding(key, name)
            if refs:
                out: set[Value] = set()
                for ref in refs:
                    out |= self._binding(ref, name, key[0], key[1], depth + 1)
                return frozenset(out)
        star = index.binding((module, ""), "*") or []
        for ref in star:
            target = ref[1]
            if target in index.modules:
                found = self.module_attr(target, name, depth + 1)
                if not _all_unknown(found):
                    return found
        if name in BUILTIN_CONTAINERS:
            return frozenset({("cls", f"builtins.{name}")})
        if name in BUILTIN_NAMES:
            return frozenset({("ext", f"builtins.{name}")})
        return unknown(f"name {name!r} is not bound where it is used")

    # -- forms --------------------------------------------------------------------------------
    def _eval(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        kind = ref[0]
        if kind == "name":
            return self.lookup(ref[1], module, scope, depth)
        if kind == "attr":
            out: set[Value] = set()
            for base in self.eval(ref[1], module, scope, depth):
                out |= self.attribute(base, ref[2], depth)
            return frozenset(out)
        if kind == "call":
            return self._call(ref, module, scope, depth)
        if kind == "str":
            return frozenset({("str", ref[1])})
        if kind == "const":
            return frozenset({("const", ref[1])})
        if kind == "lambda":
            return frozenset({("lambda", module, scope, ref[1], ref[2])})
        if kind == "await":
            return self.eval(ref[1], module, scope, depth)
        if kind == "either":
            out = set()
            for part in ref[1]:
                out |= self.eval(part, module, scope, depth)
            return frozenset(v for v in out if v != ("const", "None")) or frozenset(out)
        if kind == "sub":
            return frozenset({("dyn", f"subscript {render(ref)}")})
        if kind == "seq":
            return frozenset({("inst", f"builtins.{ref[1]}")})
        if kind == "dict":
            return frozenset({("inst", "builtins.dict")})
        return unknown(f"expression {render(ref)}")

    def _binding(self, ref: Ref, name: str, module: str, scope: str, depth: int) -> Values:
        kind = ref[0]
        if kind == "param":
            return self._param(ref, name, module, scope, depth)
        if kind == "import":
            return self.qualified(ref[1], depth, is_module=ref[2])
        if kind == "lazy":
            target = self.index.resolve_module_target(module, ref[1])
            return self.qualified(f"{target}.{ref[2]}" if ref[2] else target, depth)
        if kind == "def":
            qn = f"{module}.{ref[1]}"
            func = self.index.functions.get(qn)
            if func is not None and func.kind == "property":
                return self.returns(qn, depth)
            return frozenset({("func", qn)})
        if kind == "class":
            return frozenset({("cls", f"{module}.{ref[1]}")})
        if kind == "iter":
            return frozenset({("dyn", self._loop_reason(ref[1], None, module, scope))})
        if kind == "annot":
            if ref[1] is not None:
                typed = self.annotation(ref[1], module, scope, depth)
                if not _all_unknown(typed) or ref[2] is None or _is_field_spec(ref[2]):
                    return typed
            return self.eval(ref[2], module, scope, depth)
        if kind == "unpack":
            inner = ref[1]
            if inner[0] == "seq" and ref[2] < len(inner[2]):
                return self.eval(inner[2][ref[2]], module, scope, depth)
            if inner[0] == "iter":
                return frozenset({("dyn", self._loop_reason(inner[1], ref[2], module, scope))})
            return frozenset({("dyn", f"unpacked from {render(inner)}")})
        if kind == "other":
            return unknown(f"{name} bound by {ref[1]}")
        return self.eval(ref, module, scope, depth)

    def _loop_reason(self, iterable: Ref, index: int | None, module: str, scope: str) -> str:
        """"loop variable over X", naming the table's entries when X is a literal collection."""
        reason = f"loop variable over {render(iterable)}"
        items = self.table(iterable, module, scope, index)
        if items:
            shown = ", ".join(render(r) for r in items[:8]) + (", ..." if len(items) > 8 else "")
            reason += f"; the table holds {shown}"
        return reason

    def table(self, ref: Ref, module: str, scope: str, index: int | None = None,
              depth: int = 0) -> list[Ref] | None:
        """The entries of a literal collection a loop iterates: a list, a tuple, a dict's keys
        (or, unpacking ``.items()``, its keys or values), also through a name bound to one."""
        if depth > 4:
            return None
        if ref[0] == "seq":
            items = list(ref[2])
            if index is not None:
                items = [i[2][index] for i in items if i[0] == "seq" and index < len(i[2])]
            return items
        if ref[0] == "dict":
            return [k for k, _ in ref[1]]
        if ref[0] == "call" and ref[1][0] == "attr" and ref[1][2] in ("items", "keys", "values"):
            inner = self.table(("dictview",) + ref[1][1:2], module, scope, None, depth + 1)
            return inner and self._dict_part(ref[1][2], index, inner)
        if ref[0] == "dictview":
            return self._literal(ref[1], module, scope, depth)
        if ref[0] == "name":
            bound = self._literal(ref, module, scope, depth)
            return self.table(bound, module, scope, index, depth + 1) if bound else None
        return None

    def _literal(self, ref: Ref, module: str, scope: str, depth: int):
        """The literal a name is bound to (once), or None."""
        if ref[0] == "dict":
            return ref
        if ref[0] != "name":
            return None
        for key in self.index.scope_chain(module, scope):
            refs = self.index.binding(key, ref[1])
            if refs:
                if len(refs) != 1:
                    return None
                bound = refs[0][2] if refs[0][0] == "annot" else refs[0]
                return bound if bound is not None and bound[0] in ("seq", "dict") else None
        return None

    @staticmethod
    def _dict_part(view: str, index: int | None, pairs) -> list[Ref] | None:
        if pairs[0] != "dict":
            return None
        if view == "values" or (view == "items" and index == 1):
            return [v for _, v in pairs[1]]
        return [k for k, _ in pairs[1]]

    def _param(self, ref: Ref, name: str, module: str, scope: str, depth: int) -> Values:
        _, pkind, annotation, default = ref
        owner = self.index.enclosing_class(module, scope)
        if pkind == "self" and owner:
            return frozenset({("inst", owner)})
        if pkind == "cls" and owner:
            return frozenset({("cls", owner)})
        if pkind in ("vararg", "kwarg"):
            return frozenset({("dyn", f"*{name} parameter")})
        parent = scope.rsplit(".", 1)[0] if "." in scope else ""
        if annotation is not None:
            typed = self.annotation(annotation, module, parent, depth)
            if not _all_unknown(typed):
                return typed
        if default is not None and default != ("const", "None"):
            return self.eval(default, module, parent, depth)
        return unknown(f"untyped parameter {name!r}")

    def annotation(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        """Instances an annotation admits: ``HookBus``, ``HookBus | None``, ``Optional[HookBus]``."""
        kind = ref[0]
        if kind == "str":  # a forward reference nested in a subscript: Optional["HookBus"]
            return self.annotation(parse_annotation(ref[1]), module, scope, depth)
        if kind == "either":
            out: set[Value] = set()
            for part in ref[1]:
                out |= self.annotation(part, module, scope, depth)
            return frozenset(v for v in out if v[0] != "none") or unknown("annotation is None")
        if kind == "const" and ref[1] == "None":
            return frozenset({("none",)})
        if kind == "sub":
            head = self.eval(ref[1], module, scope, depth)
            names = {v[1] for v in head if v[0] in ("ext", "cls")}
            if names & WRAPPER_TYPES:
                inner = ref[2][2][0] if ref[2][0] == "seq" else ref[2]
                return self.annotation(inner, module, scope, depth)
            if names & {"typing.Union"} and ref[2][0] == "seq":
                return self.annotation(("either", ref[2][2]), module, scope, depth)
            if names & {"typing.ClassVar", "typing.Final", "typing_extensions.Final"}:
                return self.annotation(ref[2], module, scope, depth)
            if names & {"builtins.type", "typing.Type"}:
                inner = self.annotation(ref[2], module, scope, depth)
                return frozenset(("cls", v[1]) if v[0] == "inst" else v for v in inner)
            names -= OPAQUE_TYPES
            return frozenset({("inst", n) for n in names}) or unknown("generic annotation")
        if kind in ("name", "attr"):
            out = set()
            for value in self.eval(ref, module, scope, depth):
                if value[0] in ("cls", "ext") and value[1] in OPAQUE_TYPES:
                    out.add(("unknown", f"annotated {value[1].rsplit('.', 1)[-1]}"))
                elif value[0] == "cls":
                    out.add(("inst", value[1]))
                elif value[0] == "ext":
                    out.add(("inst", value[1]))
                else:
                    out.add(("unknown", f"annotation {render(ref)}"))
            return frozenset(out)
        return unknown(f"annotation {render(ref)}")

    # -- attributes ---------------------------------------------------------------------------
    def qualified(self, qualname: str, depth: int = 0, is_module: bool = False) -> Values:
        """What a fully qualified dotted name refers to, following re-exports."""
        if qualname in self.index.modules:
            return frozenset({("mod", qualname)})
        split = self.index.split_module(qualname)
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

    def module_attr(self, module: str, name: str, depth: int) -> Values:
        submodule = f"{module}.{name}"
        if self.index.binding((module, ""), name):
            return self.lookup(name, module, "", depth + 1)
        if submodule in self.index.modules:
            return frozenset({("mod", submodule)})
        star = self.index.binding((module, ""), "*")
        if star:
            return self.lookup(name, module, "", depth + 1)
        return unknown(f"{module} has no name {name!r}")

    def attribute(self, value: Value, name: str, depth: int) -> Values:
        kind = value[0]
        if kind == "mod":
            if value[1] in self.index.modules:
                return self.module_attr(value[1], name, depth)
            return frozenset({("ext", f"{value[1]}.{name}")})
        if kind == "cls":
            return self._class_attr(value[1], name, depth, instance=False)
        if kind == "inst":
            return self._class_attr(value[1], name, depth, instance=True)
        if kind == "ext":
            return frozenset({("ext", f"{value[1]}.{name}")})
        if kind in ("dyn", "unknown"):
            return frozenset({value})
        return unknown(f"attribute {name!r} of {kind}")

    def mro(self, cls: str) -> tuple[str, ...]:
        """The class and its ancestors, depth-first in base order (good enough for lookups)."""
        deps = self.index.deps
        if cls in self._mro:
            order, read = self._mro[cls]
            deps.add(read)
            return order
        self._mro[cls] = ((cls,), frozenset())  # guards cycles
        deps.push()
        try:
            found = [cls]
            facts = self.index.class_bases(cls)
            if facts is not None:
                qualname, bases = facts
                module = self.index.class_module[cls]
                outer = qualname.rsplit(".", 1)[0] if "." in qualname else ""
                for base in bases:
                    for value in self.eval(base, module, outer):
                        if value[0] in ("cls", "ext"):
                            found.extend(c for c in self.mro(value[1]) if c not in found)
        finally:
            read = deps.pop()
        order = tuple(found)
        self._mro[cls] = (order, read)
        return order

    def _class_attr(self, cls: str, name: str, depth: int, instance: bool) -> Values:
        for klass in self.mro(cls):
            facts = self.index.classes.get(klass)
            if facts is None:
                continue
            module = self.index.class_module[klass]
            if name in dict(facts.enum_members) and not instance:
                return frozenset({("member", klass, name)})
            refs = self.index.binding((module, facts.qualname), name)
            if refs:
                return self._class_binding(klass, module, facts.qualname, name, refs, depth, instance)
            if instance:
                stores = self._self_stores(klass, name, depth)
                if stores:
                    return stores
        if cls in self.index.classes:
            return unknown(f"{cls.rsplit('.', 1)[-1]} has no attribute {name!r}")
        return frozenset({("ext", f"{cls}.{name}")}) if not instance else unknown(
            f"attribute {name!r} of external {cls}"
        )

    def _class_binding(self, klass, module, qualname, name, refs, depth, instance) -> Values:
        out: set[Value] = set()
        for ref in refs:
            if ref[0] == "def":
                qn = f"{module}.{ref[1]}"
                func = self.index.functions.get(qn)
                if func is not None and func.kind == "property" and instance:
                    out |= self.returns(qn, depth)
                elif instance and func is not None and func.kind not in ("staticmethod",):
                    out.add(("bound", klass, name))
                else:
                    out.add(("func", qn))
            else:
                out |= self._binding(ref, name, module, qualname, depth + 1)
        if instance:
            out |= self._self_stores(klass, name, depth)
        return frozenset(out)

    def _self_stores(self, cls: str, name: str, depth: int) -> Values:
        out: set[Value] = set()
        facts = self.index.classes[cls]
        module = self.index.class_module[cls]
        prefix = f"{module}.{facts.qualname}."
        for qn, func in self._methods(prefix):
            for attr, ref in func.self_stores:
                if attr == name:
                    out |= self._binding(ref, name, module, func.qualname, depth + 1)
        known = frozenset(v for v in out if v[0] != "unknown")
        return known or frozenset(out)

    def _methods(self, prefix: str) -> list[tuple[str, Function]]:
        functions = self.index.functions
        return [(qn, functions[qn]) for qn in self.index.methods_of.get(prefix[:-1], ())]

    # -- calls --------------------------------------------------------------------------------
    def _call(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        if ref[1] == ("name", "super") and not ref[2]:
            return self._super(module, scope)
        callee = self.eval(ref[1], module, scope, depth)
        out: set[Value] = set()
        for value in callee:
            out |= self.call_result(value, ref, module, scope, depth)
        return frozenset(out)

    def _super(self, module: str, scope: str) -> Values:
        """``super()`` inside a method: the enclosing class's bases, as instances."""
        parts = scope.split(".")
        while parts:
            cls = self.index.enclosing_class(module, ".".join(parts))
            if cls is not None:
                return frozenset(("inst", base) for base in self.mro(cls)[1:]) or unknown(
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
                inner = self.eval(ref[2][0], module, scope, depth)
                return frozenset(("partial", v) for v in inner)
            if name == "builtins.getattr" and len(ref[2]) >= 2:
                if ref[2][1][0] == "str":
                    out: set[Value] = set()
                    for base in self.eval(ref[2][0], module, scope, depth):
                        out |= self.attribute(base, ref[2][1][1], depth)
                    return frozenset(out)
                return frozenset({("dyn", f"getattr with a computed name {render(ref[2][1])}")})
            if name in ("typing.cast", "typing_extensions.cast") and ref[2]:
                return self.annotation(ref[2][0], module, scope, depth)
            if name in self.known_classes:
                return frozenset({("inst", name)})
            if name in self.factories:
                return frozenset({("inst", self.factories[name])})
            return frozenset({("extcall", name)})
        if kind == "func":
            return self.returns(value[1], depth)
        if kind == "bound":
            qn = self.method(value[1], value[2])
            return self.returns(qn, depth) if qn else unknown(f"method {value[2]}")
        if kind in ("dyn", "unknown"):
            return frozenset({value})
        return unknown(f"call of {kind}")

    def method(self, cls: str, name: str) -> str | None:
        """The qualified function implementing *cls*.*name*, through the MRO."""
        for klass in self.mro(cls):
            facts = self.index.classes.get(klass)
            if facts is None:
                continue
            qn = f"{self.index.class_module[klass]}.{facts.qualname}.{name}"
            if qn in self.index.functions:
                return qn
        return None

    def returns(self, func_qn: str, depth: int) -> Values:
        """Values a call returns: the return annotation, else the returned expressions."""
        func = self.index.functions.get(func_qn)
        if func is None:
            return unknown(f"no function {func_qn}")
        module, scope = self.index.function_scope(func_qn)
        parent = scope.rsplit(".", 1)[0] if "." in scope else ""
        if func.returns is not None:
            typed = self.annotation(func.returns, module, parent, depth + 1)
            if not _all_unknown(typed):
                return typed
        out: set[Value] = set()
        for ref in func.return_values:
            out |= self.eval(ref, module, scope, depth + 1)
        return frozenset(out) or unknown(f"{func.name}() returns nothing inferable")


def _is_field_spec(ref: Ref) -> bool:
    """``Field(...)``, ``PrivateAttr(...)``, ``field(...)``: a declaration, not the value."""
    if ref[0] != "call":
        return False
    func = ref[1]
    name = func[1] if func[0] == "name" else func[2] if func[0] == "attr" else ""
    return name in FIELD_SPECS


def _all_unknown(values: Values) -> bool:
    return all(v[0] == "unknown" for v in values)
