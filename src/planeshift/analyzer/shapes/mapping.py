"""``Registry(hooks={point: handler, ...})``: a dict of hooks handed to a constructor, one
registration per literal entry (through ``**kwargs``, or not a literal: kept for review)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...packs.model import ArgSpec, Mechanism, RegistrationForm
from ...types import Handler
from ..extract.facts import Arg, FileFacts, Site
from ..extract.refs import render
from .base import CalleeShape, Example, Matching, register
from .keyword import default_callables

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..link.match.candidates import Match


@register
class MappingShape(CalleeShape):
    kind = "mapping"
    options = ("callable", "handler")
    MATCHES = [
        Example("""
            from demo.bus import EventBus, Point

            def check(**kw):
                pass

            bus = EventBus(hooks={Point.BEFORE: check})
            """, ((6, "hooks", "BEFORE", "check"),)),
    ]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        return {"callables": default_callables(reader, data, key, dispatchers, self.kind)}

    def words(self, form: RegistrationForm):
        # the mapping may come positionally or through **kwargs: the callee's name too
        return [("keywords", form.name),
                *(("calls", c.rsplit(".", 1)[-1]) for c in form.callables)]

    def at_call(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, evidence: list[str]) -> Iterator[Match]:
        arg = m.build.arg(site, form.handler or ArgSpec(keyword=form.name))
        spread = [a for a in site.args if a.star == "**"]
        if arg is None and spread:
            yield m.build.match(facts, site, mech, form, form.name, None,
                                f"{form.name} may arrive through **{spread[0].text}",
                                Handler(f"**{spread[0].text}"), "low", evidence, [],
                                handler_arg=spread[0], at=spread[0].span)
            return
        if arg is None or arg.ref == ("const", "None"):
            return
        if arg.ref[0] != "dict":
            yield m.build.match(facts, site, mech, form, form.name, None,
                                f"hooks mapping {arg.text} is not a literal", Handler(arg.text),
                                "low", evidence, [], handler_arg=arg, at=arg.span)
            return
        entries = arg.entries or (None,) * len(arg.ref[1])
        for (key, value), entry in zip(arg.ref[1], entries):
            values = m.ev.eval(key, facts.module, site.scope)
            point = m.points.normalize_point(values, mech, render(key))
            handler = m.build.handler(value, render(value), facts, site)
            yield m.build.match(facts, site, mech, form, form.name, point.name, point.note,
                                handler, "high", list(evidence), point.flags,
                                handler_arg=Arg(None, value, render(value)), at=entry)
