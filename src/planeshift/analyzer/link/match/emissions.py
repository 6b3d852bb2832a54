"""Emission sites: calls that fire a mechanism's handlers (for dormant points and inventories)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ....packs.model import EmissionForm, Mechanism
from ...extract.facts import FileFacts, Site
from ..evaluate.engine import Evaluator
from .forms import FormIndex
from .identity import Identity
from .points import Points, args_for


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
    end_line: int = 0
    end_col: int = 0


class Emissions:
    """Calls that fire a mechanism: an emitting method on its dispatcher, or an emitting function."""

    def __init__(self, evaluator: Evaluator, identity: Identity, points: Points,
                 forms: FormIndex) -> None:
        self.ev, self.identity, self.points, self.forms = evaluator, identity, points, forms

    def emissions(self, facts: FileFacts) -> Iterator[RawEmission]:
        for site in facts.sites:
            if site.kind != "call":
                continue
            func = site.func
            found: list[tuple[Mechanism, EmissionForm]] = []
            if func[0] == "attr" and func[2] in self.forms.emit_by_method:
                recv = self.ev.eval(func[1], facts.module, site.scope)
                for mech, em in self.forms.emit_by_method[func[2]]:
                    status = self.identity.dispatcher(recv, mech).status
                    if status == "match" or (status == "unknown" and self._emits_own_point(
                        facts, site, mech, em)):
                        found.append((mech, em))
            if self.forms.emit_by_callee:
                callee = self.identity.callee_ids(self.ev.eval(func, facts.module, site.scope))
                for mech, em in self.forms.emit_by_callee:
                    if callee & self.identity.ids((em.name,)):
                        found.append((mech, em))
            for mech, em in found:
                args = args_for(site, em.point)
                point, dynamic = None, False
                if em.point is not None and em.point.receiver and func[0] == "attr":
                    point = self.points.receiver_point(facts, func[1]).name
                elif args:
                    values = self.ev.eval(args[0].ref, facts.module, site.scope)
                    point = self.points.normalize_point(values, mech, args[0].text).name
                    dynamic = point is None
                yield RawEmission(facts.path, site.line, site.col, site.scope, facts.module, mech,
                                  em.name, point, dynamic, site.end_line, site.end_col)

    def _emits_own_point(self, facts: FileFacts, site: Site, mech: Mechanism,
                         em: EmissionForm) -> bool:
        """An untyped receiver emitting one of the mechanism's own points is that mechanism."""
        args = args_for(site, em.point)
        if not args or not mech.points:
            return False
        values = self.ev.eval(args[0].ref, facts.module, site.scope)
        return bool(self.points.normalize_point(values, mech, args[0].text).member)
