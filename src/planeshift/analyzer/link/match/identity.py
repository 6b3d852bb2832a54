"""Dispatcher identity: which classes and functions a pack's qualified names are, and whether a
receiver's inferred values are (a subclass of) a mechanism's dispatcher."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from ....packs.model import Mechanism
from ..evaluate.engine import Evaluator
from ..evaluate.values import Values, untyped
from ..memo import Memo


@dataclass(frozen=True, slots=True)
class Receiver:
    """What a receiver's inferred values are to a mechanism."""

    status: str  # "match" (its dispatcher or a subclass) | "dynamic" | "unknown" | "other"
    why: str  # what the values are: "an instance of HookBus", the dynamic or unknown reason

    @property
    def doubt(self) -> tuple[list[str], str]:
        """The flags and the confidence of a registration on this receiver (not "other")."""
        if self.status == "match":
            return [], "high"
        if self.status == "dynamic":
            return ["dynamic_receiver"], "low"
        return ["unresolved_receiver"], "medium"


class Identity:
    def __init__(self, evaluator: Evaluator) -> None:
        self.ev = evaluator
        self._ids: Memo[frozenset[str]] = Memo(evaluator.index.deps)

    def ids(self, names: tuple[str, ...]) -> frozenset[str]:
        """Canonical identities of qualified names: the names themselves and what they resolve to."""

        def resolve() -> frozenset[str]:
            out = set(names)
            for name in names:
                for value in self.ev.qualified(name):
                    if value[0] in ("cls", "func", "ext"):
                        out.add(value[1])
            return frozenset(out)

        return self._ids.get(names, resolve)

    def dispatcher_ids(self, mech: Mechanism) -> frozenset[str]:
        return self.ids(mech.dispatchers + mech.aliases)

    def dispatcher(self, values: Values, mech: Mechanism) -> Receiver:
        """Whether a receiver's values are the mechanism's dispatcher: an instance of it (or of a
        subclass), or one of the instances the pack names where their code is not in view."""
        found = self.status(values, self.dispatcher_ids(mech))
        if found.status == "match" or not mech.instances:
            return found
        named = sorted({v[1] for v in values if v[0] == "ext"
                        and any(fnmatchcase(v[1], pattern) for pattern in mech.instances)})
        if named:
            kind = mech.dispatchers[0].rsplit(".", 1)[-1] if mech.dispatchers else mech.id
            return Receiver("match", f"{named[0]}, a {kind} the pack names")
        return found

    def status(self, values: Values, ids: frozenset[str]) -> Receiver:
        """Whether a receiver's values are one of *ids* (or a subclass), and why."""
        hits = [
            v for v in values
            if v[0] in ("inst", "cls") and any(c in ids for c in self.ev.mro(v[1]))
        ]
        if hits:
            return Receiver("match", ", ".join(sorted({short(v) for v in hits})))
        dyn = [v for v in values if v[0] == "dyn"]
        if dyn:
            return Receiver("dynamic", dyn[0][1])
        if untyped(values):
            return Receiver("unknown", sorted(values)[0][1])
        return Receiver("other", ", ".join(sorted({str(v[1]) for v in values if len(v) > 1})))

    def callee_ids(self, values: Values) -> set[str]:
        """Everything a call of these values runs: functions, methods, a class and its __init__."""
        out: set[str] = set()
        for v in values:
            if v[0] in ("func", "ext"):
                out.add(v[1])
            elif v[0] == "bound":
                out.add(self.ev.method(v[1], v[2]) or f"{v[1]}.{v[2]}")
                if v[2] == "__init__":  # super().__init__(...) constructs the base class
                    out.update(self.ev.mro(v[1]))
            elif v[0] == "cls":
                out.update(self.ev.mro(v[1]))
                init = self.ev.method(v[1], "__init__")
                if init is not None:  # constructing X calls X.__init__ (a derived forwarder)
                    out.add(init)
        return out


def short(value: tuple) -> str:
    name = value[1].rsplit(".", 1)[-1]
    return f"an instance of {name}" if value[0] == "inst" else f"the class {name}"
