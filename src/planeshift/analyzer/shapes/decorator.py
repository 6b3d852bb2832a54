"""``@hook(point)``: a module-level decorator that registers the function it decorates (also
``@receiver(post_save)``, handed the dispatcher it registers on: one registration for each of a
list, ``@receiver([post_save, post_delete])``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...packs.model import Mechanism, RegistrationForm
from ..extract.facts import FileFacts, Site
from .base import CalleeShape, Example, Matching, register

if TYPE_CHECKING:
    from ..link.match.candidates import Match


@register
class DecoratorShape(CalleeShape):
    kind = "decorator"
    options = ("point", "fixed_point", "receiver", "callable", "conditions")
    decorates = True
    MATCHES = [
        Example("""
            from demo.bus import Point, hook

            @hook(Point.AFTER)
            async def audit(**kw):
                return None
            """, ((3, "hook", "AFTER", "audit"),)),
    ]

    def at_call(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, evidence: list[str]) -> Iterator[Match]:
        handler = m.build.decorated(facts, site)
        evidence = [*evidence, f"decorates {site.decorated}"]
        if form.receiver is None:
            point = m.points.point_of(facts, site, mech, form)
            yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                                handler, "high", evidence, point.flags)
            return
        arg = m.build.arg(site, form.receiver)
        for ref, text in m.build.handler_items(arg, many=True) if arg is not None else ():
            found = m.identity.dispatcher(m.ev.eval(ref, facts.module, site.scope), mech)
            if found.status == "other":
                continue
            flags, confidence = found.doubt
            point = (m.points.receiver_point(facts, ref) if form.point and form.point.receiver
                     else m.points.point_of(facts, site, mech, form))
            yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                                handler, confidence, [*evidence, f"{text} is {found.why}"],
                                [*flags, *point.flags], receiver=ref)
