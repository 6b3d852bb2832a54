"""What a registration shape is: a pack form kind with its options, words, site test and matching.

A shape is one module in this package, a subclass of :class:`Shape` (or :class:`CalleeShape`)
decorated with ``@register``; the registry feeds the pack reader (which keys a form of the kind
takes), the vocabulary (which words make a file worth collecting sites from), and the matcher
(which sites register on which mechanism). Its ``MATCHES`` and ``LOOKALIKES`` examples, written
against the tests' demo bus, are run by ``tests/analyzer/test_shapes.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ...packs.model import ArgSpec, Mechanism, RegistrationForm

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..extract.facts import FileFacts, Site
    from ..link.evaluate.engine import Evaluator
    from ..link.match.candidates import Builder, Match
    from ..link.match.forms import FormIndex
    from ..link.match.identity import Identity
    from ..link.match.points import Points
    from ..link.match.tables import Tables

class Matching(Protocol):
    """The matcher as a shape sees it (``link/match/matcher.py``, which imports the shapes):
    the evaluator and the matcher's parts a shape's matching calls."""

    @property
    def ev(self) -> Evaluator: ...

    @property
    def forms(self) -> FormIndex: ...

    @property
    def identity(self) -> Identity: ...

    @property
    def points(self) -> Points: ...

    @property
    def build(self) -> Builder: ...

    @property
    def tables(self) -> Tables: ...


REGISTRY: dict[str, Shape] = {}
WORD_CLASSES = ("calls", "keywords", "list_attrs", "assign_attrs", "item_attrs")  # extract/sites.py


@dataclass(frozen=True)
class Example:
    """A module that registers (``expect``: (line, api, point, handler expr) per registration,
    lines counted from the dedented example's first line) or, with no ``expect``, must not."""

    code: str
    expect: tuple[tuple[int, str, str | None, str], ...] = ()


class Shape:
    """A registration form kind matched by the word a site spells (a method, a list, a slot)."""

    kind: ClassVar[str] = ""
    options: ClassVar[tuple[str, ...]] = ()  # the pack keys a form of this kind takes
    needs_dispatcher: ClassVar[bool] = False  # the form is reached through a dispatcher instance
    callee: ClassVar[bool] = False  # matched by what a call resolves to, in pack order
    definitions: ClassVar[bool] = False  # matched on each file's definitions, not on its sites
    order: ClassVar[int] = 50  # keyed shapes are tried at a site in this order
    MATCHES: ClassVar[list[Example]] = []
    LOOKALIKES: ClassVar[list[Example]] = []

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        """The kind's own fields of its :class:`RegistrationForm`, validated."""
        return {}

    def words(self, form: RegistrationForm) -> Iterable[tuple[str, str]]:
        """(word class, word) pairs a file must contain for a site of *form* to be collected."""
        raise NotImplementedError

    def key(self, form: RegistrationForm) -> str:
        """The word a site spells to reach *form* (keyed shapes)."""
        return form.name

    def match(self, m: Matching, facts: FileFacts, site: Site) -> Iterator[Match]:
        """The matches of this shape's forms at *site* (keyed shapes)."""
        raise NotImplementedError

    def match_definitions(self, m: Matching, facts: FileFacts, mech: Mechanism,
                          form: RegistrationForm) -> Iterator[Match]:
        """The matches of *form* among the file's definitions (definition shapes)."""
        raise NotImplementedError


class CalleeShape(Shape):
    """A form matched by the callable a call (or decorator) resolves to."""

    callee = True
    decorates: ClassVar[bool] = False  # matched at decorator sites rather than at calls

    def applies(self, site: Site, form: RegistrationForm) -> bool:
        return (site.kind == "decorator") == self.decorates

    def callables(self, form: RegistrationForm) -> tuple[str, ...]:
        return form.callables or (form.name,)

    def words(self, form: RegistrationForm) -> Iterable[tuple[str, str]]:
        return [("calls", form.name.rsplit(".", 1)[-1])]

    def match_callee(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                     form: RegistrationForm, target: str) -> Iterator[Match]:
        evidence = [f"{site.text} resolves to {target}"]
        if form.forwards:
            evidence.append(f"{form.name} forwards its parameters to a registration")
        yield from self.at_call(m, facts, site, mech, form, evidence)

    def at_call(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, evidence: list[str]) -> Iterator[Match]:
        raise NotImplementedError

    @staticmethod
    def with_handler(m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                     form: RegistrationForm, evidence: list[str], flags: list[str],
                     confidence: str, handler_spec: ArgSpec | None,
                     at_argument: bool = False) -> Iterator[Match]:
        """One match per handler the call hands over (each of a list when the form says many);
        *at_argument*: the registration is the argument (a keyword), not the whole call."""
        point = m.points.point_of(facts, site, mech, form)
        flags = [*flags, *point.flags]
        if form.fixed_handler is not None:
            yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                                form.fixed_handler, confidence, evidence, flags)
            return
        arg = m.build.arg(site, handler_spec)
        if arg is None or arg.ref == ("const", "None"):
            return  # nothing (or an explicit None) handed to this slot
        for ref, text in m.build.handler_items(arg, many=form.many):
            handler = m.build.handler(ref, text, facts, site)
            yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                                handler, confidence, list(evidence), list(flags), handler_arg=arg,
                                at=arg.span if at_argument else None)


def owner_flags(m: Matching, kind: str, name: str, mech: Mechanism, status: str) -> tuple[list[str], str]:
    """The flags of a match by its receiver's status, and a note. An untyped owner of a slot,
    list or mapping whose name only this mechanism has is that mechanism's (the plane is kept,
    with low confidence); any other untyped owner leaves the mechanism itself to review."""
    if status == "dynamic":
        return ["dynamic_receiver"], ""
    if status != "unresolved":
        return [], ""
    if {other.id for other, _ in m.forms.forms(kind, name)} == {mech.id}:
        return ["unresolved_receiver"], f"; .{name} is a {kind} form only {mech.id} has"
    return ["receiver_unknown"], ""


def register(cls: type[Shape]) -> type[Shape]:
    if not cls.kind:
        raise TypeError(f"{cls.__name__} needs a kind")
    if cls.kind in REGISTRY and type(REGISTRY[cls.kind]) is not cls:
        raise ValueError(f"duplicate shape kind {cls.kind}: {cls.__name__}")
    REGISTRY[cls.kind] = cls()
    return cls
