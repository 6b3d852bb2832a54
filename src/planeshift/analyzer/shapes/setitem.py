"""``bus.hooks[point] = handler``: an entry stored into a mapping of handlers the dispatcher
holds, its key the point."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...packs.model import RegistrationForm
from ..extract.facts import FileFacts, Site
from ..extract.refs import render
from .base import Example, Matching, Shape, owner_flags, register

if TYPE_CHECKING:
    from ..link.match.candidates import Match


@register
class SetItemShape(Shape):
    kind = "setitem"
    options = ("owner",)
    needs_dispatcher = True
    order = 40
    MATCHES = [
        Example("""
            from demo.bus import EventBus, Point

            def check(**kw):
                pass

            bus = EventBus()
            bus._named[Point.BEFORE] = check
            """, ((7, "_named[]", "BEFORE", "check"),)),
    ]
    LOOKALIKES = [
        Example("""
            from demo.bus import Point

            class Table:
                def __init__(self):
                    self._named = {}

            def check(**kw):
                pass

            Table()._named[Point.BEFORE] = check
            """),
    ]

    def words(self, form: RegistrationForm):
        return [("item_attrs", form.name)]

    def match(self, m: Matching, facts: FileFacts, site: Site) -> Iterator[Match]:
        target = site.func
        if site.kind != "assign" or target[0] != "sub" or target[1][0] != "attr":
            return
        mapping, key = target[1], target[2]
        owner = mapping[1]
        for mech, form in m.forms.forms(self.kind, mapping[2]):
            ids = m.identity.ids(form.owner) if form.owner else m.identity.dispatcher_ids(mech)
            found = m.identity.status(m.ev.eval(owner, facts.module, site.scope), ids)
            status, why = found.status, found.why
            arg = site.args[0]
            if arg.ref == ("const", "None"):
                return  # clearing an entry registers nothing
            if status == "unknown" and m.build.looks_callable(arg, facts, site):
                status = "unresolved"
                why = f"not inferable ({why}); a callable is stored in .{form.name}[...]"
            elif status not in ("match", "dynamic"):
                continue
            flags, note = owner_flags(m, self.kind, form.name, mech, status)
            why += note
            point = m.points.normalize_point(
                m.ev.eval(key, facts.module, site.scope), mech, render(key))
            flags = [*flags, *point.flags]
            handler = m.build.handler(arg.ref, arg.text, facts, site)
            yield m.build.match(facts, site, mech, form, f"{form.name}[]", point.name, point.note,
                                handler,
                                "high" if not flags else "low",
                                [f"{render(owner)} is {why}",
                                 f"stores into the {form.name} mapping under {render(key)}"],
                                flags, handler_arg=arg, receiver=owner)
