"""The form index: every registration and emission form, found by the word a site spells."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import ClassVar, Protocol

from ....packs.model import EmissionForm, Mechanism, Pack, RegistrationForm

Entry = tuple[Mechanism, RegistrationForm]


class FormShape(Protocol):
    """What the index needs of a registration shape (``shapes/``, which the matcher hands in)."""

    callee: ClassVar[bool]
    definitions: ClassVar[bool]

    def key(self, form: RegistrationForm) -> str: ...


class FormIndex:
    """Keyed forms (a method name, a callback list, a slot) per shape kind, callee forms in pack
    order (they are matched by what a call resolves to), and emission forms."""

    def __init__(self, packs: tuple[Pack, ...], shapes: Mapping[str, FormShape]) -> None:
        self.shapes = shapes
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.excluded = frozenset(name for p in packs for name in p.not_registrations)
        self.keyed: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: defaultdict(list))
        self.callee: list[Entry] = []
        self.definitions: list[Entry] = []  # matched on each file's functions (hookimpl)
        self.emit_by_method: dict[str, list[tuple[Mechanism, EmissionForm]]] = defaultdict(list)
        self.emit_by_callee: list[tuple[Mechanism, EmissionForm]] = []
        self.emit_by_relay: dict[str, list[tuple[Mechanism, EmissionForm]]] = defaultdict(list)
        for mech in self.mechanisms:
            for form in mech.registrations:
                self.add(mech, form)
            for em in mech.emissions:
                if em.kind == "method":
                    self.emit_by_method[em.name].append((mech, em))
                elif em.kind == "relay":
                    self.emit_by_relay[em.name].append((mech, em))
                else:
                    self.emit_by_callee.append((mech, em))

    def add(self, mech: Mechanism, form: RegistrationForm, key: str | None = None) -> None:
        """Index a form (pack-given or derived by the linker), under *key* for an alias name."""
        shape = self.shapes[form.kind]
        if shape.definitions:
            self.definitions.append((mech, form))
        elif shape.callee:
            self.callee.append((mech, form))
        else:
            self.keyed[form.kind][key or shape.key(form)].append((mech, form))

    def forms(self, kind: str, key: str) -> list[Entry]:
        return self.keyed[kind].get(key, []) if kind in self.keyed else []
