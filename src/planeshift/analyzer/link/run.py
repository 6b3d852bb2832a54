"""The link step: relink over the last link when it can be trusted, else link in full."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...packs.model import Pack
from ..extract.facts import FileFacts
from ..extract.pool import Extracted, Extraction
from ..extract.sites import Vocabulary
from ..store.snapshot import Snapshot
from .incremental import Changes, FullLink
from .index import ProjectIndex
from .linker import Linked, Linker

__all__ = ["Linked", "LinkOutcome", "link"]


@dataclass
class LinkOutcome:
    linked: Linked
    layer: str  # "incremental", "facts" (linked in full over cached facts) or "cold"
    full_link: str  # why the last link was not reused ("" when it was)


def link(extracted: Extracted, extraction: Extraction, packs: tuple[Pack, ...],
         vocab: Vocabulary, last: Snapshot | None,
         old_facts: Callable[[str], FileFacts | None]) -> LinkOutcome:
    """Relink over *last* when it can be trusted, else link in full."""
    reason = "no earlier link of this tree"
    if last is not None:
        try:
            return LinkOutcome(_relink(extracted, extraction, packs, vocab, last, old_facts),
                               "incremental", "")
        except FullLink as why:
            reason = str(why)
    linker = Linker(packs, vocab, ProjectIndex(extracted.facts), extraction.again)
    linked = linker.full(extracted.facts)
    return LinkOutcome(linked, "facts" if extracted.cache_hits else "cold", reason)


def _relink(extracted: Extracted, extraction: Extraction, packs: tuple[Pack, ...],
            vocab: Vocabulary, last: Snapshot,
            old_facts: Callable[[str], FileFacts | None]) -> Linked:
    position = {s.file.rel: i for i, s in enumerate(extracted.sources)}

    def current(path: str) -> FileFacts:
        return extracted.facts_at(position[path])

    changes = Changes.since(last, extracted.sources, extracted.digests(), current, old_facts)
    # a lazy index: a module's facts are decoded only when a lookup first reaches it
    index = ProjectIndex(loader=lambda m: current(changes.owners[m]), module_names=changes.owners)
    return Linker(packs, vocab, index, extraction.again).relink(
        last, changes, current)
