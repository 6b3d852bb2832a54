"""The linker: one place that sees the whole project, linking it in full or over the last link.

It matches every file's sites against the packs (through the index and the evaluator), derives
forwarders (helpers and façades that register with their caller's arguments) over rounds,
finds each mechanism's dispatcher classes (subclasses included, with a networkx inheritance
graph) and dispatch policy, and assembles candidates, emissions and per-mechanism facts.

``full`` links from scratch; ``relink`` reuses the units of the last link that an edit cannot
reach and evaluates the rest with the same steps. Either way, a file's *unit* records every index
entry its evaluation read, which is what lets the next scan relink.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ...project import MechanismFacts
from ...rules.forms import Mechanism, Pack, RegistrationForm
from ...rules.policy import infer_from_loops, merge
from ...types import Emission
from ..extract.facts import FileFacts
from ..extract.sites import Vocabulary
from ..extract.summary import FileSummary, list_aliases, summarize
from .candidate import Candidate
from .match.emissions import RawEmission
from .evaluate.engine import Evaluator
from .forward import derive
from .incremental import Changes, FullLink, example
from .index import DepKey, ProjectIndex
from .match.matcher import Matcher

if TYPE_CHECKING:
    import networkx as nx

    from ..store.snapshot import Snapshot

Reextract = Callable[[Sequence[str], Vocabulary], list[FileFacts]]
MAX_ROUNDS = 4  # façade over façade over façade is the deepest chain seen in practice


@dataclass
class Unit:
    """One file's share of the link: its candidates (each with the forwarder form it derives,
    if any), its emissions, and every index entry producing them read."""

    path: str
    entries: list[tuple[Candidate, RegistrationForm | None]]
    used: frozenset[RegistrationForm]  # derived forwarder forms its candidates came through
    emissions: list[RawEmission]
    reads: frozenset[DepKey]
    # the snapshot row this unit was decoded from, and the key table its reads index: a unit an
    # incremental link reuses is written back as it was read
    encoded: tuple | None = field(default=None, compare=False, repr=False)

    @property
    def forms(self) -> set[RegistrationForm]:
        return {form for _, form in self.entries if form is not None}


@dataclass
class Dispatchers:
    """Each mechanism's dispatcher classes (subclasses included) and its dispatch policy, with
    what finding each read: a later scan reuses them while no edit reaches those reads."""

    classes: dict[str, list[str]]
    class_reads: frozenset[DepKey]
    policies: dict[str, dict[str, str]]
    notes: dict[str, list[str]]
    policy_reads: frozenset[DepKey]


@dataclass
class Linked:
    """The linked project (candidates, emissions, mechanisms), and what the next link reuses."""

    candidates: list[Candidate]
    emissions: list[Emission]
    mechanisms: list[MechanismFacts]
    summaries: list[FileSummary]
    units: dict[str, Unit]
    dispatchers: Dispatchers
    derived: dict[str, list[RegistrationForm]]
    vocab: Vocabulary  # the packs' words and every derived API's
    aliases: frozenset[str]  # properties that name a pack's callback list


class Linker:
    """Links a project over *index*; *reextract* collects the sites of derived API names."""

    def __init__(self, packs: tuple[Pack, ...], vocab: Vocabulary, index: ProjectIndex,
                 reextract: Reextract) -> None:
        self.packs = packs
        self.vocab = vocab
        self.index = index
        self.reextract = reextract
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        known = {n for m in self.mechanisms for n in (*m.dispatchers, *m.aliases)}
        self.evaluator = Evaluator(index, known_classes=known)
        for mech in self.mechanisms:
            for factory in mech.factories:
                self.evaluator.factories[factory] = mech.dispatchers[0]
        self.matcher = Matcher(packs, self.evaluator)
        self.derived: dict[str, list[RegistrationForm]] = {m.id: [] for m in self.mechanisms}
        self.aliases: frozenset[str] = frozenset()

    # -- the two ways to link -----------------------------------------------------------------
    def full(self, files: Sequence[FileFacts]) -> Linked:
        """The whole project, from scratch."""
        current = {f.path: f for f in files}
        summaries = [summarize(f) for f in files]
        found = self.dispatchers()
        evaluated = self._rounds(current, summaries)
        units = {path: self.unit(current[path], evaluated[path]) for path in sorted(evaluated)}
        return self.assemble(units, found, summaries)

    def relink(self, snap: Snapshot, changes: Changes,
               current: Callable[[str], FileFacts]) -> Linked:
        """The current tree over *snap*: reuse every unit the edit cannot reach, evaluate the
        rest; raises :class:`FullLink` when only a full link can be trusted."""
        summaries = [summarize(current(p)) if p in changes.changed else snap.summaries[p]
                     for p in changes.paths]
        if self.add_list_aliases(summaries) != snap.aliases:
            raise FullLink("the properties naming a callback list changed")
        self.add_derived(snap.derived)
        calls, lists = snap.words
        self.vocab = replace(self.vocab, calls=self.vocab.calls | calls,
                             list_attrs=self.vocab.list_attrs | lists)
        found = self.reuse_dispatchers(snap.dispatchers, changes.touched)
        present = set(changes.paths)
        units = {p: u for p, u in snap.units.items()
                 if p in present and p not in changes.changed and not u.reads & changes.touched}
        for path in sorted((changes.changed | set(snap.units)) - set(units) - changes.removed):
            facts = current(path)
            if needs_reextract(facts, calls, lists):
                facts = self.reextract([path], self.vocab)[0]
            before = snap.units[path].forms if path in snap.units else set()
            if not (facts.sites or facts.config_hooks):
                if before:
                    raise FullLink(f"a forwarder in {path} went")
                continue
            evaluated = self.evaluate(facts)
            if {f for f in evaluated[1] if f is not None} != before:
                raise FullLink(f"a forwarder in {path} appeared, changed or went")
            units[path] = self.unit(facts, evaluated)
        return self.assemble(units, found, summaries)

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

    def reuse_dispatchers(self, found: Dispatchers, touched: set[DepKey]) -> Dispatchers:
        """The last link's dispatcher classes and policies, while the edit leaves them as they were."""
        if found.class_reads & touched:
            raise FullLink(f"class ancestry changed ({example(found.class_reads & touched)})")
        # a class that existed before had its bases read when every class's ancestry was drawn,
        # so only a class the edit adds can be a dispatcher it was not before
        added = [key[1] for key in touched if key[0] == "bases" and key[1] in self.index.classes]
        if any(cls not in found.classes[mech.id] and self.is_dispatcher_class(cls, mech)
               for mech in self.mechanisms for cls in added):
            raise FullLink("a new class is a dispatcher")
        if found.policy_reads & touched:
            policies, notes, reads = self.policies(found.classes)
            if policies != found.policies:
                raise FullLink("a dispatch policy changed")
            found = replace(found, notes=notes, policy_reads=reads)  # (their lines may move)
        return found

    def policies(self, classes: dict[str, list[str]]):
        """Each mechanism's policy: the pack's, checked against the dispatcher's own loops."""
        deps = self.index.deps
        deps.push()
        policies: dict[str, dict[str, str]] = {}
        policy_notes: dict[str, list[str]] = {}
        for mech in self.mechanisms:
            inferred, evidence = infer_from_loops(self._loops(classes[mech.id]))
            policies[mech.id], notes = merge(mech.policy_map, inferred)
            source = [f"declared in pack {mech.pack}: {mech.policy_evidence}"] if mech.policy else []
            policy_notes[mech.id] = source + evidence + notes
        return policies, policy_notes, deps.pop()

    def _loops(self, classes: list[str]):
        for cls in classes:
            if cls not in self.index.classes:
                continue
            for qn in self.index.methods_of.get(cls, ()):
                func = self.index.functions[qn]
                if func.loop is not None:
                    yield qn[len(self.index.class_module[cls]) + 1:], func

    # -- derived registration forms -----------------------------------------------------------
    def add_list_aliases(self, summaries: list[FileSummary]) -> frozenset[str]:
        """Properties returning a pack's callback list become names of that list too."""
        forms: dict[str, list[tuple[Mechanism, RegistrationForm]]] = {}
        for mech in self.mechanisms:
            for form in mech.registrations:
                if form.kind == "append":
                    forms[form.name] = [(mech, form)]  # as before: the last form of a name wins
        aliases = list_aliases(summaries, set(forms))
        for prop, target in aliases:
            for mech, form in forms[target]:
                self.matcher.add(mech, form, list_alias=prop)
        self.aliases = frozenset(prop for prop, _ in aliases)
        return self.aliases

    def add_derived(self, derived: dict[str, list[RegistrationForm]]) -> None:
        by_id = {m.id: m for m in self.mechanisms}
        for mech_id, forms in derived.items():
            for form in forms:
                self.matcher.add(by_id[mech_id], form)
                self.derived[mech_id].append(form)

    def _rounds(self, files: dict[str, FileFacts], summaries: list[FileSummary]):
        """Evaluate every file; derive forwarders and evaluate again until no new form appears."""
        new_lists = self.add_list_aliases(summaries)
        known: set[RegistrationForm] = set()
        for _ in range(MAX_ROUNDS):
            self._widen(files, set(), new_lists)
            new_lists = frozenset()
            evaluated = {p: self.evaluate(f) for p, f in sorted(files.items())
                         if f.sites or f.config_hooks}
            fresh: list[tuple[Mechanism, RegistrationForm]] = []
            for matches, forms, _ in evaluated.values():
                for match, form in zip(matches, forms):
                    if form is not None and form not in known:
                        known.add(form)
                        fresh.append((match.mechanism, form))
            if not fresh:
                break
            words: set[str] = set()
            for mech, form in fresh:
                self.matcher.add(mech, form)
                self.derived[mech.id].append(form)
                if not self._sites_already_collected(form):
                    words.add(_call_word(form.name))
            self._widen(files, words, set())
        return evaluated

    def _sites_already_collected(self, form: RegistrationForm) -> bool:
        """A forwarder whose arguments can only be passed by keyword, with keywords the first
        pass already looked for (`engine.run(spec, on_event=cb)`): its call sites were recorded,
        so no file needs a second pass for it."""
        args = [a for a in (form.point, form.handler, form.receiver) if a is not None]
        return bool(args) and all(
            a.index is None and not a.rest and a.keyword in self.vocab.keywords for a in args
        )

    def _widen(self, files: dict[str, FileFacts], calls: set[str], lists: set[str]) -> None:
        """Collect the sites of newly derived API names in the files that call them."""
        calls = calls - self.vocab.calls
        lists = set(lists) - self.vocab.list_attrs
        if not (calls or lists):
            return
        self.vocab = replace(
            self.vocab, calls=self.vocab.calls | calls, list_attrs=self.vocab.list_attrs | lists
        )
        paths = [p for p, f in files.items() if needs_reextract(f, calls, lists)]
        for facts in self.reextract(paths, self.vocab):
            files[facts.path] = facts

    # -- one file -----------------------------------------------------------------------------
    def evaluate(self, facts: FileFacts):
        """One file's matches, the forwarder form each derives, and what evaluating them read."""
        deps = self.index.deps
        deps.push()
        try:
            matches = list(self.matcher.registrations(facts))
            forms = [derive(match, self.matcher) for match in matches]
        finally:
            reads = deps.pop()
        return matches, forms, reads

    def unit(self, facts: FileFacts, evaluated) -> Unit:
        matches, forms, reads = evaluated
        deps = self.index.deps
        deps.push()
        try:
            emissions = list(self.matcher.emissions(facts))
        finally:
            reads |= deps.pop()
        entries = [(m.candidate(), form) for m, form in zip(matches, forms)]
        used = frozenset(m.spec for m in matches if m.spec.forwards)
        return Unit(facts.path, entries, used, emissions, reads)

    # -- the project --------------------------------------------------------------------------
    def assemble(self, units: dict[str, Unit], found: Dispatchers,
                 summaries: list[FileSummary]) -> Linked:
        """Candidates, emissions and each mechanism's facts from every file's unit."""
        used = frozenset().union(*(u.used for u in units.values()))
        kept: list[Candidate] = []
        for path in sorted(units):
            for cand, form in units[path].entries:
                if form is None:
                    kept.append(cand)
                elif form not in used:  # a forwarder's own site stands in for absent callers
                    kept.append(replace(
                        cand, flags=(*cand.flags, "forwarder_without_callers"),
                        evidence=(*cand.evidence, f"{form.name} forwards its parameters here and "
                                  "nothing in the scanned tree calls it, so this site stands for "
                                  "its future callers")))
        candidates = _dedupe(kept)
        raw_emissions = [e for path in sorted(units) for e in units[path].emissions]
        emissions = [
            Emission(e.file, e.line, e.col, e.mechanism.id, e.api, e.point, e.scope)
            for e in raw_emissions
        ]
        dormant = self._dormant(candidates, raw_emissions, found.classes)
        forwarders = self._forwarder_apis(units)
        mechanisms = [
            MechanismFacts(
                model=mech, classes=tuple(found.classes[mech.id]),
                policy=tuple(sorted(found.policies[mech.id].items())),
                policy_evidence=tuple(found.notes[mech.id]),
                forwarders=tuple(forwarders[mech.id]),
                dormant_points=frozenset(dormant.get(mech.id, ())),
            )
            for mech in self.mechanisms
        ]
        return Linked(candidates, emissions, mechanisms, summaries, units, found, self.derived,
                      self.vocab, self.aliases)

    def _forwarder_apis(self, units: dict[str, Unit]) -> dict[str, list[str]]:
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
                for mech, forms in self.derived.items()}

    def _dormant(self, candidates, raw_emissions, classes) -> dict[str, set[str]]:
        """Points registered on but never emitted (only where the dispatcher's project is
        scanned), and the points the pack declares dormant."""
        registered: dict[str, set[str]] = {}
        emitted: dict[str, set[str]] = {}
        for cand in candidates:
            registered.setdefault(cand.mechanism, set()).update(
                part for part in (cand.point or "").split("+") if part)
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


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per (site, mechanism, handler, point): two forms may see the same call."""
    seen: set[tuple] = set()
    out: list[Candidate] = []
    for cand in sorted(candidates, key=lambda c: c.sort_key):
        key = (cand.file, cand.line, cand.col, cand.mechanism, cand.handler.expr, cand.point)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out
