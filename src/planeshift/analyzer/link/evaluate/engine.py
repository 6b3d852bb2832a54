"""The evaluator: what could this expression be? Lightweight, demand-driven value inference.

It evaluates refs (see ``extract/refs.py``) in a scope of the project index and answers with
values (see ``values.py``). This replaces LibCST's scope metadata, which costs ten times the
parse on a large tree; it is deliberately shallow (a bounded depth, no flow sensitivity) and
says so when it gives up. Its parts: ``names`` (scopes, imports, attributes), ``classes``
(ancestry, class and instance attributes), ``annotations``, ``calls`` (what a call returns) and
``literals`` (the entries of a table a loop iterates). Results are memoised with what computing
them read (``memo.py``), which an incremental link relies on.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...extract.facts import Ref
from ...extract.refs import render
from ..index import ProjectIndex
from ..memo import Memo
from .annotations import Annotations
from .calls import Calls
from .classes import Classes
from .literals import Literals
from .names import Names
from .values import MAX_DEPTH, Value, Values, unknown

__all__ = ["Evaluator", "Value", "Values"]


class Evaluator:
    """Evaluates refs in a scope of the project index; results are memoised per (ref, scope)."""

    def __init__(self, index: ProjectIndex, known_classes: Iterable[str] = ()) -> None:
        self.index = index
        self.known_classes = set(known_classes)  # external names that are classes (packs)
        self.factories: dict[str, str] = {}  # external factory -> class it returns
        self.names = Names(self)
        self.classes = Classes(self)
        self.annotations = Annotations(self)
        self.calls = Calls(self)
        self.literals = Literals(self)
        self._memo: Memo[Values] = Memo(index.deps)
        self._active: set[tuple] = set()
        self._cutoffs = 0  # results cut short by the cycle guard or the depth limit so far

    def eval(self, ref: Ref, module: str, scope: str, depth: int = 0) -> Values:
        key = (ref, module, scope)
        if key in self._memo:
            return self._memo.reuse(key)
        if key in self._active or depth > MAX_DEPTH:
            self._cutoffs += 1
            return unknown("recursive or too deep")
        self._active.add(key)
        cutoffs = self._cutoffs
        try:
            # a result cut short by a cycle or the depth limit depends on where the evaluation
            # entered, so it is not memoised: results never depend on evaluation order, which
            # an incremental link (evaluating fewer units, in another order) relies on
            return self._memo.get(key, lambda: self._eval(ref, module, scope, depth + 1),
                                  keep=lambda: self._cutoffs == cutoffs)
        finally:
            self._active.discard(key)

    def _eval(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        kind = ref[0]
        if kind == "name":
            return self.names.lookup(ref[1], module, scope, depth)
        if kind == "attr":
            out: set[Value] = set()
            for base in self.eval(ref[1], module, scope, depth):
                out |= self.names.attribute(base, ref[2], depth)
            return frozenset(out)
        if kind == "call":
            return self.calls.call(ref, module, scope, depth)
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

    # -- the parts' entry points other modules use ----------------------------------------
    def lookup(self, name: str, module: str, scope: str, depth: int = 0) -> Values:
        return self.names.lookup(name, module, scope, depth)

    def qualified(self, qualname: str, depth: int = 0, is_module: bool = False) -> Values:
        return self.names.qualified(qualname, depth, is_module)

    def attribute(self, value: Value, name: str, depth: int) -> Values:
        return self.names.attribute(value, name, depth)

    def mro(self, cls: str) -> tuple[str, ...]:
        return self.classes.mro(cls)

    def method(self, cls: str, name: str) -> str | None:
        return self.classes.method(cls, name)

    def returns(self, func_qn: str, depth: int) -> Values:
        return self.calls.returns(func_qn, depth)

    def annotation(self, ref: Ref, module: str, scope: str, depth: int) -> Values:
        return self.annotations.annotation(ref, module, scope, depth)

    def table(self, ref: Ref, module: str, scope: str, index: int | None = None,
              depth: int = 0) -> list[Ref] | None:
        return self.literals.table(ref, module, scope, index, depth)
