"""Assembling the link: the candidates of every unit, each mechanism's forwarders and points."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from ...packs.model import Mechanism, RegistrationForm
from .activations import activations_of
from .candidate import Call, Candidate
from .index import ProjectIndex
from .match.effects import RAISES, RETURNS
from .match.emissions import RawEmission
from .match.tables import TABLE_ENTRY
from .match.matcher import Matcher
from .match.plugins import spec_plugins

if TYPE_CHECKING:
    from .unit import Unit


def candidates_of(units: dict[str, Unit]) -> list[Candidate]:
    """Every unit's candidates, once each; a forwarder's own site stands in for absent callers."""
    used = frozenset().union(*(u.used for u in units.values()))
    kept: list[Candidate] = []
    for path in sorted(units):
        for cand, form in units[path].entries:
            if form is None:
                kept.append(cand)
            elif form not in used:
                kept.append(replace(
                    cand, flags=(*cand.flags, "forwarder_without_callers"),
                    evidence=(*cand.evidence, f"{form.name} forwards its parameters here and "
                              "nothing in the scanned tree calls it, so this site stands for "
                              "its future callers")))
    return _dedupe(kept)


def with_activations(candidates: list[Candidate], units: dict[str, Unit],
                     reexports: Callable[[str], frozenset[str]] = lambda plugin: frozenset(),
                     ) -> list[Candidate]:
    """Each candidate made in a helper, with the calls that activate it; a hook implementation,
    with the calls registering its plugin. An unmarked one (taken by its name: confidence
    medium) of a module or class the project adds as specs (``pm.add_hookspecs(hooks)``) and
    registers nowhere is a spec, and goes (registered too, pytest reads it as both)."""
    calls: dict[str, list[Call]] = {}
    for unit in units.values():
        for call in unit.calls:
            calls.setdefault(call.helper, []).append(call)
    specs = spec_plugins(c for unit in units.values() for c in unit.calls)

    def activations(c: Candidate) -> tuple:
        found = activations_of(c.helper or c.plugin, calls)
        if found or not c.plugin or not c.handler.qualname:
            return found
        # a package registered whole whose __init__ re-exports the implementation (pluggy
        # registers what the package's namespace holds: datasette's default_permissions)
        return tuple(sorted({a for plugin in calls if c.handler.qualname in reexports(plugin)
                             for a in activations_of(plugin, calls)},
                            key=lambda a: (a.file, a.line, a.col, a.helper)))

    out = [replace(c, activations=activations(c)) if c.helper or c.plugin else c
           for c in candidates]
    return [c for c in out if not (c.plugin in specs and c.via == "hookimpl"
                                   and c.confidence == "medium" and not c.activations)]


def unread_results(units: Mapping[str, Unit]) -> Callable[[Candidate], Candidate]:
    """What a handler does that no caller can meet, taken out of its effects, with why:

    - a value returned, on a point every call of which in view drops the result
      (``hooks.pytest_timeout_cancel_timer(item=item)``, a statement of its own); not on a
      firstresult hook (flagged before): there a value ends the call, whoever reads it;
    - a raise, on a point every call of which in view isolates the receivers' failures
      (Django's ``send_robust``: the exception is returned, the sender goes on).

    Known only where the point's calls are in view (the tree's or a context root's) and no call
    of the mechanism names its point dynamically (it may be any point)."""
    calls: dict[tuple[str, str], list[RawEmission]] = {}
    blind: set[str] = set()
    for path in sorted(units):
        for em in units[path].emissions:
            if em.point is None or em.dynamic:
                blind.add(em.mechanism.id)
            else:
                calls.setdefault((em.mechanism.id, em.point), []).append(em)

    def isolates(em: RawEmission) -> bool:
        return em.mechanism.policy_for(em.api.rsplit(".", 1)[-1]).get("failure") == "isolate"

    def unread(cand: Candidate) -> Candidate:
        effects = cand.handler.effects
        found = calls.get((cand.mechanism, cand.point or ""), [])
        if not (effects and found) or cand.mechanism in blind:
            return cand
        where = ", ".join(f"{em.file}:{em.line}" for em in found[:3])
        where += f" and {len(found) - 3} more" if len(found) > 3 else ""
        unmet: dict[str, str] = {}
        if RETURNS in effects and "firstresult" not in cand.flags and all(
                em.dropped for em in found):
            unmet[RETURNS] = (f"what it returns reaches no caller: every call of {cand.point} "
                              f"in view drops the result ({where})")
        if RAISES in effects and all(isolates(em) for em in found):
            unmet[RAISES] = (f"what it raises stops no caller: every call of {cand.point} in "
                             f"view isolates the receivers' failures ({where})")
        if not unmet:
            return cand
        return replace(
            cand, handler=replace(cand.handler, effects=tuple(e for e in effects
                                                              if e not in unmet)),
            evidence=(*cand.evidence, *unmet.values()))

    return unread


def forwarder_apis(units: dict[str, Unit],
                   derived: dict[str, list[RegistrationForm]]) -> dict[str, list[str]]:
    """Each mechanism's derived forms as "X (forwards to file:line)". A form derived at
    several sites is shown at the first in the tree, however the rounds or an incremental
    link happened to meet them."""
    first: dict[RegistrationForm, str] = {}
    for unit in units.values():
        for _, form in unit.entries:
            if form is not None:
                first[form] = min(first.get(form, form.forwards), form.forwards,
                                  key=_site_order)
    return {mech: [f"{f.name} (forwards to {first.get(f, f.forwards)})" for f in forms]
            for mech, forms in derived.items()}


def dormant_points(candidates: list[Candidate], raw_emissions: list[RawEmission],
                   classes: dict[str, list[str]], mechanisms: list[Mechanism],
                   index: ProjectIndex, matcher: Matcher) -> dict[str, set[str]]:
    """Points registered on but never emitted, and the points the pack declares dormant. A
    point is inferred dormant only where an emitter of the mechanism is in view (its emitting
    method or function is in the tree or a context root): without it nothing can be known."""
    registered: dict[str, set[str]] = {}
    emitted: dict[str, set[str]] = {}
    for cand in candidates:
        registered.setdefault(cand.mechanism, set()).update(
            part for part in (cand.point or "").split("+") if part)
    blind: set[str] = set()
    for em in raw_emissions:
        owner = index.enclosing_class(em.module, em.scope) or ""
        if em.dynamic and owner not in classes[em.mechanism.id]:
            blind.add(em.mechanism.id)  # a dynamic emission may fire any point
        if em.point:
            emitted.setdefault(em.mechanism.id, set()).add(em.point)
    out: dict[str, set[str]] = {}
    for mech in mechanisms:
        declared = set(mech.dormant_points)
        inferred: set[str] = set()
        if (mech.id not in blind and any(e.point for e in mech.emissions)
                and emitter_in_view(mech, classes[mech.id], index, matcher)):
            members = matcher.enum_members(mech)
            names = None if members is None else {name for name, _ in members}
            inferred = {
                point for point in registered.get(mech.id, set()) - emitted.get(mech.id, set())
                if names is None or point in names  # a slot's fixed point is no emit key
            }
        out[mech.id] = declared | inferred
    return out


def emitter_in_view(mech: Mechanism, classes: list[str], index: ProjectIndex,
                    matcher: Matcher) -> bool:
    """Is the code that emits the mechanism's points in view: an emitting method defined on one
    of its dispatcher classes, or an emitting function?"""
    for em in mech.emissions:
        if em.kind == "method":
            if any((qn := matcher.ev.method(cls, em.name)) is not None and qn in index.functions
                   for cls in classes if cls in index.classes):
                return True
        elif any(n in index.functions for n in matcher.identity.ids((em.name,))):
            return True
    return False


def _site_order(where: str) -> tuple[str, int]:
    """"path:line" in tree order (line 10 after line 9)."""
    path, _, line = where.rpartition(":")
    return path, int(line) if line.isdigit() else 0


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per (site, mechanism, handler, point): two forms may see the same call (the
    first form in pack order wins); then in report order, by the registering node."""
    kept: dict[tuple, Candidate] = {}
    others: dict[tuple, list[str]] = {}  # the table entries a kept candidate stands for too
    for cand in sorted(candidates, key=lambda c: (c.file, *c.site, c.mechanism, c.handler.expr)):
        if cand.key not in kept:
            kept[cand.key] = cand
            continue
        entry = next((e for e in cand.evidence if e.startswith(TABLE_ENTRY)), None)
        if entry is not None and entry not in kept[cand.key].evidence:
            others.setdefault(cand.key, []).append(entry[len(TABLE_ENTRY):])
    out = [replace(c, evidence=(*c.evidence, "the same registration for the table's other "
                                f"entries: {'; '.join(dict.fromkeys(others[key]))}"))
           if key in others else c for key, c in kept.items()]
    return sorted(out, key=lambda c: c.sort_key)
