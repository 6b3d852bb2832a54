"""What an edit changed, for an incremental link: the files, and the index entries they touch.

The next scan diffs each changed file's old and new facts entry by entry (``index.entries``);
the linker then keeps every unit of the last link whose reads miss the touched entries. When
reuse could differ from linking afresh (more than a fifth of the files changed, the old facts
left the cache, a module name two files share was touched) :class:`FullLink` says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..extract.facts import FileFacts
from ..extract.summary import FileSummary
from .index import DepKey, entries

if TYPE_CHECKING:
    from ..store.sources import Source

MAX_CHANGED_SHARE = 0.2  # beyond this many changed files a full link is as quick
_MISSING = object()


class Recorded(Protocol):
    """What the diff reads of the last link (``store.snapshot.Snapshot``): each file's fact-cache
    entry key and facts digest, and its summary."""

    @property
    def files(self) -> dict[str, tuple[str, str]]: ...

    @property
    def summaries(self) -> dict[str, FileSummary]: ...


class FullLink(Exception):
    """Reuse could differ from linking afresh; the message says why (reported in stats)."""


@dataclass
class Changes:
    """The edit since the last link: which files, which index entries, and module owners."""

    paths: list[str]  # every file of the tree, in scan order
    changed: set[str]
    removed: set[str]
    touched: set[DepKey]
    owners: dict[str, str]  # module name -> the file defining it

    @classmethod
    def since(cls, snap: Recorded, sources: Sequence[Source], digests: list[str],
              current: Callable[[str], FileFacts],
              old_facts: Callable[[str], FileFacts | None]) -> Changes:
        paths = [s.file.rel for s in sources]
        present = set(paths)
        changed = {p for p, d in zip(paths, digests) if snap.files.get(p, ("", ""))[1] != d}
        removed = {p for p in snap.files if p not in present}
        if len(changed) + len(removed) > MAX_CHANGED_SHARE * max(len(paths), 1):
            raise FullLink(f"{len(changed) + len(removed)} files changed")
        now = lambda p: current(p) if p in present else None  # noqa: E731
        touched = _touched(snap, changed | removed, now, old_facts)
        owners = _owners(sources, snap, changed | removed, now)
        return cls(paths, changed, removed, touched, owners)


def _touched(snap: Recorded, paths: set[str], now: Callable[[str], FileFacts | None],
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


def _owners(sources: Sequence[Source], snap: Recorded, paths: set[str],
            now: Callable[[str], FileFacts | None]) -> dict[str, str]:
    """Module name -> the file that defines it (the first, as a full link has it); an edit
    touching a module name two files share changes which file it means, so it links in full."""
    owners: dict[str, str] = {}
    counts = Counter(s.file.module for s in sources if s.file.module)
    for s in sources:
        if s.file.module:
            owners.setdefault(s.file.module, s.file.rel)
    for path in paths:
        facts = now(path)
        module = facts.module if facts is not None else snap.summaries[path].module
        if counts[module] > 1 or (facts is None and module in owners):
            raise FullLink(f"module {module} is defined by more than one file")
    return owners


def example(keys: set) -> str:
    """One touched entry, as a reason reads it."""
    table, *rest = sorted(keys, key=repr)[0]
    return f"{table} {' '.join(map(str, rest))}"
