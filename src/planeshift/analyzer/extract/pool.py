"""Extract every file's facts: the cache first, then the misses on every core.

The misses are shared between this process and forked helpers (:func:`planeshift.workers.
shared_map`): each extracts a file, writes its cache entry and hands back the entry's bytes,
which is all that crosses a process boundary. A single miss runs in-process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...config import Config
from ...heap import collector_paused
from ...workers import shared_map
from ..store.caches import FactCache
from ..store.codec import UNDECODABLE, digest, dumps, loads
from ..store.sources import Source
from .entry_points import extract_entry_points, is_metadata
from .facts import FileFacts
from .file import extract_source, prefilter_for
from .sites import Vocabulary

FORK_THRESHOLD = 8  # fewer files than this: their facts are decoded after, not while, extracting


@dataclass
class Extracted:
    """Every file's facts as cache bytes, decoded only when the linker needs them: a scan whose
    facts are all unchanged is answered from the result cache without decoding any. A file whose
    content key the last link already knew keeps its digest from then and its bytes stay in the
    cache until a lookup reaches it."""

    sources: Sequence[Source]
    blobs: list[bytes | None]
    vocab: Vocabulary
    cache: FactCache | None = None
    extracted: int = 0  # files whose facts this scan extracted rather than read from the cache
    jobs: int = 1
    warnings: list[str] = field(default_factory=list)
    known: dict[str, str] = field(default_factory=dict)  # content key -> facts digest
    _facts: list[FileFacts] | None = None
    _one: dict[int, FileFacts] = field(default_factory=dict)
    _digests: list[str] | None = None

    @property
    def cache_hits(self) -> int:
        """Files answered without extracting them (from the cache, or known from the last link)."""
        return len(self.sources) - self.extracted

    def digests(self) -> list[str]:
        """A digest of each file's facts (not its bytes): a comment-only edit leaves it unchanged."""
        if self._digests is None:
            self._digests = [
                self.known[src.key] if blob is None else digest(blob)
                for src, blob in zip(self.sources, self.blobs)
            ]
        return self._digests

    @property
    def facts(self) -> list[FileFacts]:
        if self._facts is None:
            self._facts = [self.facts_at(i) for i in range(len(self.sources))]
        return self._facts

    def facts_at(self, i: int) -> FileFacts:
        """One file's facts, decoded alone (an incremental link reads only what it reaches)."""
        if self._facts is not None:
            return self._facts[i]
        if i not in self._one:
            self._one[i] = self._decode(self.sources[i], self._blob(i))
        return self._one[i]

    def _blob(self, i: int) -> bytes:
        blob = self.blobs[i]
        if blob is None:
            src = self.sources[i]
            blob = self.cache.get_bytes(src.key) if self.cache is not None else None
            if blob is None:  # the entry went missing since the last scan: extract again
                self.extracted += 1
                blob = _extract_stored(_item(src, self.vocab), src.key, self.cache)
            self.blobs[i] = blob
        return blob

    def _decode(self, src: Source, blob: bytes) -> FileFacts:
        try:
            return loads(blob)
        except UNDECODABLE:
            # a corrupt or foreign cache entry: extract again and overwrite it
            self.extracted += 1
            return loads(_extract_stored(_item(src, self.vocab), src.key, self.cache))


Item = tuple[bytes | str, str, str, bool, Vocabulary, tuple | None]


def _item(src: Source, vocab: Vocabulary, rule_facts: tuple | None = None) -> Item:
    """What a worker needs of a file: its bytes, or (a str) why they could not be read; and the
    rules' facts of those bytes when an extraction under another vocabulary read them."""
    data = src.data
    return (src.problem or data, src.file.rel, src.file.module, src.file.is_package, vocab,
            rule_facts)


def _work(item: Item) -> FileFacts:
    data, rel, module, is_package, vocab, rule_facts = item
    if isinstance(data, str):  # deleted or changed during the scan
        return FileFacts(path=rel, module=module, error=data)
    if is_metadata(rel):
        return extract_entry_points(data, rel)
    if not rel.endswith(".py"):
        from .configs import (
            extract_config,  # here: it imports yaml, which .py files never need
        )

        return extract_config(data, rel, vocab.config_keys)
    return extract_source(data, rel, module, is_package, vocab, rule_facts)


def _work_encoded(item: Item) -> bytes:
    """Facts as cache bytes, which cross the process boundary far faster than pickled
    dataclasses and are written to the cache as they are."""
    return dumps(_work(item))


