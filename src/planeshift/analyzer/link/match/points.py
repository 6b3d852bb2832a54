"""Points: which argument of a registration names its point, and the point's normalised name.

A point is normalised to the member name of the mechanism's point enum (``HookPoint.TOOL_PRE``,
``"tool.pre"`` -> ``TOOL_PRE``), a class name for type-keyed mechanisms (``observe(NodeFailed)``),
or a literal string key; anything decided at run time is reported with the reason, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ....packs.model import ArgSpec, Mechanism
from ...extract.facts import Arg, FileFacts, Ref, Site
from ...extract.refs import render
from ..evaluate.engine import Evaluator
from ..evaluate.values import Values
from .identity import Identity


def args_for(site: Site, spec: ArgSpec | None, taken: set[int] | None = None) -> list[Arg]:
    """The call-site arguments an argument spec designates."""
    if spec is None:
        return []
    positional = [a for a in site.args if a.name is None and not a.star]
    if spec.keyword is not None:
        for a in site.args:
            if a.name == spec.keyword:
                return [a]
    if spec.rest:
        return [a for i, a in enumerate(positional) if i not in (taken or set())]
    if spec.index is not None and len(positional) >= max(spec.min_args, 1):
        index = spec.index if spec.index >= 0 else len(positional) + spec.index
        if 0 <= index < len(positional):
            return [positional[index]]
    return []


@dataclass(frozen=True, slots=True)
class ResolvedPoint:
    """The point a registration or emission names, normalised for its mechanism."""

    name: str | None  # an enum member's name, a class name or a string key; None: not known
    note: str | None = None  # why it is not known
    member: bool | None = False  # one of the mechanism's points; None: a string the mechanism's
    #                              point enum, in view, does not have

    @property
    def flags(self) -> list[str]:
        """``unknown_point`` for a point string the mechanism's enum does not have."""
        return ["unknown_point"] if self.member is None else []


class Points:
    """Which point a registration or emission names, normalised for the mechanism."""

    def __init__(self, evaluator: Evaluator, identity: Identity) -> None:
        self.ev = evaluator
        self.ids = identity.ids

    def point_of(self, facts, site, mech, spec) -> ResolvedPoint:
        """The point a registration site of the form *spec* names."""
        if spec.fixed_point:
            return ResolvedPoint(spec.fixed_point)
        if spec.point is None:
            return ResolvedPoint(None)
        if spec.point.receiver:
            receiver = args_for(site, spec.receiver) if spec.receiver is not None else None
            if receiver:
                return self.receiver_point(facts, receiver[0].ref)
            if site.func[0] == "attr" and receiver is None:
                return self.receiver_point(facts, site.func[1])
            return ResolvedPoint(None, "the dispatcher, which is the point, is not at this call")
        taken: set[int] = set()
        handler = spec.handler
        if spec.point.rest and handler is not None and handler.index is not None and not (
            handler.keyword and any(a.name == handler.keyword for a in site.args)
        ) and site.kind != "decorator":
            positional = [a for a in site.args if a.name is None and not a.star]
            if len(positional) >= max(handler.min_args, 1):
                taken.add(handler.index % len(positional))
        args = args_for(site, spec.point, taken)
        stars = [a for a in site.args if a.star == "*"]
        if spec.point.rest and stars:
            return ResolvedPoint(None, f"point comes from *{stars[0].text}")
        if not args and spec.default_point is not None:
            return ResolvedPoint(spec.default_point)
        if not args:
            return ResolvedPoint(None, "no point argument at this call")
        names: list[str] = []
        in_enum: bool | None = False
        for arg in args:
            values = self.ev.eval(arg.ref, facts.module, site.scope)
            point = self.normalize_point(values, mech, arg.text)
            if point.name is None:
                return ResolvedPoint(None, point.note)
            names.append(point.name)
            in_enum = (None if point.member is None or in_enum is None
                       else (in_enum or point.member))
        return ResolvedPoint("+".join(names), None, in_enum)

    def receiver_point(self, facts: FileFacts, ref: Ref) -> ResolvedPoint:
        """The point a dispatcher instance is (``post_save.connect(f)``, ``@receiver(post_save)``,
        ``signal("initialized").connect(f)``): the name it is defined or imported under, or the
        name a named signal is created with."""
        if ref[0] == "call" and ref[2] and ref[2][0][0] == "str":
            return ResolvedPoint(ref[2][0][1])
        if ref[0] == "attr":
            return ResolvedPoint(ref[2])
        if ref[0] == "name":
            for name, bound in facts.bindings:
                if name == ref[1] and bound[0] == "import" and not bound[2]:
                    return ResolvedPoint(bound[1].rsplit(".", 1)[-1])
            return ResolvedPoint(ref[1])
        return ResolvedPoint(None, f"the dispatcher `{render(ref)}` is not a named instance")

    def normalize_point(self, values: Values, mech: Mechanism, text: str = "") -> ResolvedPoint:
        """The point *values* name. A string is the member whose name or value it equals; a
        string the enum (in view) has not is kept as written, ``member`` None."""
        enum_ids = self.ids(mech.points) if mech.points else frozenset()
        found: set[str] = set()
        member = False
        dynamic = sorted({v[1] for v in values if v[0] in ("dyn", "unknown")})
        if dynamic:
            return ResolvedPoint(None, f"point `{text or '?'}` is dynamic ({'; '.join(dynamic)})")
        for v in values:
            if v[0] == "member" and (not enum_ids or any(c in enum_ids for c in self.ev.mro(v[1]))):
                found.add(v[2])
                member = member or bool(enum_ids)
            elif v[0] == "ext" and "." in v[1] and v[1].rsplit(".", 1)[0] in enum_ids:
                found.add(v[1].rsplit(".", 1)[1])
                member = True
            elif v[0] == "str":
                name = self._enum_name_for(v[1], mech)
                found.add(name or v[1])
                if name is not None:
                    member = True
                elif self.enum_members(mech) is not None:
                    member = None  # not a point this mechanism has
            elif v[0] in ("cls", "ext", "member"):
                found.add(str(v[-1]).rsplit(".", 1)[-1])
                if v[0] == "cls" and mech.point_types and any(
                        c in self.ids(mech.point_types) for c in self.ev.mro(v[1])):
                    member = True  # a subclass of the mechanism's point type
            elif v[0] == "inst" and v[1].startswith("builtins."):
                return ResolvedPoint(None, f"point `{text or '?'}` is a run-time {v[1][9:]} value")
            elif v[0] == "inst" and any(c in enum_ids for c in self.ev.mro(v[1])):
                return ResolvedPoint(
                    None, f"point `{text or '?'}` may be any {v[1].rsplit('.', 1)[-1]}")
            elif v[0] == "inst":
                found.add(f"{v[1].rsplit('.', 1)[-1]}(...)")
            else:
                return ResolvedPoint(None, f"point `{text or '?'}` is not a constant")
        if len(found) != 1:
            return ResolvedPoint(None, f"point `{text}` may be any of {', '.join(sorted(found))}")
        return ResolvedPoint(found.pop(), None, member)

    def enum_members(self, mech: Mechanism) -> tuple[tuple[str, object], ...] | None:
        """(name, value) of the mechanism's point enum when its source is in the tree, else None."""
        found = [
            self.ev.index.classes[cls]
            for cls in (self.ids(mech.points) if mech.points else ())
            if cls in self.ev.index.classes
        ]
        return tuple(m for facts in found for m in facts.enum_members) if found else None

    def _enum_name_for(self, value: str, mech: Mechanism) -> str | None:
        for name, literal in self.enum_members(mech) or ():
            if literal == value or name == value:
                return name
        return None
