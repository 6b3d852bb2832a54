"""``bus.on(point, handler)``: a method called on a dispatcher (also ``@bus.on(point)``, and
through a bound-method alias such as ``register = bus.on``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...packs.model import ArgSpec, Mechanism, RegistrationForm
from ...types import Handler
from ..extract.facts import FileFacts, Ref, Site
from ..extract.refs import render
from ..link.match.candidates import NOT_GIVEN
from .base import Example, Matching, Shape, register

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..link.evaluate.values import Values
    from ..link.match.candidates import Match

Unknown = list[tuple[Mechanism, RegistrationForm, str]]


@register
class MethodShape(Shape):
    kind = "method"
    options = ("point", "handler", "fixed_point", "conditions", "distinctive", "decorates")
    needs_dispatcher = True
    order = 10
    MATCHES = [
        Example("""
            from demo.bus import EventBus, Point

            def log(**kw):
                pass

            bus = EventBus()
            bus.on(Point.AFTER, log)
            register = bus.on
            register(Point.BEFORE, log)
            """, ((7, "on", "AFTER", "log"), (9, "on", "BEFORE", "log"))),
    ]
    LOOKALIKES = [
        Example("""
            class Other:
                def on(self, point, handler):
                    pass

            Other().on("x", print)
            """),
    ]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for option in ("distinctive", "decorates"):
            value = data.get(option, False)
            if not isinstance(value, bool):
                raise reader.fail(f"{key}.{option}", "expected true or false")
            out[option] = value
        if out["decorates"] and data.get("handler") is not None:
            raise reader.fail(f"{key}.handler", "a decorator's handler is what it decorates")
        if data.get("handler") is None and not out["decorates"]:
            out["handler"] = ArgSpec(index=0)
        return out

    def words(self, form: RegistrationForm):
        return [("calls", form.name.rsplit(".", 1)[-1])]

    def match(self, m: Matching, facts: FileFacts, site: Site) -> Iterator[Match]:
        func = site.func
        if site.kind == "assign":
            return
        if func[0] == "attr":
            if not m.forms.forms(self.kind, func[2]):
                return
            envs = m.tables.bindings(facts.module, site, [], receiver=func[1]) \
                if func[1][0] == "name" and site.loops else None
            for env in envs or ():  # `for sig in (post_save, post_delete): sig.connect(h)`
                bound = m.tables.bound_site(site, env)
                for match in self._methods(m, facts, bound, func[2], bound.func[1]):
                    match.evidence.append(m.tables.describe(env))
                    yield match
            if not envs:
                yield from self._methods(m, facts, site, func[2], func[1])
        elif func[0] in ("name", "call") and m.forms.keyed.get(self.kind):
            # `register = bus.on; register(...)` or `getattr(bus, "on")(...)`: a bound method
            for value in m.ev.eval(func, facts.module, site.scope):
                if value[0] == "bound" and m.forms.forms(self.kind, value[2]):
                    yield from self._methods(m, facts, site, value[2], func,
                                             frozenset({("inst", value[1])}))

    def _methods(self, m: Matching, facts: FileFacts, site: Site, method: str, receiver: Ref,
                 values: Values | None = None) -> Iterator[Match]:
        if values is None:
            values = m.ev.eval(receiver, facts.module, site.scope)
        unknown: Unknown = []
        for mech, form in m.forms.forms(self.kind, method):
            if form.decorates and site.kind != "decorator":
                continue  # `deco = sig.connect_via(app)`: nothing decorated yet
            receiver_is = m.identity.dispatcher(values, mech)
            status, why = receiver_is.status, receiver_is.why
            if status == "match":
                yield from self._each_entry(m, facts, site, mech, form, receiver,
                                            [f"{render(receiver)} is {why}"], [], "high")
            elif status == "dynamic":
                yield self._match(m, facts, site, mech, form, receiver,
                                  [f"receiver {render(receiver)} is dynamic ({why})"],
                                  ["dynamic_receiver"], "low")
            elif status == "unknown" or (form.distinctive and status == "other" and all(
                    v[0] == "ext" for v in values)):  # (a library's object, its code not in view)
                unknown.append((mech, form, why))
        if unknown and _forwards_params(m, facts, site, receiver):
            # a helper handed its dispatcher, point and handler by its caller: the linker turns
            # it into a derived registration API and resolves the dispatcher at each call site
            mech, form, why = unknown[0]
            yield self._match(m, facts, site, mech, form, receiver,
                              [f"receiver {render(receiver)} is a parameter ({why})"],
                              ["unresolved_receiver"], "medium")
            return
        yield from self._untyped(m, facts, site, method, receiver, unknown)

    def _untyped(self, m: Matching, facts: FileFacts, site: Site, method: str, receiver: Ref,
                 unknown: Unknown) -> Iterator[Match]:
        """A receiver with no inferable type: its point argument, or a callable handed over,
        keeps the site (with what is not certain said); anything else is a look-alike."""
        # a point argument that only one of the mechanisms has names the mechanism
        named = [(mech, form, why) for mech, form, why in unknown
                 if m.points.point_of(facts, site, mech, form).member]
        corroborated = len({mech.id for mech, _, _ in named}) == 1
        for mech, form, why in named if corroborated else ():
            yield self._match(
                m, facts, site, mech, form, receiver,
                [f"receiver {render(receiver)} is not inferable ({why}); its point argument "
                 f"is a {mech.id} point"], ["unresolved_receiver"], "medium")
        distinctive = [(mech, form, why) for mech, form, why in unknown if form.distinctive]
        if len(distinctive) == 1 and not corroborated:  # `@identity_loaded.connect_via(app)`
            mech, form, why = distinctive[0]
            match = self._match(m, facts, site, mech, form, receiver, [
                f"receiver {render(receiver)} is not inferable ({why}); .{method}() is spelled "
                f"by {mech.id} alone"], [], "medium")
            if site.kind == "decorator" or match.handler_arg is not None:
                yield match
                return
        if unknown and not corroborated:
            mech, form, why = unknown[0]
            match = self._match(m, facts, site, mech, form, receiver, [], [], "low")
            if match.handler_arg is not None and m.build.looks_callable(match.handler_arg, facts,
                                                                        site):
                names = ", ".join(mech.id for mech, _, _ in unknown)
                match.evidence = [f"receiver {render(receiver)} is not inferable ({why}); "
                                  f".{method}() is a registration API of {names}"]
                match.flags = ["receiver_unknown"]
                yield match

    def _each_entry(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                    form: RegistrationForm, receiver: Ref, evidence: list[str],
                    flags: list[str], confidence: str) -> Iterator[Match]:
        """One match, or, when the arguments come from loops over literal tables, one per
        entry of the tables (each with its point and handler read from the entry)."""
        envs = m.tables.bindings(facts.module, site, list(site.args)) if site.args else None
        if not envs:
            yield self._match(m, facts, site, mech, form, receiver, evidence, flags, confidence)
            return
        for env in envs:
            yield self._match(m, facts, m.tables.bound_site(site, env), mech, form, receiver,
                              [*evidence, m.tables.describe(env)], flags, confidence)

    @staticmethod
    def _match(m: Matching, facts: FileFacts, site: Site, mech: Mechanism, form: RegistrationForm,
               receiver: Ref, evidence: list[str], flags: list[str], confidence: str) -> Match:
        point = m.points.point_of(facts, site, mech, form)
        flags = [*flags, *point.flags]
        handler_arg = None
        if site.kind == "decorator":
            handler = m.build.decorated(facts, site)
            evidence = [*evidence, f"decorates {site.decorated}"]
        else:
            handler_arg = m.build.arg(site, form.handler)
            if handler_arg is None:
                handler = Handler(NOT_GIVEN)
                flags = [*flags, "handler_not_given"]
            else:
                handler = m.build.handler(handler_arg.ref, handler_arg.text, facts, site)
        return m.build.match(facts, site, mech, form, form.name, point.name, point.note, handler,
                             confidence, evidence, flags, handler_arg=handler_arg,
                             receiver=receiver)


def _forwards_params(m: Matching, facts: FileFacts, site: Site, receiver: Ref) -> bool:
    """Is the receiver, and some other argument, a parameter of the enclosing function?"""
    func = m.ev.index.functions.get(f"{facts.module}.{site.scope}")
    if func is None or receiver[0] != "name":
        return False
    names = {p.name for p in func.params if p.kind not in ("self", "cls")}
    others = {a.ref[1] for a in site.args if a.ref[0] == "name"}
    return receiver[1] in names and bool(others & names)
