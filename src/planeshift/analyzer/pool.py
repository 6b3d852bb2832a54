"""Extract every file's facts: read and hash, then the cache, then a process pool over the misses.

Workers receive bytes and return plain facts; nothing else crosses the process boundary. Small
batches run in-process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..types import FileError
from .cache import FactCache, dumps, entry_key, loads, salt
from .configs import extract_config
from .discover import SourceFile
from .extract import extract_source
from .facts import FileFacts
from .sites import Vocabulary

POOL_THRESHOLD = 8  # fewer misses than this are extracted in-process (a fork costs ~50 ms)


@dataclass(frozen=True, slots=True)
class Source:
    """A discovered file with its bytes and content key."""

    file: SourceFile
    data: bytes
    key: str


@dataclass
class Extracted:
    """Every file's facts as cache bytes, decoded only when the linker needs them: a scan whose
    facts are all unchanged is answered from the result cache without decoding any."""

    sources: Sequence[Source]
    blobs: list[bytes]
    vocab: Vocabulary
    cache: FactCache | None = None
    cache_hits: int = 0
    jobs: int = 1
    warnings: list[str] = field(default_factory=list)
    _facts: list[FileFacts] | None = None

    def digests(self) -> list[str]:
        """A digest of each file's facts (not its bytes): a comment-only edit leaves it unchanged."""
        return [hashlib.sha256(b).hexdigest()[:24] for b in self.blobs]

    @property
    def facts(self) -> list[FileFacts]:
        if self._facts is None:
            self._facts = [self._decode(src, blob) for src, blob in zip(self.sources, self.blobs)]
        return self._facts

    def _decode(self, src: Source, blob: bytes) -> FileFacts:
        try:
            return loads(blob)
        except (ValueError, KeyError, TypeError, IndexError, EOFError):
            # a corrupt or foreign cache entry: extract again and overwrite it
            self.cache_hits -= 1
            facts = _work((src.data, src.file.rel, src.file.module, src.file.is_package, self.vocab))
            if self.cache is not None:
                self.cache.put(src.key, facts)
            return facts


def read_sources(files: Sequence[SourceFile]) -> tuple[list[Source], list[FileError]]:
    """Read and hash every file; an unreadable one becomes an error, not an exception."""
    out: list[Source] = []
    errors: list[FileError] = []
    for src in files:
        try:
            data = Path(src.path).read_bytes()
        except OSError as exc:
            errors.append(FileError(src.rel, f"cannot read: {exc.strerror or exc}"))
            continue
        out.append(Source(src, data, entry_key(data, src.rel, src.module, src.is_package)))
    return out, errors


def cache_folder(config: Config) -> Path:
    if config.cache_dir is not None:
        return config.cache_dir
    root = config.root if config.root.is_dir() else config.root.parent
    return root / ".planeshift_cache"


def _work(item: tuple[bytes, str, str, bool, Vocabulary]) -> FileFacts:
    data, rel, module, is_package, vocab = item
    if not rel.endswith(".py"):
        return extract_config(data, rel, vocab.config_keys)
    return extract_source(data, rel, module, is_package, vocab)


def _work_encoded(item: tuple[bytes, str, str, bool, Vocabulary]) -> bytes:
    """Facts as cache bytes, which cross the process boundary far faster than pickled
    dataclasses and are written to the cache as they are."""
    return dumps(_work(item))


def _work_cached(job: tuple[tuple, FactCache | None, str]) -> tuple[bytes, str | None]:
    """In a worker: extract, then write the cache entry here, in parallel, not in the parent."""
    item, cache, key = job
    blob = _work_encoded(item)
    if cache is not None:
        cache.put_bytes(key, blob)
        return blob, cache.warning
    return blob, None


def job_count(config: Config) -> int:
    if config.jobs:
        return config.jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def extract_all(
    sources: Sequence[Source],
    vocab: Vocabulary,
    config: Config,
    progress: Callable[[int, int], None] | None = None,
    warm_up: Callable[[], None] | None = None,
) -> Extracted:
    cache = FactCache(cache_folder(config), salt(vocab.fingerprint())) if config.use_cache else None
    blobs: dict[int, bytes] = {}
    misses: list[int] = []
    for i, src in enumerate(sources):
        cached = cache.get_bytes(src.key) if cache is not None else None
        if cached is not None:
            blobs[i] = cached
        else:
            misses.append(i)
    out = Extracted(sources=sources, blobs=[], vocab=vocab, cache=cache, cache_hits=len(blobs))
    total, done = len(sources), len(blobs)
    if progress:
        progress(done, total)
    items = [
        (s.data, s.file.rel, s.file.module, s.file.is_package, vocab)
        for s in (sources[i] for i in misses)
    ]
    out.jobs = min(job_count(config), len(misses)) if len(misses) >= POOL_THRESHOLD else 1
    decoded: dict[int, FileFacts] = {}
    if out.jobs > 1:
        # largest files first, in small chunks: the last worker to finish is not the one that
        # happened to draw the three biggest modules
        order = sorted(range(len(misses)), key=lambda k: -len(items[k][0]))
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(max_workers=out.jobs, mp_context=context) as pool:
            jobs = [(items[k], cache, sources[misses[k]].key) for k in order]
            produced = pool.map(_work_cached, jobs, chunksize=2)
            if warm_up is not None:
                warm_up()  # the parent is idle until the first result: import what linking needs
            for k, (blob, warning) in zip(order, produced):
                i = misses[k]
                blobs[i] = blob
                if warning and cache is not None:
                    cache.warning = warning
                decoded[i] = loads(blob)  # overlaps with the workers still parsing
                done += 1
                if progress:
                    progress(done, total)
    else:
        for i, item in zip(misses, items):
            blobs[i] = _work_encoded(item)
            if cache is not None:
                cache.put_bytes(sources[i].key, blobs[i])
            done += 1
            if progress:
                progress(done, total)
    if cache is not None and cache.warning:
        out.warnings.append(cache.warning)
    out.blobs = [blobs[i] for i in range(len(sources))]
    if decoded and len(decoded) == len(sources):
        out._facts = [decoded[i] for i in range(len(sources))]
    return out