def _extract_stored(item: tuple, key: str, cache: FactCache | None) -> bytes:
    """Extract one file and write its cache entry, in whichever process extracted it."""
    blob = _work_encoded(item)
    if cache is not None and not isinstance(item[0], str):  # never facts under another's key
        cache.put_bytes(key, blob)
    return blob


def _warn(cache: FactCache | None, warning: str) -> None:
    """A helper's cache warning, kept in the parent's cache (the first one met)."""
    if cache is not None and cache.warning is None:
        cache.warning = warning


def job_count(config: Config) -> int:
    if config.jobs:
        return config.jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class Extraction:
    """One scan's extraction: every file's facts first (``all``), then, when the link derives a
    forwarder whose name widens the vocabulary, again for the files that call it (``again``)."""

    def __init__(self, sources: Sequence[Source], config: Config,
                 caches: Callable[[Vocabulary], FactCache | None]) -> None:
        self.sources = sources
        self.config = config
        self.caches = caches  # the fact cache of a vocabulary (None with the cache off)
        self._by_path = {s.file.rel: s for s in sources}
        self._position = {s.file.rel: i for i, s in enumerate(sources)}
        self._first: Extracted | None = None  # every file's facts under the packs' vocabulary

    def all(self, vocab: Vocabulary, progress: Callable[[int, int], None] | None = None,
            known: dict[str, str] | None = None) -> Extracted:
        """Facts for every file: cached, extracted in parallel, or (content keys in *known*,
        with their facts digests) left in the cache until the link reaches them."""
        self._first = extract_all(self.sources, vocab, self.config, self.caches(vocab),
                                  progress, known=known)
        return self._first

    def again(self, paths: Sequence[str], vocab: Vocabulary) -> list[FileFacts]:
        """The facts of *paths* under a wider vocabulary: their sites of derived APIs too. The
        rules' facts of a file do not depend on the vocabulary: those read the first time are
        kept, not read again."""
        first = self._first
        rule_facts = [first.facts_at(self._position[p]).rule_facts for p in paths
                      ] if first is not None else None
        return extract_all([self._by_path[p] for p in paths], vocab, self.config,
                           self.caches(vocab), rule_facts=rule_facts).facts


def extract_all(
    sources: Sequence[Source],
    vocab: Vocabulary,
    config: Config,
    cache: FactCache | None,
    progress: Callable[[int, int], None] | None = None,
    known: dict[str, str] | None = None,
    rule_facts: Sequence[tuple | None] | None = None,
) -> Extracted:
    """Facts for every source: cached, extracted on every core, or (for content keys in
    *known*, with their facts digests) left in the cache until needed; *rule_facts*, when
    given, are each source's rule facts already read (None: read them)."""
    known = known if cache is not None and known else {}
    blobs: dict[int, bytes] = {}
    misses: list[int] = []
    lazy = 0
    for i, src in enumerate(sources):
        if src.key in known:
            lazy += 1
            continue
        cached = cache.get_bytes(src.key) if cache is not None else None
        if cached is not None:
            blobs[i] = cached
        else:
            misses.append(i)
    out = Extracted(sources=sources, blobs=[], vocab=vocab, cache=cache, extracted=len(misses),
                    known=known)
    total, done = len(sources), len(blobs) + lazy
    if progress:
        progress(done, total)
    items = [_item(sources[i], vocab, rule_facts[i] if rule_facts is not None else None)
             for i in misses]
    out.jobs = min(job_count(config), len(misses)) if hasattr(os, "fork") and misses else 1
    decoded: dict[int, FileFacts] = {}
    many = out.jobs > 1 and len(misses) >= FORK_THRESHOLD

    def work(k: int) -> bytes:
        return _extract_stored(items[k], sources[misses[k]].key, cache)

    def finished(k: int, blob: bytes) -> None:
        nonlocal done
        i = misses[k]
        blobs[i] = blob
        if many:
            decoded[i] = loads(blob)  # while the helpers are still extracting
        done += 1
        if progress:
            progress(done, total)

    if out.jobs > 1:
        prefilter_for(vocab)  # compiled once, before the fork, for every process
    # the facts of the files made and read here hold no reference cycles
    with collector_paused():
        shared_map(work, [len(item[0]) for item in items], out.jobs, finished,
                   note=lambda: (cache.warning or "").encode() if cache is not None else None,
                   noted=lambda warning: _warn(cache, warning.decode()))
    if cache is not None and cache.warning:
        out.warnings.append(cache.warning)
    out.blobs = [blobs.get(i) for i in range(len(sources))]
    if decoded and len(decoded) == len(sources):
        out._facts = [decoded[i] for i in range(len(sources))]
    return out
