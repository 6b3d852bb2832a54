"""What each part of the evaluator (``names``, ``classes``, ``annotations``, ``calls``,
``literals``) may ask of the whole: the evaluator as its parts see it, so they name no module
that imports them (``engine.Evaluator`` is the one implementation)."""

from __future__ import annotations

from typing import Protocol

from ...extract.facts import Ref
from ..index import ProjectIndex
from .values import Value, Values


class NamesPart(Protocol):
    def binding(self, ref: Ref, name: str, module: str, scope: str, depth: int) -> Values: ...

    def attribute(self, value: Value, name: str, depth: int) -> Values: ...


class ClassesPart(Protocol):
    def mro(self, cls: str) -> tuple[str, ...]: ...

    def class_attr(self, cls: str, name: str, depth: int, instance: bool) -> Values: ...

    def method(self, cls: str, name: str) -> str | None: ...


class AnnotationsPart(Protocol):
    def annotation(self, ref: Ref, module: str, scope: str, depth: int) -> Values: ...


class CallsPart(Protocol):
    def returns(self, func_qn: str, depth: int) -> Values: ...


class LiteralsPart(Protocol):
    def loop_reason(self, iterable: Ref, index: int | None, module: str, scope: str) -> str: ...


class Evaluation(Protocol):
    """The evaluator: the project index, what the packs know of external names, evaluation of a
    ref in a scope, and its parts."""

    @property
    def index(self) -> ProjectIndex: ...

    @property
    def known_classes(self) -> set[str]: ...

    @property
    def factories(self) -> dict[str, str]: ...

    @property
    def names(self) -> NamesPart: ...

    @property
    def classes(self) -> ClassesPart: ...

    @property
    def annotations(self) -> AnnotationsPart: ...

    @property
    def calls(self) -> CallsPart: ...

    @property
    def literals(self) -> LiteralsPart: ...

    def eval(self, ref: Ref, module: str, scope: str, depth: int = 0) -> Values: ...
