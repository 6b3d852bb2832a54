"""Literal tables: the entries of a collection a loop iterates, when the code spells it out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...extract.facts import Ref
from ...extract.refs import render

if TYPE_CHECKING:
    from .evaluation import Evaluation


class Literals:
    def __init__(self, evaluator: Evaluation) -> None:
        self.ev = evaluator

    def loop_reason(self, iterable: Ref, index: int | None, module: str, scope: str) -> str:
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
            return inner and self.dict_part(ref[1][2], index, inner)
        if ref[0] == "dictview":
            return self.literal(ref[1], module, scope, depth)
        if ref[0] == "name":
            bound = self.literal(ref, module, scope, depth)
            return self.table(bound, module, scope, index, depth + 1) if bound else None
        return None

    def literal(self, ref: Ref, module: str, scope: str, depth: int):
        """The literal a name is bound to (once), or None."""
        if ref[0] == "dict":
            return ref
        if ref[0] != "name":
            return None
        for key in self.ev.index.scope_chain(module, scope):
            refs = self.ev.index.binding(key, ref[1])
            if refs:
                if len(refs) != 1:
                    return None
                bound = refs[0][2] if refs[0][0] == "annot" else refs[0]
                return bound if bound is not None and bound[0] in ("seq", "dict") else None
        return None

    @staticmethod
    def dict_part(view: str, index: int | None, pairs) -> list[Ref] | None:
        if pairs[0] != "dict":
            return None
        if view == "values" or (view == "items" and index == 1):
            return [v for _, v in pairs[1]]
        return [k for k, _ in pairs[1]]
