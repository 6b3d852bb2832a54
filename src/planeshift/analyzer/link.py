"""Link: the one place that sees the whole project.

It builds the project index and the evaluator, matches every file's sites against the packs,
draws the inheritance graph (to find dispatcher subclasses) and the registration -> point ->
emission graph (to find dormant points), and infers each mechanism's dispatch policy from the
dispatcher's own loops.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..rules.classify import classify
from ..rules.packs import Mechanism, Pack
from ..rules.packs import Registration as RegSpec
from ..rules.policy import policy_fields, resolve
from ..types import Emission, MechanismSummary, Registration
from .emissions import RawEmission
from .facts import FileFacts
from .forward import derive
from .infer import Evaluator
from .match import Candidate, Matcher
from .names import DepKey, ProjectIndex
from .sites import Vocabulary
from .summary import FileSummary, list_aliases, summarize

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class Unit:
    """One file's share of the link: its classified registrations (each with the forwarder spec
    it derives, if any), its emissions, and every index entry producing them read."""

    path: str
    entries: list[tuple[Registration, RegSpec | None]]
    used: frozenset[RegSpec]  # derived forwarder specs its registrations came through
    emissions: list[RawEmission]
    reads: frozenset[DepKey]
    # the snapshot row this unit was decoded from, and the key table its reads index: a unit an
    # incremental link reuses is written back as it was read
    encoded: tuple | None = field(default=None, compare=False, repr=False)


@dataclass
class Dispatchers:
    """Each mechanism's dispatcher classes (subclasses included) and its dispatch policy, with
    what finding each read: a later scan reuses them while no edit reaches those reads."""

    classes: dict[str, list[str]]
    class_reads: frozenset[DepKey]
    policies: dict[str, dict[str, str]]
    notes: dict[str, list]  # per mechanism: its resolved policy as a plain row (rules/policy.py)
    policy_reads: frozenset[DepKey]


@dataclass
class Linked:
    registrations: list[Registration]
    emissions: list[Emission]
    mechanisms: list[MechanismSummary]
    dispatchers: Dispatchers
    units: dict[str, Unit]
    summaries: list[FileSummary]
    derived: dict[str, list[RegSpec]]
    vocab: Vocabulary  # the packs' words and every derived API's
    aliases: frozenset[str]  # properties that name a pack's callback list


Reextract = Callable[[list[str], Vocabulary], list[FileFacts]]
MAX_ROUNDS = 4  # façade over façade over façade is the deepest chain seen in practice


class Linker:
    """Links a whole project (``link``); ``incremental.py`` drives the same steps over a lazy
    index for the units an edit reaches."""

    def __init__(
        self,
        files: Iterable[FileFacts],
        packs: tuple[Pack, ...],
        vocab: Vocabulary | None = None,
        reextract: Reextract | None = None,
        index: ProjectIndex | None = None,
    ) -> None:
        self.files = {f.path: f for f in files}
        self.packs = packs
        self.vocab = vocab or Vocabulary()
        self.reextract = reextract
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.index = index if index is not None else ProjectIndex(self.files.values())
        known = {n for m in self.mechanisms for n in (*m.dispatchers, *m.aliases)}
        self.evaluator = Evaluator(self.index, known_classes=known)
        for mech in self.mechanisms:
            for factory in mech.factories:
                self.evaluator.factories[factory] = mech.dispatchers[0]
        self.matcher = Matcher(packs, self.evaluator)
        self.derived: dict[str, list[RegSpec]] = {m.id: [] for m in self.mechanisms}
        self.aliases: frozenset[str] = frozenset()

    # -- dispatchers and policies -------------------------------------------------------------
    def inheritance(self) -> nx.DiGraph:
        """subclass -> base edges over every project class (bases may be external names)."""
        import networkx as nx  # only a scan that is not answered from the result cache pays it

        graph = nx.DiGraph()
        for cls in self.index.classes:
            graph.add_node(cls)
            for base in self.evaluator.mro(cls)[1:]:
                graph.add_edge(cls, base)
        return graph

    def dispatcher_classes(self, graph: nx.DiGraph, mech: Mechanism) -> list[str]:
        import networkx as nx

        roots = [c for c in self.matcher.dispatcher_ids(mech) if c in graph]
        found = set(roots)
        for root in roots:
            found |= nx.ancestors(graph, root)  # every class with a path to the dispatcher
        return sorted(found)

    def is_dispatcher_class(self, cls: str, mech: Mechanism) -> bool:
        """``cls`` is in ``dispatcher_classes`` (for a class defined in the project)."""
        roots = self.matcher.dispatcher_ids(mech)
        return any(c in roots for c in self.evaluator.mro(cls))

    def dispatchers(self) -> Dispatchers:
        deps = self.index.deps
        deps.push()
        graph = self.inheritance()
        classes = {mech.id: self.dispatcher_classes(graph, mech) for mech in self.mechanisms}
        class_reads = deps.pop()
        return Dispatchers(classes, class_reads, *self.policies(classes))

    def policies(self, classes: dict[str, list[str]]):
        """Each mechanism's policy: the pack's, checked against the dispatcher's own loops."""
        deps = self.index.deps
        deps.push()
        policies: dict[str, dict[str, str]] = {}
        policy_notes: dict[str, list] = {}
        for mech in self.mechanisms:
            policies[mech.id], policy_notes[mech.id] = resolve(
                mech, classes[mech.id], self.index, self.mechanisms, self.evaluator.mro)
        return policies, policy_notes, deps.pop()

    # -- derived registration forms -----------------------------------------------------------
    def add_list_aliases(self, summaries: list[FileSummary]) -> frozenset[str]:
        """Properties returning a pack's callback list become names of that list too."""
        specs: dict[str, list[tuple[Mechanism, RegSpec]]] = {}
        for mech in self.mechanisms:
            for spec in mech.registrations:
                if spec.kind == "append":
                    specs[spec.name] = [(mech, spec)]  # as before: the last form of a name wins
        aliases = list_aliases(summaries, set(specs))
        for prop, target in aliases:
            for mech, spec in specs[target]:
                self.matcher.add(mech, spec, list_alias=prop)
        self.aliases = frozenset(prop for prop, _ in aliases)
        return self.aliases

    def add_derived(self, derived: dict[str, list[RegSpec]]) -> None:
        by_id = {m.id: m for m in self.mechanisms}
        for mech_id, specs in derived.items():
            for spec in specs:
                self.matcher.add(by_id[mech_id], spec)
                self.derived[mech_id].append(spec)

    def evaluate(self, facts: FileFacts) -> tuple[list[Candidate], list[RegSpec | None], frozenset]:
        """One file's candidate registrations and the forwarder each derives, with the reads."""
        deps = self.index.deps
        deps.push()
        try:
            candidates = list(self.matcher.registrations(facts))
            specs = [derive(cand, self.matcher) for cand in candidates]
        finally:
            reads = deps.pop()
        return candidates, specs, reads

    def unit(self, facts: FileFacts, evaluated, policies: dict[str, dict[str, str]]) -> Unit:
        candidates, specs, reads = evaluated
        deps = self.index.deps
        deps.push()
        try:
            emissions = list(self.matcher.emissions(facts))
        finally:
            reads |= deps.pop()
        entries = [(classify(c, policies[c.mechanism.id]), spec) for c, spec in zip(candidates, specs)]
        used = frozenset(c.spec for c in candidates if c.spec.forwards)
        return Unit(facts.path, entries, used, emissions, reads)

    def _rounds(self, summaries: list[FileSummary]) -> dict[str, tuple]:
        """Evaluate every file; derive forwarders and evaluate again until no new form appears."""
        new_lists = self.add_list_aliases(summaries)
        known: set[RegSpec] = set()
        for _ in range(MAX_ROUNDS):
            self._reextract(set(), new_lists)
            new_lists = set()
            evaluated = {f.path: self.evaluate(f) for f in self._files_with_sites()}
            fresh: list[tuple[Mechanism, RegSpec]] = []
            for candidates, specs, _ in evaluated.values():
                for cand, spec in zip(candidates, specs):
                    if spec is not None and spec not in known:
                        known.add(spec)
                        fresh.append((cand.mechanism, spec))
            if not fresh:
                break
            words: set[str] = set()
            for mech, spec in fresh:
                self.matcher.add(mech, spec)
                self.derived[mech.id].append(spec)
                if not self._sites_already_collected(spec):
                    words.add(_call_word(spec.name))
            self._reextract(words, set())
        return evaluated

    def _sites_already_collected(self, spec: RegSpec) -> bool:
        """A forwarder whose arguments can only be passed by keyword, with keywords the first
        pass already looked for (`engine.run(spec, on_event=cb)`): its call sites were recorded,
        so no file needs a second pass for it."""
        args = [a for a in (spec.point, spec.handler, spec.receiver) if a is not None]
        return bool(args) and all(
            a.index is None and not a.rest and a.keyword in self.vocab.keywords for a in args
        )

    def _files_with_sites(self) -> list[FileFacts]:
        return [f for _, f in sorted(self.files.items()) if f.sites or f.config_hooks]

    def _reextract(self, calls: set[str], lists: set[str]) -> None:
        """Collect the sites of newly derived API names in the files that call them."""
        calls -= self.vocab.calls
        lists -= self.vocab.list_attrs
        if not (calls or lists) or self.reextract is None:
            return
        self.vocab = replace(
            self.vocab, calls=self.vocab.calls | calls, list_attrs=self.vocab.list_attrs | lists
        )
        paths = [p for p, f in self.files.items() if needs_reextract(f, calls, lists)]
        for facts in self.reextract(paths, self.vocab):
            self.files[facts.path] = facts

    # -- the run ------------------------------------------------------------------------------
    def link(self) -> Linked:
        """The whole project, from scratch."""
        summaries = [summarize(f) for f in self.files.values()]
        found = self.dispatchers()
        evaluated = self._rounds(summaries)
        units = {
            path: self.unit(self.files[path], evaluated[path], found.policies)
            for path in sorted(evaluated)
        }
        return self.assemble(units, found, summaries)

    def assemble(self, units: dict[str, Unit], found: Dispatchers,
                 summaries: list[FileSummary]) -> Linked:
        """Registrations, emissions, dormant points and summaries from every file's unit."""
        used = frozenset().union(*(u.used for u in units.values()))
        kept: list[Registration] = []
        for path in sorted(units):
            for reg, spec in units[path].entries:
                if spec is None:
                    kept.append(reg)
                elif spec not in used:  # a forwarder's own site stands in for absent callers
                    kept.append(replace(
                        reg, flags=(*reg.flags, "forwarder_without_callers"),
                        evidence=(*reg.evidence, f"{spec.name} forwards its parameters here and "
                                  "nothing in the scanned tree calls it, so this site stands for "
                                  "its future callers")))
        registrations = _dedupe(kept)
        raw_emissions = [e for path in sorted(units) for e in units[path].emissions]
        emissions = [
            Emission(e.file, e.line, e.col, e.mechanism.id, e.api, e.point, e.scope)
            for e in raw_emissions
        ]
        classes = found.classes
        dormant = self._dormant(registrations, raw_emissions, classes)
        registrations = [
            replace(r, flags=(*r.flags, "dormant_point"))
            if r.point and set(r.point.split("+")) <= dormant.get(r.mechanism, set()) else r
            for r in registrations
        ]
        forwarders = self._forwarder_apis(units)
        mechanisms = [
            self._summary(mech, classes[mech.id], registrations, emissions,
                          found.policies[mech.id], found.notes[mech.id], dormant.get(mech.id, set()),
                          forwarders[mech.id])
            for mech in self.mechanisms
        ]
        return Linked(registrations, emissions, mechanisms, found, units, summaries, self.derived,
                      self.vocab, self.aliases)

    def _forwarder_apis(self, units: dict[str, Unit]) -> dict[str, list[str]]:
        """Each mechanism's derived forms as "X (forwards to file:line)". A form derived at
        several sites is shown at the first in the tree, however the rounds or an incremental
        link happened to meet them."""
        first: dict[RegSpec, str] = {}
        for unit in units.values():
            for _, spec in unit.entries:
                if spec is not None:
                    first[spec] = min(first.get(spec, spec.forwards), spec.forwards,
                                      key=_site_order)
        return {mech: [f"{s.name} (forwards to {first.get(s, s.forwards)})" for s in specs]
                for mech, specs in self.derived.items()}

    def _dormant(self, registrations, raw_emissions, classes) -> dict[str, set[str]]:
        """Points registered on but never emitted (only where the dispatcher's project is scanned)."""
        registered: dict[str, set[str]] = {}
        emitted: dict[str, set[str]] = {}
        for reg in registrations:
            registered.setdefault(reg.mechanism, set()).update(
                part for part in (reg.point or "").split("+") if part)
        blind: set[str] = set()
        for em in raw_emissions:
            owner = self.index.enclosing_class(em.module, em.scope) or ""
            if em.dynamic and owner not in classes[em.mechanism.id]:
                blind.add(em.mechanism.id)  # a dynamic emission may fire any point
            if em.point:
                emitted.setdefault(em.mechanism.id, set()).add(em.point)
        out: dict[str, set[str]] = {}
        for mech in self.mechanisms:
            declared = set(mech.dormant_points)
            local = any(c in self.index.classes for c in classes[mech.id])
            inferred: set[str] = set()
            if local and mech.id not in blind and any(e.point for e in mech.emissions):
                members = self.matcher.enum_members(mech)
                names = None if members is None else {name for name, _ in members}
                inferred = {
                    point for point in registered.get(mech.id, set()) - emitted.get(mech.id, set())
                    if names is None or point in names  # a slot's fixed point is no emit key
                }
            out[mech.id] = declared | inferred
        return out

    def _summary(self, mech, classes, registrations, emissions, policy, notes, dormant,
                 forwarders):
        mine = [r for r in registrations if r.mechanism == mech.id]
        planes = Counter(r.plane for r in mine)
        emitted = sorted({e.point for e in emissions if e.mechanism == mech.id and e.point})
        return MechanismSummary(
            id=mech.id,
            title=mech.title,
            # a mechanism without a dispatcher class is dispatched by its emitting functions
            dispatcher=tuple(dict.fromkeys([*mech.dispatchers, *classes]))
            or tuple(e.name for e in mech.emissions if e.kind == "function")
            or tuple(f"settings key {c.key} in {', '.join(c.files)}" for c in mech.config),
            registration_apis=tuple(dict.fromkeys([s.name for s in mech.registrations]
                                                  + forwarders)),
            emission_apis=tuple(dict.fromkeys(e.name for e in mech.emissions)),
            registrations=len(mine),
            planes=tuple(sorted(planes.items())),
            policy=tuple(sorted(policy.items())),
            **policy_fields(notes),
            pack=mech.pack,
            dormant_points=tuple(sorted(dormant)),
            emitted_points=tuple(emitted),
        )


def _site_order(where: str) -> tuple[str, int]:
    """"path:line" in tree order (line 10 after line 9)."""
    path, _, line = where.rpartition(":")
    return path, int(line) if line.isdigit() else 0


def needs_reextract(facts: FileFacts, calls: set[str], lists: set[str]) -> bool:
    """The file calls a derived API or loads a derived list name: collect its sites again."""
    return bool(facts.error is None and facts.module and (
        (facts.called_funcs | facts.called_attrs) & calls or facts.loaded_attrs & lists))


def _call_word(qualname: str) -> str:
    """The name a call site of a derived API spells: ``X.__init__`` is called as ``X(...)``."""
    parts = qualname.split(".")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


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
