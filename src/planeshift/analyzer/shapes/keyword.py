"""``EventBus(on_event=cb)``: a constructor (or function) keyword that takes a handler, or a
list of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...packs.model import ArgSpec, Mechanism, RegistrationForm
from ..extract.facts import FileFacts, Site
from .base import CalleeShape, Example, Matching, register

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..link.match.candidates import Match


@register
class KeywordShape(CalleeShape):
    kind = "keyword"
    options = ("callable", "point", "fixed_point", "many")
    MATCHES = [
        Example("""
            from demo.bus import EventBus

            def first(event):
                pass

            def second(event):
                pass

            bus = EventBus(on_event=[first, second])
            """, ((9, "on_event", None, "first"), (9, "on_event", None, "second"))),
    ]
    LOOKALIKES = [
        Example("""
            def run(on_event=None):
                pass

            run(on_event=print)
            """),
    ]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        return {"callables": default_callables(reader, data, key, dispatchers, self.kind)}

    def words(self, form: RegistrationForm):
        return [("keywords", form.name)]

    def applies(self, site: Site, form: RegistrationForm) -> bool:
        return site.kind != "decorator" and any(a.name == form.name for a in site.args)

    def at_call(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, evidence: list[str]) -> Iterator[Match]:
        yield from self.with_handler(m, facts, site, mech, form, evidence, [], "high",
                                     ArgSpec(keyword=form.name), at_argument=True)


def default_callables(reader: ValueReader, data: dict[str, Any], key: str,
                      dispatchers: tuple[str, ...], kind: str) -> tuple[str, ...]:
    """The callables a keyword or mapping goes to: those named, and the dispatcher (which is
    also reached through its public aliases)."""
    callables = reader.strings(data.get("callable"), f"{key}.callable")
    if not callables or set(callables) & set(dispatchers):
        callables = tuple(dict.fromkeys((*callables, *dispatchers)))
    if not callables:
        raise reader.fail(f"{key}.callable", f"a {kind} registration needs a callable")
    return callables
