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

from ..atomic import write_atomic
from ..rules.packs import Pack
from ..rules.packs import Registration as RegSpec
from ..types import Registration
from .cache import FORMAT, decode, encode
from .emissions import RawEmission
from .facts import FileFacts
from .link import Dispatchers, Linked, Linker, Reextract, Unit, needs_reextract
from .names import DepKey, ProjectIndex, entries
from .pool import Extracted, Source
from .sites import Vocabulary
from .summary import FileSummary, summarize

MAX_CHANGED_SHARE = 0.2  # beyond this many changed files a full link is as quick
_MISSING = object()


@dataclass
class Snapshot:
    key: str  # the scan root, packs and vocabulary it was linked under
    files: dict[str, tuple[str, str]]  # path -> (fact-cache entry key, facts digest)
    summaries: dict[str, FileSummary]
    units: dict[str, Unit]
    dispatchers: Dispatchers
    derived: dict[str, list[RegSpec]]
    words: tuple[frozenset[str], frozenset[str]]  # derived call names and list names
    aliases: frozenset[str]
    table: tuple[DepKey, ...] = ()  # the read keys units index (reused units keep their rows)

    @classmethod
    def of(cls, key: str, linked: Linked, sources: list[Source], digests: list[str],
           base: Vocabulary, table: tuple[DepKey, ...] = ()) -> Snapshot:
        return cls(
            key,
            {s.file.rel: (s.key, d) for s, d in zip(sources, digests)},
            {s.path: s for s in linked.summaries},
            linked.units,
            linked.dispatchers,
            linked.derived,
            (linked.vocab.calls - base.calls, linked.vocab.list_attrs - base.list_attrs),
            linked.aliases,
            table,
        )


class SnapshotStore:
    """The latest snapshot in ``<cache>/link/``; written atomically, a bad one is ignored."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder / "link"
        self.key = key

    def load(self, packs: tuple[Pack, ...]) -> Snapshot | None:
        try:
            row = marshal.loads((self.folder / f"{self.key}.snap").read_bytes())
            return _decode_snapshot(row, packs) if row[0] == FORMAT and row[1] == self.key else None
        except (OSError, ValueError, TypeError, EOFError, IndexError, KeyError):
            return None  # absent, corrupt or from another version: the scan links in full

    def save(self, snap: Snapshot) -> str | None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            blob = marshal.dumps(_encode_snapshot(snap))
            write_atomic(self.folder / f"{self.key}.snap", blob)
            for old in self.folder.glob("*.snap"):
                if old.stem != self.key:
                    old.unlink(missing_ok=True)  # one configuration's latest link is enough
        except OSError as exc:
            return f"link snapshot not written to {self.folder}: {exc.strerror or exc}"
        return None


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


def _specs(entries: list[tuple[Registration, RegSpec | None]]) -> set[RegSpec]:
    return {spec for _, spec in entries if spec is not None}


# -- codec --------------------------------------------------------------------------------------


MAX_TABLE = 100_000  # read keys kept across incremental links before the table starts afresh


def _encode_snapshot(snap: Snapshot) -> tuple:
    # every read key once; a unit's reads are indices into it (5x smaller). An incremental link
    # extends the last table, so the units it reused are written back without re-encoding.
    old = snap.table if len(snap.table) < MAX_TABLE else ()
    table: dict = {k: i for i, k in enumerate(old)}

    def reads(keys: frozenset) -> tuple[int, ...]:
        return tuple(table.setdefault(k, len(table)) for k in keys)

    units = [
        u.encoded[0] if u.encoded is not None and u.encoded[1] is old and old else
        (u.path, [(encode(r), None if s is None else encode(s)) for r, s in u.entries],
         [encode(s) for s in u.used],
         [(e.file, e.line, e.col, e.scope, e.module, e.mechanism.id, e.api, e.point, e.dynamic)
          for e in u.emissions],
         reads(u.reads))
        for u in snap.units.values()
    ]
    d = snap.dispatchers
    disp = (d.classes, reads(d.class_reads), d.policies, d.notes, reads(d.policy_reads))
    return (
        FORMAT, snap.key, snap.files, [encode(s) for s in snap.summaries.values()], units, disp,
        {mech: [encode(s) for s in specs] for mech, specs in snap.derived.items()},
        snap.words, snap.aliases, tuple(table),
    )


def _decode_snapshot(row: tuple, packs: tuple[Pack, ...]) -> Snapshot:
    _, key, files, summaries, units, disp, derived, words, aliases, table = row
    mechanisms = {m.id: m for p in packs for m in p.mechanisms}
    spec = lambda r: decode(RegSpec, r)  # noqa: E731
    reads = lambda ids: frozenset(table[i] for i in ids)  # noqa: E731
    classes, class_reads, policies, notes, policy_reads = disp
    return Snapshot(
        key,
        dict(files),
        {s.path: s for s in (decode(FileSummary, r) for r in summaries)},
        {
            path: Unit(
                path,
                [(decode(Registration, r), None if s is None else spec(s)) for r, s in entries],
                frozenset(spec(s) for s in used),
                [RawEmission(f, line, col, scope, module, mechanisms[m], api, point, dyn)
                 for f, line, col, scope, module, m, api, point, dyn in emissions],
                reads(ids),
                (row, table),
            )
            for row in units for path, entries, used, emissions, ids in [row]
        },
        Dispatchers(classes, reads(class_reads), policies, notes, reads(policy_reads)),
        {mech: [spec(s) for s in specs] for mech, specs in derived.items()},
        (frozenset(words[0]), frozenset(words[1])),
        frozenset(aliases),
        table,
    )
