"""The linker: one place that sees the whole project, linking it in full or over the last link.

It matches every file's sites against the packs (through the index and the evaluator), derives
forwarders (helpers and façades that register with their caller's arguments) over rounds,
finds each mechanism's dispatcher classes (subclasses included, through an inheritance
graph) and dispatch policy, and assembles candidates, emissions and per-mechanism facts.

``full`` links from scratch; ``relink`` reuses the units of the last link that an edit cannot
reach and evaluates the rest with the same steps. Either way, a file's *unit* records every index
entry its evaluation read, which is what lets the next scan relink.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ...packs.model import Mechanism, Pack, RegistrationForm
from ...project import MechanismFacts
from ...types import Emission
from ..extract.facts import FileFacts
from ..extract.sites import Vocabulary
from ..extract.summary import FileSummary, list_aliases, summarize
from ..policy.policy import policy_fields
from .activations import (
    Activations,
    calls_any,
    closure,
    helper_word,
    is_helper,
    spells_a_call,
)
from .assemble import candidates_of, dormant_points, forwarder_apis, with_activations
from .candidate import Call, Candidate
from .dispatchers import DispatcherFinder, Dispatchers
from .evaluate.engine import Evaluator
from .forward import derive
from .incremental import Changes, FullLink
from .index import ProjectIndex
from .match.matcher import Matcher
from .match.plugins import plugin_of
from .unit import Unit

__all__ = ["Linked", "Linker", "PreviousLink", "Unit"]

Reextract = Callable[[Sequence[str], Vocabulary], list[FileFacts]]
NOTHING: tuple = ((), (), frozenset())  # the evaluation of a file with no site of the packs
MAX_ROUNDS = 4  # façade over façade over façade is the deepest chain seen in practice


class PreviousLink(Protocol):
    """What a relink reads of the last link (``store.snapshot.Snapshot``, which the store keeps
    and which imports this module)."""

    @property
    def summaries(self) -> dict[str, FileSummary]: ...

    @property
    def units(self) -> dict[str, Unit]: ...

    @property
    def dispatchers(self) -> Dispatchers: ...

    @property
    def derived(self) -> dict[str, list[RegistrationForm]]: ...

    @property
    def words(self) -> tuple[frozenset[str], frozenset[str]]: ...

    @property
    def aliases(self) -> frozenset[str]: ...

    @property
    def helpers(self) -> frozenset[str]: ...

    @property
    def unique_methods(self) -> dict[str, str]: ...

    @property
    def files(self) -> dict[str, tuple[str, str]]: ...


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
    helpers: frozenset[str] = frozenset()  # the helpers whose calls were searched
    unique_methods: dict[str, str] = field(default_factory=dict)  # helper methods known by name


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
        self.finder = DispatcherFinder(index, self.evaluator, self.matcher, self.mechanisms)
        self.derived: dict[str, list[RegistrationForm]] = {m.id: [] for m in self.mechanisms}
        self.aliases: frozenset[str] = frozenset()
        self.activator = Activations(self.evaluator, self.matcher.identity)
        self.helpers: frozenset[str] = frozenset()

    # -- the two ways to link -----------------------------------------------------------------
    def full(self, files: Sequence[FileFacts]) -> Linked:
        """The whole project, from scratch."""
        current = {f.path: f for f in files}
        summaries = [summarize(f) for f in files]
        self.activator.definers = self.matcher.build.handlers.definers = definers(summaries)
        found = self.finder.find()
        evaluated = self._rounds(current, summaries)
        roots = {cand.helper for path, ev in evaluated.items()
                 for cand in self._candidates(current[path], ev) if cand.helper}
        self.helpers = closure(roots, {}, self.evaluator,
                               lambda new: self._search(current, new))
        words = {helper_word(h) for h in self.helpers}
        calling = {p for p, f in current.items() if spells_a_call(f, words)}
        paths = sorted(set(evaluated) | calling)
        units = {p: self.unit(current[p], evaluated.get(p, NOTHING)) for p in paths}
        return self.assemble(units, found, summaries)

    def _search(self, files: dict[str, FileFacts],
                helpers: frozenset[str]) -> dict[str, list[Call]]:
        """The calls of *helpers*, read from the files that call their names."""
        words = {helper_word(h) for h in helpers}
        found: dict[str, list[Call]] = {}
        for path in sorted(files):
            if calls_any(files[path], words):
                for call in self.activator.calls(files[path], helpers):
                    found.setdefault(call.helper, []).append(call)
        return found

    def relink(self, snap: PreviousLink, changes: Changes,
               current: Callable[[str], FileFacts]) -> Linked:
        """The current tree over *snap*: reuse every unit the edit cannot reach, evaluate the
        rest; raises :class:`FullLink` when only a full link can be trusted."""
        summaries = [summarize(current(p)) if p in changes.changed else snap.summaries[p]
                     for p in changes.paths]
        self.activator.definers = self.matcher.build.handlers.definers = definers(summaries)
        if self.activator.unique_methods(snap.helpers) != snap.unique_methods:
            raise FullLink("which helper methods have a name of their own changed")
        if self.add_list_aliases(summaries) != snap.aliases:
            raise FullLink("the properties naming a callback list changed")
        self.add_derived(snap.derived)
        calls, lists = snap.words
        self.vocab = replace(self.vocab, calls=self.vocab.calls | calls,
                             list_attrs=self.vocab.list_attrs | lists)
        found = self.finder.reuse(snap.dispatchers, changes.touched)
        self.helpers = snap.helpers
        present = set(changes.paths)
        units = {p: u for p, u in snap.units.items()
                 if p in present and p not in changes.changed and not u.reads & changes.touched}
        for path in sorted((changes.changed | set(snap.units)) - set(units) - changes.removed):
            self._redo(path, units, snap, current)
        self._new_helpers(units, snap, summaries, current)
        return self.assemble(units, found, summaries)

    def _new_helpers(self, units: dict[str, Unit], snap: PreviousLink,
                     summaries: list[FileSummary], current: Callable[[str], FileFacts]) -> None:
        """Search the calls of helpers the edit made: the files calling them are read for those
        calls and evaluated again (their units with them)."""
        while True:
            roots = {cand.helper for u in units.values() for cand, _ in u.entries if cand.helper}
            calls: dict[str, list[Call]] = {}
            for unit in units.values():
                for call in unit.calls:
                    calls.setdefault(call.helper, []).append(call)
            searched = closure(roots, calls, self.evaluator)
            new = searched - self.helpers
            if not new:
                self.helpers = searched
                return
            self.helpers |= new
            words = {helper_word(h) for h in new}
            for summary in summaries:
                if summary.calls & words and summary.error is None and summary.module:
                    self._redo(summary.path, units, snap, current)

    def _redo(self, path: str, units: dict[str, Unit], snap: PreviousLink,
              current: Callable[[str], FileFacts]) -> None:
        """Evaluate one file again: its sites (of derived APIs too) and its calls of the helpers
        searched; a forwarder that appears, changes or goes needs a full link."""
        facts = current(path)
        if needs_reextract(facts, *snap.words):
            facts = self.reextract([path], self.vocab)[0]
        before = snap.units[path].forms if path in snap.units else set()
        evaluated = self.evaluate(facts) if self.matcher.wants(facts) else NOTHING
        if {f for f in evaluated[1] if f is not None} != before:
            raise FullLink(f"a forwarder in {path} appeared, changed or went")
        if evaluated is NOTHING and not spells_a_call(facts, {helper_word(h)
                                                              for h in self.helpers}):
            units.pop(path, None)
        else:
            units[path] = self.unit(facts, evaluated)

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
                         if self.matcher.wants(f)}
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

    def _widen(self, files: dict[str, FileFacts], calls: set[str], lists: set[str]) -> list[str]:
        """Collect the sites of newly derived API names in the files that call them; returns
        the files read again."""
        calls = calls - self.vocab.calls
        lists = set(lists) - self.vocab.list_attrs
        if not (calls or lists):
            return []
        self.vocab = replace(
            self.vocab, calls=self.vocab.calls | calls, list_attrs=self.vocab.list_attrs | lists
        )
        paths = [p for p, f in files.items() if needs_reextract(f, calls, lists)]
        for facts in self.reextract(paths, self.vocab):
            files[facts.path] = facts
        return paths

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
            calls = [*self.activator.calls(facts, self.helpers), *self.matcher.plugins(facts)]
            entries = list(zip(self._candidates(facts, evaluated), forms))
        finally:
            reads |= deps.pop()
        used = frozenset(m.spec for m in matches if m.spec.forwards)
        return Unit(facts.path, entries, used, emissions, reads, calls)

    def _candidates(self, facts: FileFacts, evaluated) -> list[Candidate]:
        """The plain candidates of a file's matches; one made in a helper (its handler fixed
        there, not forwarded) names the helper."""
        out = []
        for match, form in zip(evaluated[0], evaluated[1]):
            cand = match.candidate()
            qualname = f"{facts.module}.{match.scope}"
            if form is None and is_helper(qualname, match.scope, self.evaluator):
                cand = replace(cand, helper=qualname)
            elif match.spec.plugins:  # a hook implementation: activated with its plugin
                cand = replace(cand, plugin=plugin_of(facts.module, match.scope))
            out.append(cand)
        return out

    # -- the project --------------------------------------------------------------------------
    def _reexports(self, module: str) -> frozenset[str]:
        """The names *module* binds by importing them from elsewhere (``from .rules import
        allowed``), as qualified names."""
        facts = self.index.modules.get(module)
        return frozenset(ref[1] for _, ref in facts.bindings
                         if ref[0] == "import" and not ref[2]) if facts is not None else frozenset()

    def assemble(self, units: dict[str, Unit], found: Dispatchers,
                 summaries: list[FileSummary]) -> Linked:
        """Candidates, emissions and each mechanism's facts from every file's unit."""
        candidates = with_activations(candidates_of(units), units, self._reexports)
        raw_emissions = [e for path in sorted(units) for e in units[path].emissions]
        emissions = [Emission(e.file, e.line, e.col, e.mechanism.id, e.api, e.point, e.scope,
                              e.end_line, e.end_col, e.dropped) for e in raw_emissions]
        dormant = dormant_points(candidates, raw_emissions, found.classes, self.mechanisms,
                                 self.index, self.matcher)
        forwarders = forwarder_apis(units, self.derived)
        mechanisms = [
            MechanismFacts(
                model=mech, classes=tuple(found.classes[mech.id]),
                policy=tuple(sorted(found.policies[mech.id].items())),
                **policy_fields(found.notes[mech.id]),
                forwarders=tuple(forwarders[mech.id]),
                dormant_points=frozenset(dormant.get(mech.id, ())),
            )
            for mech in self.mechanisms
        ]
        return Linked(candidates, emissions, mechanisms, summaries, units, found, self.derived,
                      self.vocab, self.aliases, self.helpers,
                      self.activator.unique_methods(self.helpers))


def definers(summaries: Sequence[FileSummary]) -> dict[str, tuple[str, ...]]:
    """Function name -> the modules of the files defining a function or method of that name,
    one entry per file (the helper search and the handler resolver both read it)."""
    out: dict[str, list[str]] = {}
    for summary in summaries:  # a file no import reaches ("" module) makes a name ambiguous too
        for name in summary.defines:
            out.setdefault(name, []).append(summary.module)
    return {name: tuple(modules) for name, modules in out.items()}


def needs_reextract(facts: FileFacts, calls: set[str], lists: set[str]) -> bool:
    """The file calls a derived API (or decorates with one) or loads a derived list name:
    collect its sites again."""
    return bool(facts.error is None and facts.module and (
        (facts.called_funcs | facts.called_attrs | facts.decorator_words) & calls
        or facts.loaded_attrs & lists))


def _call_word(qualname: str) -> str:
    """The name a call site of a derived API spells: ``X.__init__`` is called as ``X(...)``."""
    parts = qualname.split(".")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
