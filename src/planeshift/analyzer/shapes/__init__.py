"""Registration shapes: one module per way a handler is registered (a method call, a function,
a decorator, a constructor keyword, a hooks mapping, a callback list, a setter slot).

Modules are found with ``pkgutil``; each registers its :class:`~.base.Shape` with ``@register``.
Importing this package hands the shapes to the pack reader (``provide_form_kinds``): which keys a
registration form of each kind takes is the shape's to say, and the pack model sits below the
analyzer, so it is given them rather than importing them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from ...packs.reader import provide_form_kinds
from ..extract.sites import Vocabulary
from .base import REGISTRY, WORD_CLASSES, CalleeShape, Example, Shape, register

if TYPE_CHECKING:
    from ...packs.model import Pack

__all__ = ["CalleeShape", "Example", "Shape", "all_shapes", "kinds", "register", "shape_of",
           "vocabulary"]


def all_shapes() -> list[Shape]:
    """Every shape: keyed ones in the order a site tries them, then callee ones."""
    if not REGISTRY:
        for info in pkgutil.iter_modules(__path__):
            if info.name != "base":
                importlib.import_module(f"{__name__}.{info.name}")
    return sorted(REGISTRY.values(), key=lambda s: (s.callee, s.order, s.kind))


def shape_of(kind: str) -> Shape:
    if not REGISTRY:
        all_shapes()
    return REGISTRY[kind]


provide_form_kinds(all_shapes)


def kinds() -> tuple[str, ...]:
    return tuple(s.kind for s in all_shapes())


def vocabulary(packs: tuple[Pack, ...]) -> Vocabulary:
    """The words a file must contain for its sites to be worth recording (the prefilter): each
    form's words by its shape, every emitting API's name, and the settings files' keys."""
    words: dict[str, set[str]] = {name: set() for name in WORD_CLASSES}
    for pack in packs:
        for mech in pack.mechanisms:
            for form in mech.registrations:
                for word_class, word in shape_of(form.kind).words(form):
                    words[word_class].add(word)
            words["calls"].update(em.name.rsplit(".", 1)[-1] for em in mech.emissions
                                  if em.kind != "relay")  # (read from every call's row)
    config_keys = {c.key for p in packs for m in p.mechanisms for c in m.config}
    decorators = {form.name.rsplit(".", 1)[-1] for pack in packs for mech in pack.mechanisms
                  for form in mech.registrations if form.kind == "decorator" or form.decorates}
    return Vocabulary(**{k: frozenset(v) for k, v in words.items()},
                      config_keys=frozenset(config_keys), decorators=frozenset(decorators),
                      mutators=frozenset(name for pack in packs for name in pack.mutators))
