"""``subscribe(bus, topic, handler)``: a module function that registers on a dispatcher it is
handed (also every helper or façade the linker derives as a forwarder)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...packs.model import Mechanism, RegistrationForm
from ..extract.facts import FileFacts, Site
from .base import CalleeShape, Example, Matching, register

if TYPE_CHECKING:
    from ..link.match.candidates import Match


@register
class FunctionShape(CalleeShape):
    kind = "function"
    options = ("point", "handler", "receiver", "fixed_point", "callable", "many")
    MATCHES = [
        Example("""
            from demo.bus import EventBus, Point

            def log(**kw):
                pass

            def observe(bus: EventBus, point: Point, handler) -> None:
                bus.on(point, handler)

            observe(EventBus(), Point.AFTER, log)
            """, ((9, "observe", "AFTER", "log"),)),
    ]

    def applies(self, site: Site, form: RegistrationForm) -> bool:
        """Calls; and decorators, for a forwarder whose handler may be left out."""
        return site.kind != "decorator" or form.decorates_too

    def at_call(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, evidence: list[str]) -> Iterator[Match]:
        if site.kind == "decorator":  # `@session.observe(NodeFailed)`: what it decorates
            point = m.points.point_of(facts, site, mech, form)
            yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                                m.build.decorated(facts, site), "high",
                                [*evidence, f"decorates {site.decorated}"], point.flags)
            return
        flags: list[str] = []
        confidence = "high"
        receiver = m.build.arg(site, form.receiver) if form.receiver is not None else None
        if receiver is not None:
            values = m.ev.eval(receiver.ref, facts.module, site.scope)
            found = m.identity.dispatcher(values, mech)
            if found.status == "other":
                return
            flags, confidence = found.doubt
            evidence.append(f"dispatcher argument {receiver.text} is {found.why}")
        yield from self.with_handler(m, facts, site, mech, form, evidence, flags, confidence,
                                     form.handler)
