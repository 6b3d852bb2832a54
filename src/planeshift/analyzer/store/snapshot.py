"""The last link of a tree, kept in ``<cache>/link/`` so the next scan can relink incrementally.

A snapshot holds each file's facts digest and summary, each file's unit (its registrations and
emissions, and every index entry producing them read), the dispatcher classes and policies with
their reads, and the forwarders derived. Read keys are stored once and units refer to them by
index; a unit an incremental link reused is written back from the row it was read from.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from pathlib import Path

from ... import fsio
from ...atomic import write_atomic
from ...packs.model import Pack, RegistrationForm
from ..extract.sites import Vocabulary
from ..extract.summary import FileSummary
from ..link.candidate import Call, Candidate
from ..link.dispatchers import Dispatchers
from ..link.index import DepKey
from ..link.linker import Linked
from ..link.match.emissions import RawEmission
from ..link.unit import Unit
from .codec import FORMAT, decode, encode
from .sources import Source


@dataclass
class Snapshot:
    key: str  # the scan root, packs and vocabulary it was linked under
    files: dict[str, tuple[str, str]]  # path -> (fact-cache entry key, facts digest)
    summaries: dict[str, FileSummary]
    units: dict[str, Unit]  # each file's candidates, emissions and reads
    dispatchers: Dispatchers
    derived: dict[str, list[RegistrationForm]]
    words: tuple[frozenset[str], frozenset[str]]  # derived call names and list names
    aliases: frozenset[str]
    helpers: frozenset[str] = frozenset()  # the helpers whose calls were searched
    unique_methods: dict[str, str] = field(default_factory=dict)  # helper methods known by name
    table: tuple[DepKey, ...] = ()  # the read keys units index (reused units keep their rows)
    # path -> (summary, its bytes) as read: a summary a relink kept is written back as it was
    rows: dict[str, tuple[FileSummary, bytes]] = field(default_factory=dict)

    @classmethod
    def of(cls, key: str, linked: Linked, sources: list[Source], digests: list[str],
           base: Vocabulary, table: tuple[DepKey, ...] = (),
           rows: dict[str, tuple[FileSummary, bytes]] | None = None) -> Snapshot:
        return cls(
            key,
            {s.file.rel: (s.key, d) for s, d in zip(sources, digests)},
            {s.path: s for s in linked.summaries},
            linked.units,
            linked.dispatchers,
            linked.derived,
            (linked.vocab.calls - base.calls, linked.vocab.list_attrs - base.list_attrs),
            linked.aliases,
            linked.helpers,
            linked.unique_methods,
            table,
            rows or {},
        )


class SnapshotStore:
    """The latest snapshot in ``<cache>/link/``; written atomically, a bad one is ignored."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder / "link"
        self.key = key

    def load(self, packs: tuple[Pack, ...]) -> Snapshot | None:
        try:
            row = marshal.loads(fsio.read_bytes(self.folder / f"{self.key}.snap"))
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
         [(e.file, e.line, e.col, e.scope, e.module, e.mechanism.id, e.api, e.point, e.dynamic,
           e.end_line, e.end_col, e.dropped) for e in u.emissions],
         reads(u.reads), [encode(c) for c in u.calls])
        for u in snap.units.values()
    ]
    d = snap.dispatchers
    disp = (d.classes, reads(d.class_reads), d.policies, d.notes, reads(d.policy_reads))
    # each summary its own bytes (most of a snapshot: every file's rule facts), so the summaries
    # of the files an edit left alone are written back without encoding them again
    summaries = []
    for summary in snap.summaries.values():
        row = snap.rows.get(summary.path)
        summaries.append(row[1] if row is not None and row[0] is summary
                         else marshal.dumps(encode(summary)))
    return (
        FORMAT, snap.key, snap.files, summaries, units, disp,
        {mech: [encode(s) for s in specs] for mech, specs in snap.derived.items()},
        snap.words, snap.aliases, tuple(snap.helpers), snap.unique_methods, tuple(table),
    )


def _decode_snapshot(row: tuple, packs: tuple[Pack, ...]) -> Snapshot:
    _, key, files, summaries, units, disp, derived, words, aliases, helpers, unique, table = row
    mechanisms = {m.id: m for p in packs for m in p.mechanisms}
    spec = lambda r: decode(RegistrationForm, r)  # noqa: E731
    reads = lambda ids: frozenset(table[i] for i in ids)  # noqa: E731
    classes, class_reads, policies, notes, policy_reads = disp
    rows = {s.path: (s, blob) for blob in summaries
            for s in [decode(FileSummary, marshal.loads(blob))]}
    return Snapshot(
        key,
        dict(files),
        {path: summary for path, (summary, _) in rows.items()},
        {
            path: Unit(
                path,
                [(decode(Candidate, r), None if s is None else spec(s)) for r, s in entries],
                frozenset(spec(s) for s in used),
                [RawEmission(f, line, col, scope, module, mechanisms[m], api, point, dyn, el, ec,
                             dropped)
                 for f, line, col, scope, module, m, api, point, dyn, el, ec, dropped in emissions],
                reads(ids),
                [decode(Call, c) for c in calls],
                (row, table),
            )
            for row in units for path, entries, used, emissions, ids, calls in [row]
        },
        Dispatchers(classes, reads(class_reads), policies, notes, reads(policy_reads)),
        {mech: [spec(s) for s in specs] for mech, specs in derived.items()},
        (frozenset(words[0]), frozenset(words[1])),
        frozenset(aliases),
        frozenset(helpers),
        dict(unique),
        table,
        rows,
    )


