"""Extract every file's facts: cache first, then a process pool over the misses.

Workers receive paths and return plain facts; nothing else crosses the process boundary. Small
batches run in-process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..rules.packs import Pack
from ..types import FileError
from .cache import FactCache, entry_key, salt
from .discover import SourceFile
from .extract import extract_source
from .facts import FileFacts
from .sites import Vocabulary

POOL_THRESHOLD = 24  # fewer misses than this are extracted in-process


@dataclass
class Extracted:
    facts: list[FileFacts]
    errors: list[FileError] = field(default_factory=list)
    cache_hits: int = 0
    jobs: int = 1
    warnings: list[str] = field(default_factory=list)


def _work(item: tuple[str, str, str, bool, bytes, Vocabulary]) -> FileFacts:
    path, rel, module, is_package, data, vocab = item
    return extract_source(data, rel, module, is_package, vocab)


def _job_count(config: Config) -> int:
    if config.jobs:
        return config.jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def extract_all(
    sources: Sequence[SourceFile],
    vocab: Vocabulary,
    config: Config,
    packs: tuple[Pack, ...],
    progress: Callable[[int, int], None] | None = None,
) -> Extracted:
    cache = None
    if config.use_cache:
        folder = config.cache_dir or (config.root if config.root.is_dir() else config.root.parent)
        if config.cache_dir is None:
            folder = folder / ".planeshift_cache"
        cache = FactCache(folder, salt(repr(vocab)))
    out = Extracted(facts=[])
    results: dict[int, FileFacts] = {}
    misses: list[tuple[int, str, tuple]] = []
    for i, src in enumerate(sources):
        try:
            data = Path(src.path).read_bytes()
        except OSError as exc:
            out.errors.append(FileError(src.rel, f"cannot read: {exc.strerror or exc}"))
            continue
        key = entry_key(data, src.rel, src.module, src.is_package)
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            results[i] = cached
            out.cache_hits += 1
        else:
            misses.append((i, key, (str(src.path), src.rel, src.module, src.is_package, data, vocab)))
    total, done = len(sources), len(results)
    if progress:
        progress(done, total)
    jobs = min(_job_count(config), max(1, len(misses)))
    out.jobs = jobs if len(misses) >= POOL_THRESHOLD else 1
    if out.jobs > 1:
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(max_workers=out.jobs, mp_context=context) as pool:
            chunk = max(1, len(misses) // (out.jobs * 8))
            facts_iter = pool.map(_work, [m[2] for m in misses], chunksize=chunk)
            for (i, key, _), facts in zip(misses, facts_iter):
                results[i] = facts
                if cache is not None:
                    cache.put(key, facts)
                done += 1
                if progress:
                    progress(done, total)
    else:
        for i, key, item in misses:
            facts = _work(item)
            results[i] = facts
            if cache is not None:
                cache.put(key, facts)
            done += 1
            if progress:
                progress(done, total)
    if cache is not None and cache.warning:
        out.warnings.append(cache.warning)
    out.facts = [results[i] for i in sorted(results)]
    return out
