"""``bus.gate = check``: a single-slot setter on a dispatcher (a gate, a processor)."""

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
class AssignShape(Shape):
    kind = "assign"
    options = ("owner", "fixed_point")
    needs_dispatcher = True
    order = 30
    MATCHES = [
        Example("""
            from demo.bus import EventBus

            def allow(payload):
                return True

            bus = EventBus()
            bus.gate = allow
            """, ((7, "gate", "GATE", "allow"),)),
    ]
    LOOKALIKES = [
        Example("""
            from demo.bus import EventBus

            bus = EventBus()
            bus.gate = None  # clearing a slot registers nothing
            """),
    ]

    def words(self, form: RegistrationForm):
        return [("assign_attrs", form.name)]

    def match(self, m: Matching, facts: FileFacts, site: Site) -> Iterator[Match]:
        if site.kind != "assign" or site.func[0] != "attr":
            return
        owner = site.func[1]
        for mech, form in m.forms.forms(self.kind, site.func[2]):
            ids = m.identity.ids(form.owner) if form.owner else m.identity.dispatcher_ids(mech)
            found = m.identity.status(m.ev.eval(owner, facts.module, site.scope), ids)
            status, why = found.status, found.why
            arg = site.args[0]
            if arg.ref == ("const", "None"):
                return  # clearing a slot registers nothing
            if status == "unknown" and m.build.looks_callable(arg, facts, site):
                status = "unresolved"
                why = f"not inferable ({why}); a callable is stored in .{form.name}"
            elif status not in ("match", "dynamic"):
                continue
            flags, note = owner_flags(m, self.kind, form.name, mech, status)
            handler = m.build.handler(arg.ref, arg.text, facts, site)
            yield m.build.match(facts, site, mech, form, form.name, form.fixed_point, None,
                                handler, "high" if not flags else "low",
                                [f"{render(owner)} is {why}{note}",
                                 f"assigns the {form.name} slot"],
                                flags, handler_arg=arg, receiver=owner)
