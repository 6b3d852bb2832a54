"""Classes: ancestry, attributes of classes and instances (``self`` stores included), methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...extract.facts import Function
from ..memo import Memo
from .values import Value, Values, unknown

if TYPE_CHECKING:
    from .evaluation import Evaluation


class Classes:
    def __init__(self, evaluator: Evaluation) -> None:
        self.ev = evaluator
        self._mro: Memo[tuple[str, ...]] = Memo(evaluator.index.deps)

    def mro(self, cls: str) -> tuple[str, ...]:
        """The class and its ancestors, depth-first in base order (good enough for lookups)."""

        def ancestry() -> tuple[str, ...]:
            found = [cls]
            facts = self.ev.index.class_bases(cls)
            if facts is not None:
                qualname, bases = facts
                module = self.ev.index.class_module[cls]
                outer = qualname.rsplit(".", 1)[0] if "." in qualname else ""
                for base in bases:
                    for value in self.ev.eval(base, module, outer):
                        if value[0] in ("cls", "ext"):
                            found.extend(c for c in self.mro(value[1]) if c not in found)
            return tuple(found)

        return self._mro.get(cls, ancestry, placeholder=(cls,))  # the placeholder guards cycles

    def class_attr(self, cls: str, name: str, depth: int, instance: bool) -> Values:
        for klass in self.mro(cls):
            facts = self.ev.index.classes.get(klass)
            if facts is None:
                continue
            module = self.ev.index.class_module[klass]
            if name in dict(facts.enum_members) and not instance:
                return frozenset({("member", klass, name)})
            refs = self.ev.index.binding((module, facts.qualname), name)
            if refs:
                return self.class_binding(klass, module, facts.qualname, name, refs, depth, instance)
            if instance:
                stores = self.self_stores(klass, name, depth)
                if stores:
                    return stores
        if cls in self.ev.index.classes:
            return unknown(f"{cls.rsplit('.', 1)[-1]} has no attribute {name!r}")
        return frozenset({("ext", f"{cls}.{name}")}) if not instance else unknown(
            f"attribute {name!r} of external {cls}"
        )

    def class_binding(self, klass, module, qualname, name, refs, depth, instance) -> Values:
        out: set[Value] = set()
        for ref in refs:
            if ref[0] == "def":
                qn = f"{module}.{ref[1]}"
                func = self.ev.index.functions.get(qn)
                if func is not None and func.kind == "property" and instance:
                    out |= self.ev.calls.returns(qn, depth)
                elif instance and func is not None and func.kind not in ("staticmethod",):
                    out.add(("bound", klass, name))
                else:
                    out.add(("func", qn))
            else:
                out |= self.ev.names.binding(ref, name, module, qualname, depth + 1)
        if instance:
            out |= self.self_stores(klass, name, depth)
        return frozenset(out)

    def self_stores(self, cls: str, name: str, depth: int) -> Values:
        out: set[Value] = set()
        facts = self.ev.index.classes[cls]
        module = self.ev.index.class_module[cls]
        prefix = f"{module}.{facts.qualname}."
        for qn, func in self.methods(prefix):
            for attr, ref in func.self_stores:
                if attr == name:
                    out |= self.ev.names.binding(ref, name, module, func.qualname, depth + 1)
        known = frozenset(v for v in out if v[0] != "unknown")
        return known or frozenset(out)

    def methods(self, prefix: str) -> list[tuple[str, Function]]:
        functions = self.ev.index.functions
        return [(qn, functions[qn]) for qn in self.ev.index.methods_of.get(prefix[:-1], ())]

    def method(self, cls: str, name: str) -> str | None:
        """The qualified function implementing *cls*.*name*, through the MRO."""
        for klass in self.mro(cls):
            facts = self.ev.index.classes.get(klass)
            if facts is None:
                continue
            qn = f"{self.ev.index.class_module[klass]}.{facts.qualname}.{name}"
            if qn in self.ev.index.functions:
                return qn
        return None
