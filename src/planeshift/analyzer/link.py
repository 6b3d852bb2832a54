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
from ..rules.packs import Mechanism, Pack, Registration as RegSpec
from ..rules.policy import infer_from_loops, merge
from ..types import Emission, MechanismSummary, Registration
from .facts import FileFacts
from .infer import Evaluator
from .forward import derive
from .match import Candidate, Matcher
from .names import ProjectIndex
from .sites import Vocabulary

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class Linked:
    registrations: list[Registration]
    emissions: list[Emission]
    mechanisms: list[MechanismSummary]
    index: ProjectIndex
    evaluator: Evaluator
    policies: dict[str, dict[str, str]] = field(default_factory=dict)
    dormant: dict[str, set[str]] = field(default_factory=dict)
    files: list[FileFacts] = field(default_factory=list)


Reextract = Callable[[list[str], Vocabulary], list[FileFacts]]
MAX_ROUNDS = 4  # façade over façade over façade is the deepest chain seen in practice


class Linker:
    def __init__(
        self,
        files: Iterable[FileFacts],
        packs: tuple[Pack, ...],
        vocab: Vocabulary | None = None,
        reextract: Reextract | None = None,
    ) -> None:
        self.files = {f.path: f for f in files}
        self.packs = packs
        self.vocab = vocab or Vocabulary()
        self.reextract = reextract
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.index = ProjectIndex(self.files.values())
        known = {n for m in self.mechanisms for n in (*m.dispatchers, *m.aliases)}
        self.evaluator = Evaluator(self.index, known_classes=known)
        for mech in self.mechanisms:
            for factory in mech.factories:
                self.evaluator.factories[factory] = mech.dispatchers[0]
        self.matcher = Matcher(packs, self.evaluator)
        self.derived: dict[str, list[RegSpec]] = {m.id: [] for m in self.mechanisms}

    # -- graphs -------------------------------------------------------------------------------
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

    # -- derived registration forms -----------------------------------------------------------
    def _list_properties(self) -> set[str]:
        """Properties returning a pack's callback list become names of that list too."""
        words: set[str] = set()
        specs = [(m, s) for m in self.mechanisms for s in m.registrations if s.kind == "append"]
        names = {s.name: [(m, s)] for m, s in specs}
        for _ in range(2):  # a property over a property
            for qn, func in self.index.functions.items():
                if func.kind != "property" or func.name in names:
                    continue
                hits = [r[2] for r in func.return_values if r[0] == "attr" and r[2] in names]
                for target in hits:
                    for mech, spec in names[target]:
                        self.matcher.add(mech, spec, list_alias=func.name)
                    names[func.name] = names[target]
                    words.add(func.name)
        return words

    def _candidates(self) -> list[Candidate]:
        """Match every file; derive forwarders and re-match until no new form appears.

        A forwarder's own site is replaced by its callers' sites; a forwarder nobody in the
        tree calls keeps its own site (flagged), so a registration API is never silently lost.
        """
        new_lists = self._list_properties()
        known: set[RegSpec] = set()
        for _ in range(MAX_ROUNDS):
            self._reextract(set(), new_lists)
            new_lists = set()
            candidates = [c for f in self._files_with_sites() for c in self.matcher.registrations(f)]
            fresh: list[tuple[Mechanism, RegSpec]] = []
            specs = [derive(cand, self.matcher) for cand in candidates]
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
        used = {c.spec for c in candidates}
        kept: list[Candidate] = []
        for cand, spec in zip(candidates, specs):  # the last round's forwarders
            if spec is None:
                kept.append(cand)
            elif spec not in used:
                cand.flags.append("forwarder_without_callers")
                cand.evidence.append(
                    f"{spec.name} forwards its parameters here and nothing in the scanned tree "
                    "calls it, so this site stands for its future callers")
                kept.append(cand)
        return kept

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
        paths = [
            path for path, f in self.files.items()
            if f.error is None and f.module
            and ((f.called_funcs | f.called_attrs) & calls or f.loaded_attrs & lists)
        ]
        for facts in self.reextract(paths, self.vocab):
            self.files[facts.path] = facts

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

        registrations = _dedupe(
            [classify(c, policies[c.mechanism.id]) for c in self._candidates()]
        )
        raw_emissions = [e for f in self._files_with_sites() for e in self.matcher.emissions(f)]
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
                      policies, dormant, list(self.files.values()))

    def _loops(self, classes: list[str]):
        for cls in classes:
            if cls not in self.index.classes:
                continue
            for qn in self.index.methods_of.get(cls, ()):
                func = self.index.functions[qn]
                if func.loop is not None:
                    yield qn[len(self.index.class_module[cls]) + 1:], func

    def _dormant(self, registrations, raw_emissions, classes) -> dict[str, set[str]]:
        """Points registered on but never emitted (only where the dispatcher's project is scanned)."""
        import networkx as nx

        graph = nx.DiGraph()
        for i, reg in enumerate(registrations):
            for part in (reg.point or "").split("+"):
                if part:
                    graph.add_edge(("reg", i), ("point", reg.mechanism, part))
        blind: set[str] = set()
        for j, em in enumerate(raw_emissions):
            owner = self.index.enclosing_class(em.module, em.scope) or ""
            if em.dynamic and owner not in classes[em.mechanism.id]:
                blind.add(em.mechanism.id)  # a dynamic emission may fire any point
            if em.point:
                graph.add_edge(("point", em.mechanism.id, em.point), ("emit", j))
        out: dict[str, set[str]] = {}
        for mech in self.mechanisms:
            declared = set(mech.dormant_points)
            local = any(c in self.index.classes for c in classes[mech.id])
            inferred: set[str] = set()
            if local and mech.id not in blind and any(e.point for e in mech.emissions):
                members = self.matcher.enum_members(mech)
                names = None if members is None else {name for name, _ in members}
                inferred = {
                    node[2] for node in graph.nodes
                    if node[0] == "point" and node[1] == mech.id and graph.out_degree(node) == 0
                    and (names is None or node[2] in names)  # a slot's fixed point is no emit key
                }
            out[mech.id] = declared | inferred
        return out

    def _summary(self, mech, classes, registrations, emissions, policy, notes, dormant):
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
            registration_apis=tuple(dict.fromkeys(
                [s.name for s in mech.registrations]
                + [f"{s.name} (forwards to {s.forwards})" for s in self.derived.get(mech.id, [])]
            )),
            emission_apis=tuple(dict.fromkeys(e.name for e in mech.emissions)),
            registrations=len(mine),
            planes=tuple(sorted(planes.items())),
            policy=tuple(sorted(policy.items())),
            policy_evidence=tuple(notes),
            pack=mech.pack,
            dormant_points=tuple(sorted(dormant)),
            emitted_points=tuple(emitted),
        )


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
