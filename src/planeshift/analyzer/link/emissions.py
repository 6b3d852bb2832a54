"""Emission sites: calls that fire a mechanism's handlers (for dormant points and inventories)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ...rules.forms import EmissionForm, Mechanism
from ..extract.facts import FileFacts
from .points import args_for


@dataclass
class RawEmission:
    file: str
    line: int
    col: int
    scope: str
    module: str
    mechanism: Mechanism
    api: str
    point: str | None
    dynamic: bool


class EmissionMatcher:
    """Emission matching for the matcher (it provides ``ev``, ``ids``, ``status`` and the rest)."""

    def emissions(self, facts: FileFacts) -> Iterator[RawEmission]:
        for site in facts.sites:
            if site.kind != "call":
                continue
            func = site.func
            found: list[tuple[Mechanism, EmissionForm]] = []
            if func[0] == "attr" and func[2] in self.emit_by_method:
                recv = self.ev.eval(func[1], facts.module, site.scope)
                for mech, em in self.emit_by_method[func[2]]:
                    status, _ = self.status(recv, self.dispatcher_ids(mech))
                    if status == "match" or (status == "unknown" and self._emits_own_point(
                        facts, site, mech, em)):
                        found.append((mech, em))
            if self.emit_by_callee:
                callee = self.callee_ids(self.ev.eval(func, facts.module, site.scope))
                for mech, em in self.emit_by_callee:
                    if callee & self.ids((em.name,)):
                        found.append((mech, em))
            for mech, em in found:
                args = args_for(site, em.point)
                point, dynamic = None, False
                if args:
                    values = self.ev.eval(args[0].ref, facts.module, site.scope)
                    point, _, _ = self.normalize_point(values, mech, args[0].text)
                    dynamic = point is None
                yield RawEmission(facts.path, site.line, site.col, site.scope, facts.module, mech,
                                  em.name, point, dynamic)

    def _emits_own_point(self, facts, site, mech, em) -> bool:
        """An untyped receiver emitting one of the mechanism's own points is that mechanism."""
        args = args_for(site, em.point)
        if not args or not mech.points:
            return False
        values = self.ev.eval(args[0].ref, facts.module, site.scope)
        return bool(self.normalize_point(values, mech, args[0].text)[2])
