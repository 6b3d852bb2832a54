"""Annotations: the instances a type annotation admits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...extract.facts import Ref
from ...extract.refs import parse_annotation, render
from .values import OPAQUE_TYPES, WRAPPER_TYPES, Value, Values, unknown

if TYPE_CHECKING:
    from .evaluation import Evaluation


class Annotations:
    def __init__(self, evaluator: Evaluation) -> None:
        self.ev = evaluator

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
            head = self.ev.eval(ref[1], module, scope, depth)
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
            for value in self.ev.eval(ref, module, scope, depth):
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
