"""Incremental linking: after an edit, relink only what the edit can reach.

A full link leaves a *snapshot*: each file's facts digest and summary, each file's unit (its
classified registrations and emissions, and every index entry producing them read), the
dispatcher classes and policies with their reads, and the forwarders derived. The next scan
diffs the changed files' old and new facts entry by entry (``names.entries``), keeps every unit
whose reads miss the changed entries, and evaluates the rest over a lazy index that decodes a
module only when a lookup reaches it.

It falls back to a full link (raises FullLink, with the reason) whenever reuse could differ from linking afresh:
the edit changes which classes are dispatchers, a dispatch policy, the forwarders derived, the
properties that alias a callback list, a module name shared by two files, or more than a fifth
of the files; or the old facts are no longer in the cache. ``tests/perf`` checks the
incremental report against a full link after many kinds of edits.
"""

from __future__ import annotations

import marshal
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ...atomic import write_atomic
from ...rules.forms import Pack
from ...rules.forms import RegistrationForm
from ...types import Registration
from .emissions import RawEmission
from ..extract.facts import FileFacts
from .linker import Dispatchers, Linked, Linker, Reextract, Unit, needs_reextract
from .index import DepKey, ProjectIndex, entries
from ..extract.pool import Extracted
from ..store.snapshot import Snapshot
from ..store.sources import Source
from ..extract.sites import Vocabulary
from ..extract.summary import FileSummary, summarize

MAX_CHANGED_SHARE = 0.2  # beyond this many changed files a full link is as quick
_MISSING = object()


class FullLink(Exception):
    """Reuse could differ from linking afresh; the message says why (reported in stats)."""


def relink(
    snap: Snapshot,
    sources: list[Source],
    extracted: Extracted,
    packs: tuple[Pack, ...],
    vocab: Vocabulary,
    reextract: Reextract,
    old_facts: Callable[[str], FileFacts | None],
) -> Linked:
    """The link of the current tree, reusing *snap* where the edit cannot reach; raises
    :class:`FullLink` when only a full link can be trusted."""
    paths = [s.file.rel for s in sources]
    position = {p: i for i, p in enumerate(paths)}

    def current(path: str) -> FileFacts:
        return extracted.facts_at(position[path])

    changed = {p for p, d in zip(paths, extracted.digests()) if snap.files.get(p, ("", ""))[1] != d}
    removed = {p for p in snap.files if p not in position}
    if len(changed) + len(removed) > MAX_CHANGED_SHARE * max(len(paths), 1):
        raise FullLink(f"{len(changed) + len(removed)} files changed")
    touched = _touched(snap, changed | removed, lambda p: current(p) if p in position else None,
                       old_facts)
    owners = _owners(sources, snap, changed | removed, current, position)

    index = ProjectIndex(loader=lambda m: current(owners[m]), module_names=owners)
    linker = Linker([], packs, vocab, reextract, index=index)
    summaries = [summarize(current(p)) if p in changed else snap.summaries[p] for p in paths]
    if linker.add_list_aliases(summaries) != snap.aliases:
        raise FullLink("the properties naming a callback list changed")
    linker.add_derived(snap.derived)
    calls, lists = snap.words
    linker.vocab = replace(vocab, calls=vocab.calls | calls, list_attrs=vocab.list_attrs | lists)
    found = _dispatchers(linker, snap.dispatchers, touched)

    units = {p: u for p, u in snap.units.items()
             if p in position and p not in changed and not u.reads & touched}
    for path in sorted((changed | set(snap.units)) - set(units) - removed):
        facts = current(path)
        if needs_reextract(facts, calls, lists):
            facts = reextract([path], linker.vocab)[0]
        before = _specs(snap.units[path].entries) if path in snap.units else set()
        if not (facts.sites or facts.config_hooks):
            if before:
                raise FullLink(f"a forwarder in {path} went")
            continue
        evaluated = linker.evaluate(facts)
        if {s for s in evaluated[1] if s is not None} != before:
            raise FullLink(f"a forwarder in {path} appeared, changed or went")
        units[path] = linker.unit(facts, evaluated, found.policies)
    return linker.assemble(units, found, summaries)


def _touched(snap: Snapshot, paths: set[str], now: Callable[[str], FileFacts | None],
             old_facts: Callable[[str], FileFacts | None]) -> set[DepKey]:
    """The index entries whose value the edit changed (added and removed ones included)."""
    touched: set[DepKey] = set()
    for path in paths:
        before = old_facts(snap.files[path][0]) if path in snap.files else None
        if path in snap.files and before is None:
            raise FullLink(f"the last facts of {path} left the cache")
        after = now(path)
        old = entries(before) if before is not None else {}
        new = entries(after) if after is not None else {}
        touched |= {k for k in old.keys() | new.keys()
                    if old.get(k, _MISSING) != new.get(k, _MISSING)}
    return touched


def _owners(sources: list[Source], snap: Snapshot, paths: set[str], current, position) -> dict:
    """Module name -> the file that defines it (the first, as a full link has it); an edit
    touching a module name two files share changes which file it means, so it links in full."""
    owners: dict[str, str] = {}
    counts = Counter(s.file.module for s in sources if s.file.module)
    for s in sources:
        if s.file.module:
            owners.setdefault(s.file.module, s.file.rel)
    for path in paths:
        module = current(path).module if path in position else snap.summaries[path].module
        if counts[module] > 1 or (path not in position and module in owners):
            raise FullLink(f"module {module} is defined by more than one file")
    return owners


def _dispatchers(linker: Linker, found: Dispatchers, touched: set[DepKey]) -> Dispatchers:
    """The last link's dispatcher classes and policies, while the edit leaves them as they were."""
    if found.class_reads & touched:
        raise FullLink(f"class ancestry changed ({_example(found.class_reads & touched)})")
    # a class that existed before had its bases read when every class's ancestry was drawn,
    # so only a class the edit adds can be a dispatcher it was not before
    added = [key[1] for key in touched if key[0] == "bases" and key[1] in linker.index.classes]
    if any(cls not in found.classes[mech.id] and linker.is_dispatcher_class(cls, mech)
           for mech in linker.mechanisms for cls in added):
        raise FullLink("a new class is a dispatcher")
    if found.policy_reads & touched:
        policies, notes, reads = linker.policies(found.classes)
        if policies != found.policies:
            raise FullLink("a dispatch policy changed")
        found = replace(found, notes=notes, policy_reads=reads)  # (their lines may move)
    return found


def _example(keys: set) -> str:
    table, *rest = sorted(keys, key=repr)[0]
    return f"{table} {' '.join(map(str, rest))}"


def _specs(entries: list[tuple[Registration, RegistrationForm | None]]) -> set[RegistrationForm]:
    return {spec for _, spec in entries if spec is not None}


