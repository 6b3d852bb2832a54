"""What a call site declared, read by the owner façade it registers with.

A migrated call site hands an owner that runs on the kernels its typed registration
(a ``Subscription``, a ``SinkRegistration``, an ``InterceptorRegistration``) where it
handed the bare handler before. The façade's registration method unwraps it with
``Declarations.accept``, which checks the plane against what the dispatcher serves,
records the name and order, and returns the handler the façade stores as it always
did (so ``unsubscribe(handler)`` and identity checks are unchanged). When the owner
fans out, ``ordered`` puts its entries in declared order (registration order where
none is declared) and ``name`` names each in the kernel's report::

    _BUS_DECLARATIONS = Declarations(planes=("subscriber",))

    def subscribe(self, handler):
        handler = _BUS_DECLARATIONS.accept(handler)
        self._handlers.append(handler)

    async def emit(self, signal):
        entries = _BUS_DECLARATIONS.ordered(self._handlers)
        await fan_out(POLICY, entries, step, name=_BUS_DECLARATIONS.name)

A record never keeps a handler alive: it is keyed by the handler's identity (a bound
method's by its instance and function) and dropped when that object is collected.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .adapters import SinkRegistration, Subscription, as_interceptor
from .errors import PolicyError
from .interceptors import InterceptorRegistration
from .ports import DeliverySink

__all__ = ["Declaration", "Declarations", "declaration_of"]

PLANES = ("interceptor", "subscriber", "delivery_sink", "commit_participant")


@dataclass(frozen=True, slots=True)
class Declaration:
    """What one typed registration declared about its handler (``handler`` is None
    once recorded: a record never holds the handler)."""

    name: str
    plane: str
    order: int | None
    handler: Any


def declaration_of(value: object) -> Declaration | None:
    """The declaration a typed registration carries; None for anything else."""
    if isinstance(value, Subscription):
        return Declaration(value.name, "subscriber", value.order, value.handler)
    if isinstance(value, SinkRegistration):
        sink = value.port is DeliverySink
        plane = "delivery_sink" if sink else "commit_participant"
        return Declaration(value.name, plane, value.order, value.handler)
    if isinstance(value, InterceptorRegistration):
        return Declaration(value.name, "interceptor", value.order, value.handler)
    return None


def _key(handler: object) -> tuple[tuple[int, int], object]:
    """The identity key of *handler* and the object whose life bounds the record."""
    owner = getattr(handler, "__self__", None)
    function = getattr(handler, "__func__", None)
    # a bound method is made anew at each access: keyed by its instance and function
    if owner is not None and function is not None:
        return (id(owner), id(function)), owner
    return (id(handler), 0), handler


class Declarations:
    """One owner façade's record of the declarations its registrations carried.

    *planes* are the planes its dispatcher serves: a registration that declares another
    one is refused with PolicyError (``plane-mismatch``) before the owner stores it.
    """

    def __init__(self, *, planes: Iterable[str]) -> None:
        self.planes = tuple(planes)
        unknown = [p for p in self.planes if p not in PLANES]
        if unknown or not self.planes:
            raise PolicyError(
                [
                    (
                        "field-type",
                        f"planes must be some of {PLANES}, got {self.planes!r}",
                    )
                ],
            )
        self._records: dict[tuple[int, int], tuple[Declaration, Any]] = {}
        self._lock = threading.Lock()

    def accept(self, value: Any) -> Any:
        """The handler to store: a typed registration's own (its declaration recorded),
        or *value* itself (any earlier declaration of that handler forgotten, so a bare
        re-registration is not named by an old one). None passes through."""
        declaration = declaration_of(value)
        handler = value if declaration is None else declaration.handler
        if isinstance(value, InterceptorRegistration):
            # a handler marked @returns_decisions gets the wrapper that translates them
            handler = as_interceptor(value)
        if handler is None:
            return None
        if declaration is not None and declaration.plane not in self.planes:
            served = ", ".join(self.planes)
            declared = f"{declaration.name!r} is declared {declaration.plane}"
            message = f"{declared}, but this dispatcher serves {served}"
            raise PolicyError([("plane-mismatch", message)])
        key, life = _key(handler)
        with self._lock:
            old = self._records.pop(key, None)
            if old is not None and isinstance(old[1], weakref.finalize):
                old[1].detach()
            if declaration is not None:
                # the record holds no reference to the handler (a bound method would keep
                # its instance alive), unless it cannot be watched: then it pins it
                name, plane, order = (
                    declaration.name,
                    declaration.plane,
                    declaration.order,
                )
                kept = Declaration(name, plane, order, None)
                self._records[key] = (kept, self._watch(life, key, handler))
        return handler

    def _watch(self, life: object, key: tuple[int, int], handler: object) -> Any:
        """A finalizer that forgets *key* when *life* is collected; *handler* itself
        when *life* cannot be weakly referenced (kept, so its identity stays unique)."""
        try:
            return weakref.finalize(life, self._forget, key)
        except TypeError:
            return handler

    def _forget(self, key: tuple[int, int]) -> None:
        with self._lock:
            self._records.pop(key, None)

    def declaration(self, entry: Any) -> Declaration | None:
        """The declaration of *entry*'s handler: the entry itself when it is callable,
        else its ``handler`` or ``callback`` attribute, else the callable members of a
        tuple entry (an owner's own record); None when nothing was declared."""
        with self._lock:
            for handler in _handlers_of(entry):
                record = self._records.get(_key(handler)[0])
                if record is not None:
                    return record[0]
        return None

    def name(self, entry: Any) -> str | None:
        """The declared name of *entry*'s handler (fan_out's ``name``); None for the
        kernel's own."""
        declared = self.declaration(entry)
        return None if declared is None else declared.name

    def ordered(self, entries: Iterable[Any]) -> list[Any]:
        """*entries* in declared order, stable: an entry without one ranks as 0, so
        with no order declared anywhere this is registration order."""
        ranked = []
        for index, entry in enumerate(entries):
            declared = self.declaration(entry)
            order = 0 if declared is None or declared.order is None else declared.order
            ranked.append((order, index, entry))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return [entry for _, _, entry in ranked]


def _handlers_of(entry: Any) -> list[Any]:
    if callable(entry):
        return [entry]
    for attribute in ("handler", "callback"):
        found = getattr(entry, attribute, None)
        if callable(found):
            return [found]
    if isinstance(entry, tuple):
        return [member for member in entry if callable(member)]
    return []
