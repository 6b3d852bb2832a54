"""Emission sites: calls that fire a mechanism's handlers (for dormant points and inventories)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ....packs.model import EmissionForm, Mechanism
from ...extract.facts import CallRow, FileFacts, Function, Ref, Site, call_rows
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
    dropped: bool = False  # the call is a statement of its own: what the handlers return is lost


class Emissions:
    """Calls that fire a mechanism: an emitting method on its dispatcher, or an emitting function."""

    def __init__(self, evaluator: Evaluator, identity: Identity, points: Points,
                 forms: FormIndex) -> None:
        self.ev, self.identity, self.points, self.forms = evaluator, identity, points, forms

    def emissions(self, facts: FileFacts) -> Iterator[RawEmission]:
        """The file's emissions, each saying whether its call's result is dropped (read from the
        call's row)."""
        dropped: set[tuple[int, int]] | None = None  # where a site's call drops its result
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
                if dropped is None:
                    dropped = {(row[2], row[3]) for row in call_rows(facts) if row[8]}
                yield RawEmission(facts.path, site.line, site.col, site.scope, facts.module, mech,
                                  em.name, point, dynamic, site.end_line, site.end_col,
                                  (site.line, site.col) in dropped)
        if self.forms.emit_by_relay and not facts.loaded_attrs.isdisjoint(
                self.forms.emit_by_relay):
            yield from self._relayed(facts)
        aliases = method_aliases(facts, self.forms.emit_by_method)
        if aliases:
            yield from self._aliased(facts, aliases)

    def _aliased(self, facts: FileFacts, aliases: dict[tuple[str, str], Ref]
                 ) -> Iterator[RawEmission]:
        """``send_prerun = signals.task_prerun.send`` ... ``send_prerun(sender=task)`` (Celery's
        hot path): a call of a local bound to an emitting method of the dispatcher."""
        functions = {f.qualname: f for f in facts.functions}
        for row in call_rows(facts):
            func, scope = row[0], row[1]
            if func[0] != "name":
                continue
            key = _bound_where(func[1], scope, aliases, functions)
            if key is None:
                continue
            method = aliases[key]
            recv = self.ev.eval(method[1], facts.module, key[0])
            for mech, em in self.forms.emit_by_method[method[2]]:
                if self.identity.dispatcher(recv, mech).status != "match":
                    continue
                point = None
                if em.point is not None and em.point.receiver:
                    point = self.points.receiver_point(facts, method[1]).name
                yield RawEmission(facts.path, row[2], row[3], scope, facts.module, mech,
                                  em.name, point, point is None and em.point is not None,
                                  row[4], row[5], row[8])
                break

    def _relayed(self, facts: FileFacts) -> Iterator[RawEmission]:
        """``pm.hook.NAME(...)``, ``hook.NAME.call_historic(...)``: a hook called through the
        attribute holding a plugin manager's hooks, NAME the point. It is the mechanism's when
        the relay's owner is its dispatcher, or when NAME starts with the form's prefix."""
        bound = method_aliases(facts, self.forms.emit_by_relay)  # `hooks = pm.hook`
        functions = {f.qualname: f for f in facts.functions} if bound else {}
        for row in call_rows(facts):
            relayed = _relay_call(row)
            if relayed is None:
                continue
            owner, relay, name = relayed
            key = _bound_where(relay, row[1], bound, functions) if owner is None else None
            if key is not None:  # a local: the relay and owner it was bound to
                owner, relay = bound[key][1], bound[key][2]
            for mech, em in self.forms.emit_by_relay.get(relay, ()):
                if not (em.prefix and name.startswith(em.prefix)) and not (
                        owner is not None and self.identity.dispatcher(
                            self.ev.eval(owner, facts.module, row[1]), mech).status == "match"):
                    continue
                yield RawEmission(facts.path, row[2], row[3], row[1], facts.module, mech,
                                  f"{relay}.{name}", name, False, row[4], row[5], row[8])
                break

    def _emits_own_point(self, facts: FileFacts, site: Site, mech: Mechanism,
                         em: EmissionForm) -> bool:
        """An untyped receiver emitting one of the mechanism's own points is that mechanism."""
        args = args_for(site, em.point)
        if not args or not mech.points:
            return False
        values = self.ev.eval(args[0].ref, facts.module, site.scope)
        return bool(self.points.normalize_point(values, mech, args[0].text).member)


_HOOK_CALLERS = frozenset({"call_historic", "call_extra"})  # (HookCaller methods)


def _relay_call(row: CallRow) -> tuple[Ref | None, str, str] | None:
    """(the relay's owner, the relay, the hook's name) of ``owner.relay.name(...)``,
    ``relay.name(...)`` (a local holding it) or ``owner.relay.name.call_historic(...)``."""
    func = row[0]
    if func[0] != "attr":
        return None
    if func[2] in _HOOK_CALLERS and func[1][0] == "attr":
        func = func[1]
    base, name = func[1], func[2]
    if name.startswith("_"):
        return None
    if base[0] == "attr":
        return base[1], base[2], name
    if base[0] == "name":
        return None, base[1], name
    return None


def method_aliases(facts: FileFacts, methods: Mapping[str, object]) -> dict[tuple[str, str], Ref]:
    """(scope, local name) -> ``X.m`` for each name bound to an attribute ``m`` in *methods*
    (``send = sig.send``), at module level or in a function: only the scopes the file's
    ``attr_aliases`` name are read."""
    scopes = {scope for attr, scope in facts.attr_aliases if attr in methods}
    if not scopes:
        return {}
    out = {("", name): ref for name, ref in facts.bindings
           if ref[0] == "attr" and ref[2] in methods} if "" in scopes else {}
    for func in facts.functions:
        if func.qualname in scopes:
            for name, ref in func.bindings:
                if ref[0] == "attr" and ref[2] in methods:
                    out[(func.qualname, name)] = ref
    return out


def _bound_where(name: str, scope: str, aliases: Mapping[tuple[str, str], Ref],
                 functions: Mapping[str, Function]) -> tuple[str, str] | None:
    """The alias *name* means in *scope*: the nearest enclosing scope binding it, if that
    binding is the alias (a parameter or another local of that name shadows it)."""
    for where in _enclosing(scope):
        if (where, name) in aliases:
            return where, name
        func = functions.get(where)
        if func is not None and (any(p.name == name for p in func.params)
                                 or any(bound == name for bound, _ in func.bindings)):
            return None
    return None


def _enclosing(scope: str) -> Iterator[str]:
    """*scope* and the scopes around it, the module ("") last."""
    while scope:
        yield scope
        scope = scope.rpartition(".")[0]
    yield ""
