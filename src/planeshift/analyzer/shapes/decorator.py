"""``@hook(point)``: a module-level decorator that registers the function it decorates."""

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
    options = ("point", "fixed_point")
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
        point = m.points.point_of(facts, site, mech, form)
        yield m.build.match(facts, site, mech, form, form.api_suffix, point.name, point.note,
                            handler, "high", [*evidence, f"decorates {site.decorated}"],
                            point.flags)
