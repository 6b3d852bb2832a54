"""``bus._callbacks.append(handler)``: a callback list of the dispatcher (also ``extend``,
``insert`` and ``+=``, through properties that return the list, queued ``(point, handler)``
tuples, and, with ``keyed: true``, the buckets of a mapping of lists whose key is the point:
``spec.hooks.setdefault(key, []).append(handler)``, ``spec.hooks[key].insert(0, handler)``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...packs.model import Mechanism, RegistrationForm
from ...types import Handler
from ..extract.facts import Arg, FileFacts, Ref, Site
from ..extract.refs import render
from ..extract.sites import LIST_METHODS
from ..link.evaluate.values import untyped
from ..link.match.identity import Receiver, short
from ..link.match.points import ResolvedPoint
from .base import Example, Matching, Shape, owner_flags, register

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..link.match.candidates import Match


@register
class AppendShape(Shape):
    kind = "append"
    options = ("owner", "item", "fixed_point", "keyed")
    needs_dispatcher = True
    order = 20
    MATCHES = [
        Example("""
            from demo.bus import EventBus

            def cb(event):
                pass

            bus = EventBus()
            bus._callbacks.append(cb)
            bus._callbacks.insert(0, cb)
            bus._callbacks += [cb]
            """, ((7, "_callbacks.append", None, "cb"), (8, "_callbacks.insert", None, "cb"),
                  (9, "_callbacks +=", None, "cb"))),
        Example("""
            from demo.bus import EventBus

            def guard(**kw):
                pass

            bus = EventBus()
            bus._buckets.setdefault("pre:*", []).insert(0, guard)
            bus._buckets["post:read"].append(guard)
            """, ((7, "_buckets.insert", "pre:*", "guard"),
                  (8, "_buckets.append", "post:read", "guard"))),
    ]
    LOOKALIKES = [
        Example("""
            class Log:
                def __init__(self):
                    self._callbacks = []

            def cb(event):
                pass

            Log()._callbacks.append(cb)
            """),
    ]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        raw = data.get("item")
        if raw is None:
            return {}
        raw = reader.mapping(raw, f"{key}.item", ("point", "handler"))
        if not all(isinstance(raw.get(k), int) for k in ("point", "handler")):
            raise reader.fail(f"{key}.item", "expected integer `point` and `handler` positions")
        return {"item": (raw["point"], raw["handler"])}

    def words(self, form: RegistrationForm):
        return [("list_attrs", form.name)]

    def match(self, m: Matching, facts: FileFacts, site: Site) -> Iterator[Match]:
        func = site.func
        if site.kind == "augassign":
            receiver, method = func, "+="
        elif site.kind == "call" and func[0] == "attr" and func[2] in LIST_METHODS:
            receiver, method = func[1], func[2]
        else:
            return
        list_ref, key = _bucket(receiver)
        if list_ref[0] != "attr":
            return
        for mech, form in m.forms.forms(self.kind, list_ref[2]):
            if (key is not None) == form.keyed:
                yield from self._append(m, facts, site, mech, form, list_ref, method, key)

    def list_status(self, m: Matching, list_ref: Ref, form: RegistrationForm, mech: Mechanism,
                    module: str, scope: str, depth: int = 0) -> Receiver:
        """Is *list_ref* the callback list of the form, directly or through a property?"""
        if list_ref[0] != "attr" or depth > 3:
            return Receiver("other", "")
        owner, name = list_ref[1], list_ref[2]
        values = m.ev.eval(owner, module, scope)
        if name == form.name:
            ids = m.identity.ids(form.owner) if form.owner else m.identity.dispatcher_ids(mech)
            found = m.identity.status(values, ids)
            return Receiver(found.status, f"{render(owner)} is {found.why}")
        for value in values:
            if value[0] != "inst":
                continue
            qn = m.ev.method(value[1], name)
            func = m.ev.index.functions.get(qn) if qn else None
            if func is None or func.kind != "property":
                continue
            fmodule, fscope = m.ev.index.function_scope(qn)
            for ref in func.return_values:
                found = self.list_status(m, ref, form, mech, fmodule, fscope, depth + 1)
                if found.status == "match":
                    return Receiver("match",
                                    f"{found.why}, reached through property {short(value)}.{name}")
        return Receiver("other", "")

    def _append(self, m: Matching, facts: FileFacts, site: Site, mech: Mechanism,
                form: RegistrationForm, list_ref: Ref, method: str,
                key: Ref | None) -> Iterator[Match]:
        found = self.list_status(m, list_ref, form, mech, facts.module, site.scope)
        status, why = found.status, found.why
        if status == "other" and _owner_unknown(m, list_ref, facts, site):
            # the list's own name is the pack's callback list (or a property over it), but its
            # owner cannot be typed: keep the site for review rather than drop it
            status, why = "unresolved", f"{render(list_ref[1])} is not inferable"
        if status not in ("match", "dynamic", "unresolved"):
            return
        positional = [a for a in site.args if a.name is None]
        arg = positional[-1] if positional else None
        flags, note = owner_flags(m, self.kind, list_ref[2], mech, status)
        where = f"the {form.name} callback list" if key is None else (
            f"the {render(key)} bucket of {form.name}")
        evidence = [why + note, f"{method} onto {where}"]
        api = f"{form.name} +=" if method == "+=" else f"{form.name}.{method}"
        confidence = "high" if not flags else "low"
        if form.item is not None:
            envs = m.tables.bindings(facts.module, site, [arg]) if arg is not None else None
            for env in envs or [{}]:
                bound = m.tables.bound_site(site, env) if env else site
                yield _tuple_item(m, facts, bound, mech, form,
                                  [a for a in bound.args if a.name is None][-1], api,
                                  [*evidence, m.tables.describe(env)] if env else evidence,
                                  flags, confidence)
            return
        point = ResolvedPoint(form.fixed_point)
        if key is not None:
            values = m.ev.eval(key, facts.module, site.scope)
            point = m.points.normalize_point(values, mech, render(key))
            flags = [*flags, *point.flags]
        for ref, text in m.build.handler_items(arg, many=method in ("extend", "+=")):
            handler = m.build.handler(ref, text, facts, site)
            yield m.build.match(facts, site, mech, form, api, point.name, point.note, handler,
                                confidence, list(evidence), list(flags), handler_arg=arg,
                                receiver=list_ref)


def _bucket(ref: Ref) -> tuple[Ref, Ref | None]:
    """(the attribute holding the list, the bucket's key): ``x.hooks.setdefault(k, [])`` and
    ``x.hooks[k]`` are the bucket *k* of the mapping ``x.hooks``; ``x.cbs`` is a plain list."""
    if ref[0] == "call" and ref[1][0] == "attr" and ref[1][2] == "setdefault" and ref[2]:
        return ref[1][1], ref[2][0]
    if ref[0] == "sub":
        return ref[1], ref[2]
    return ref, None


def _owner_unknown(m: Matching, list_ref: Ref, facts: FileFacts, site: Site) -> bool:
    return untyped(m.ev.eval(list_ref[1], facts.module, site.scope))


def _tuple_item(m: Matching, facts: FileFacts, site: Site, mech: Mechanism, form: RegistrationForm,
                arg: Arg | None, api: str, evidence: list[str], flags: list[str],
                confidence: str) -> Match:
    """``entries.append((point, handler))``: a queue of registrations flushed later."""
    assert form.item is not None
    point_pos, handler_pos = form.item
    if arg is None or arg.ref[0] != "seq" or len(arg.ref[2]) <= max(point_pos, handler_pos):
        text = arg.text if arg is not None else "<missing>"
        return m.build.match(facts, site, mech, form, api, None,
                             f"queued entry {text} is not a literal tuple", Handler(text), "low",
                             evidence, flags, handler_arg=arg)
    items = arg.ref[2]
    values = m.ev.eval(items[point_pos], facts.module, site.scope)
    point = m.points.normalize_point(values, mech, render(items[point_pos]))
    flags = [*flags, *point.flags]
    handler_ref = items[handler_pos]
    handler = m.build.handler(handler_ref, render(handler_ref), facts, site)
    return m.build.match(facts, site, mech, form, api, point.name, point.note, handler,
                         confidence, evidence, flags,
                         handler_arg=Arg(None, handler_ref, render(handler_ref)))
