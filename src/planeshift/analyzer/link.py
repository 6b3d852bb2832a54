"""Link: the one place that sees the whole project.

It builds the project index and the evaluator, matches every file's sites against the packs,
draws the inheritance graph (to find dispatcher subclasses) and the registration -> point ->
emission graph (to find dormant points), and infers each mechanism's dispatch policy from the
dispatcher's own loops.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import networkx as nx

from ..rules.classify import classify
from ..rules.packs import Mechanism, Pack
from ..rules.policy import infer_from_loops, merge
from ..types import Emission, MechanismSummary, Registration
from .facts import FileFacts
from .infer import Evaluator
from .match import Matcher
from .names import ProjectIndex


@dataclass
class Linked:
    registrations: list[Registration]
    emissions: list[Emission]
    mechanisms: list[MechanismSummary]
    index: ProjectIndex
    evaluator: Evaluator
    policies: dict[str, dict[str, str]] = field(default_factory=dict)
    dormant: dict[str, set[str]] = field(default_factory=dict)


class Linker:
    def __init__(self, files: Iterable[FileFacts], packs: tuple[Pack, ...]) -> None:
        self.files = [f for f in files if f.error is None or f.sites or f.functions]
        self.packs = packs
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.index = ProjectIndex(self.files)
        known = {n for m in self.mechanisms for n in (*m.dispatchers, *m.aliases)}
        self.evaluator = Evaluator(self.index, known_classes=known)
        for mech in self.mechanisms:
            for factory in mech.factories:
                self.evaluator.factories[factory] = mech.dispatchers[0]
        self.matcher = Matcher(packs, self.evaluator)

    # -- graphs -------------------------------------------------------------------------------
    def inheritance(self) -> nx.DiGraph:
        """subclass -> base edges over every project class (bases may be external names)."""
        graph = nx.DiGraph()
        for cls in self.index.classes:
            graph.add_node(cls)
            for base in self.evaluator.mro(cls)[1:]:
                graph.add_edge(cls, base)
        return graph

    def dispatcher_classes(self, graph: nx.DiGraph, mech: Mechanism) -> list[str]:
        roots = [c for c in self.matcher.dispatcher_ids(mech) if c in graph]
        found = set(roots)
        for root in roots:
            found |= nx.ancestors(graph, root)  # every class with a path to the dispatcher
        return sorted(found)

    # -- the run ------------------------------------------------------------------------------
    def link(self) -> Linked:
        graph = self.inheritance()
        policies: dict[str, dict[str, str]] = {}
        policy_notes: dict[str, list[str]] = {}
        classes: dict[str, list[str]] = {}
        for mech in self.mechanisms:
            classes[mech.id] = self.dispatcher_classes(graph, mech)
            inferred, evidence = infer_from_loops(self._loops(classes[mech.id]))
            policies[mech.id], notes = merge(mech.policy_map, inferred)
            source = [f"declared in pack {mech.pack}: {mech.policy_evidence}"] if mech.policy else []
            policy_notes[mech.id] = source + evidence + notes

        registrations: list[Registration] = []
        raw_emissions = []
        for facts in sorted(self.files, key=lambda f: f.path):
            if not facts.sites:
                continue
            for cand in self.matcher.registrations(facts):
                registrations.append(classify(cand, policies[cand.mechanism.id]))
            raw_emissions.extend(self.matcher.emissions(facts))
        registrations = _dedupe(registrations)
        emissions = [
            Emission(e.file, e.line, e.col, e.mechanism.id, e.api, e.point, e.scope)
            for e in raw_emissions
        ]
        dormant = self._dormant(registrations, raw_emissions, classes)
        registrations = [
            replace(r, flags=(*r.flags, "dormant_point"))
            if r.point and set(r.point.split("+")) <= dormant.get(r.mechanism, set()) else r
            for r in registrations
        ]
        summaries = [
            self._summary(mech, classes[mech.id], registrations, emissions, policies[mech.id],
                          policy_notes[mech.id], dormant.get(mech.id, set()))
            for mech in self.mechanisms
        ]
        return Linked(registrations, emissions, summaries, self.index, self.evaluator,
                      policies, dormant)

    def _loops(self, classes: list[str]):
        for cls in classes:
            if cls not in self.index.classes:
                continue
            prefix = cls + "."
            for qn, func in self.index.functions.items():
                if qn.startswith(prefix) and func.loop is not None:
                    yield qn[len(self.index.class_module[cls]) + 1:], func

    def _dormant(self, registrations, raw_emissions, classes) -> dict[str, set[str]]:
        """Points registered on but never emitted (only where the dispatcher's project is scanned)."""
        graph = nx.DiGraph()
        for i, reg in enumerate(registrations):
            for part in (reg.point or "").split("+"):
                if part:
                    graph.add_edge(("reg", i), ("point", reg.mechanism, part))
        blind: set[str] = set()
        for j, em in enumerate(raw_emissions):
            owner = self.index.enclosing_class(*self._module_scope(em.file, em.scope)) or ""
            if em.dynamic and owner not in classes[em.mechanism.id]:
                blind.add(em.mechanism.id)  # a dynamic emission may fire any point
            if em.point:
                graph.add_edge(("point", em.mechanism.id, em.point), ("emit", j))
        out: dict[str, set[str]] = {}
        for mech in self.mechanisms:
            declared = set(mech.dormant_points)
            local = any(c in self.index.classes for c in classes[mech.id])
            inferred: set[str] = set()
            if local and mech.id not in blind and mech.emissions:
                inferred = {
                    node[2] for node in graph.nodes
                    if node[0] == "point" and node[1] == mech.id and graph.out_degree(node) == 0
                }
            out[mech.id] = declared | inferred
        return out

    def _module_scope(self, path: str, scope: str) -> tuple[str, str]:
        facts = self.index.files.get(path)
        return (facts.module if facts else ""), scope

    def _summary(self, mech, classes, registrations, emissions, policy, notes, dormant):
        mine = [r for r in registrations if r.mechanism == mech.id]
        planes = Counter(r.plane for r in mine)
        emitted = sorted({e.point for e in emissions if e.mechanism == mech.id and e.point})
        return MechanismSummary(
            id=mech.id,
            title=mech.title,
            dispatcher=tuple(dict.fromkeys([*mech.dispatchers, *classes])),
            registration_apis=tuple(dict.fromkeys(s.name for s in mech.registrations)),
            emission_apis=tuple(dict.fromkeys(e.name for e in mech.emissions)),
            registrations=len(mine),
            planes=tuple(sorted(planes.items())),
            policy=tuple(sorted(policy.items())),
            policy_evidence=tuple(notes),
            pack=mech.pack,
            dormant_points=tuple(sorted(dormant)),
            emitted_points=tuple(emitted),
        )


def _dedupe(registrations: list[Registration]) -> list[Registration]:
    """One registration per (site, mechanism, handler, point): two forms may see the same call."""
    seen: set[tuple] = set()
    out: list[Registration] = []
    for reg in sorted(registrations, key=lambda r: r.sort_key):
        key = (reg.file, reg.line, reg.col, reg.mechanism, reg.handler.expr, reg.point)
        if key not in seen:
            seen.add(key)
            out.append(reg)
    return out
