"""The library API: ``scan()`` returns results and never prints (the CLI does)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .analyzer.discover import discover
from .analyzer.extract.facts import FileFacts
from .analyzer.extract.pool import Extracted, cache_folder, extract_all, fact_cache
from .analyzer.extract.sites import Vocabulary
from .analyzer.link.incremental import FullLink, relink
from .analyzer.link.linker import Linked, Linker
from .analyzer.store.caches import ResultCache, prune_other_code
from .analyzer.store.snapshot import Snapshot, SnapshotStore
from .analyzer.store.sources import Source, StatIndex, read_sources
from .config import Config, ConfigError
from .rules.checks import run_checks
from .rules.forms import Pack, PackError
from .rules.packs import builtin_pack_names, builtin_pack_path, load_pack
from .types import FileError, ScanResult

Progress = Callable[[int, int], None]


def load_packs(config: Config) -> tuple[Pack, ...]:
    """Built-in packs (all, or those the config names) and then the user's packs."""
    names = builtin_pack_names() if config.builtin_packs is None else list(config.builtin_packs)
    cache = cache_folder(config) if config.use_cache else None
    available = set(builtin_pack_names())
    packs: list[Pack] = []
    for name in names:
        if name not in available:
            raise ConfigError(config.source or "<flags>", "builtin-packs",
                              f"no built-in pack {name!r} (have: {', '.join(sorted(available))})")
        packs.append(load_pack(builtin_pack_path(name), cache))
    packs.extend(load_pack(p, cache) for p in config.packs)
    seen: dict[str, str] = {}
    for pack in packs:
        for mech in pack.mechanisms:
            if mech.id in seen:
                raise PackError(pack.path, f"mechanisms.{mech.id}",
                                f"mechanism id already defined by pack {seen[mech.id]}")
            seen[mech.id] = pack.name
    return tuple(packs)


def vocabulary(packs: tuple[Pack, ...]) -> Vocabulary:
    """The words a file must contain for its sites to be worth recording (the prefilter)."""
    calls: set[str] = set()
    keywords: set[str] = set()
    list_attrs: set[str] = set()
    assign_attrs: set[str] = set()
    for pack in packs:
        for mech in pack.mechanisms:
            for spec in mech.registrations:
                last = spec.name.rsplit(".", 1)[-1]
                if spec.kind in ("method", "function", "decorator"):
                    calls.add(last)
                elif spec.kind == "keyword":
                    keywords.add(spec.name)
                elif spec.kind == "mapping":
                    # the mapping may come positionally or through **kwargs: the callee's name
                    keywords.add(spec.name)
                    calls.update(c.rsplit(".", 1)[-1] for c in spec.callables)
                elif spec.kind == "append":
                    list_attrs.add(spec.name)
                elif spec.kind == "assign":
                    assign_attrs.add(spec.name)
            for em in mech.emissions:
                calls.add(em.name.rsplit(".", 1)[-1])
    config_keys = {c.key for p in packs for m in p.mechanisms for c in m.config}
    return Vocabulary(frozenset(calls), frozenset(keywords), frozenset(list_attrs),
                      frozenset(assign_attrs), frozenset(config_keys))


def settings_patterns(packs: tuple[Pack, ...]) -> tuple[str, ...]:
    """The hook settings files the packs read (gitignore-style patterns)."""
    return tuple(dict.fromkeys(f for p in packs for m in p.mechanisms for c in m.config for f in c.files))


def scan(config: Config, progress: Progress | None = None) -> ScanResult:
    """Discover, extract (in parallel, cached), link, classify and check one project."""
    started = time.perf_counter()
    packs = load_packs(config)
    vocab = vocabulary(packs)
    files = discover(config.root, config.exclude, config.gitignore, settings_patterns(packs))
    stat_index = StatIndex(cache_folder(config)) if config.use_cache else None
    sources, read_errors = read_sources(files, stat_index)
    if stat_index is not None:
        stat_index.save()
    results = ResultCache(cache_folder(config)) if config.use_cache else None
    result_key = ResultCache.key(
        config.root.as_posix(), repr(packs), *sorted(f"{s.file.rel}:{s.key}" for s in sources)
    )
    cached = results.get(result_key) if results is not None else None
    if cached is not None:
        return replace(cached, stats=_stats(started, "result", len(sources), 0, []))

    snapshots = snapshot = None
    if results is not None:
        snapshots = SnapshotStore(cache_folder(config), ResultCache.key(
            config.root.as_posix(), repr(packs), vocab.fingerprint()))
        snapshot = snapshots.load(packs)
    known = {key: digest for key, digest in snapshot.files.values()} if snapshot else None
    extracted = extract_all(sources, vocab, config, progress, warm_up=_import_link_stack,
                            known=known)
    facts_key = ResultCache.key(
        config.root.as_posix(), repr(packs),
        *sorted(f"{s.file.rel}:{d}" for s, d in zip(sources, extracted.digests())),
    )
    cached = results.get(facts_key) if results is not None else None
    if cached is not None:  # files changed, their facts did not (comments, formatting)
        if results is not None:
            results.put([result_key, facts_key], cached)
        return replace(cached, stats=_stats(started, "result-facts", extracted.cache_hits,
                                            extracted.jobs, extracted.warnings))
    linked, layer, full_link_reason = _link(config, packs, vocab, sources, extracted, snapshot)
    warnings: list[str] = []
    if snapshots is not None:
        prune_other_code(cache_folder(config))
        table = snapshot.table if snapshot is not None and layer == "incremental" else ()
        warning = snapshots.save(Snapshot.of(snapshots.key, linked, sources,
                                             extracted.digests(), vocab, table))
        if warning:
            warnings.append(warning)
    errors = [FileError(f.path, f.error) for f in linked.summaries if f.error is not None]
    result = ScanResult(
        root=config.root.as_posix(),
        registrations=tuple(linked.registrations),
        emissions=tuple(linked.emissions),
        mechanisms=tuple(linked.mechanisms),
        errors=tuple(sorted([*errors, *read_errors], key=lambda e: e.file)),
        files_scanned=len(files),
        files_with_sites=sum(1 for f in linked.summaries if f.has_sites),
        packs=tuple(p.name for p in packs),
    )
    result = replace(result, findings=tuple(run_checks(result, linked)))
    warnings = [*extracted.warnings, *warnings]
    if results is not None:
        warning = results.put([result_key, facts_key], result)
        if warning:
            warnings.append(warning)
    stats = _stats(started, layer, extracted.cache_hits, extracted.jobs, warnings)
    if full_link_reason and results is not None:
        stats["full_link"] = full_link_reason  # why the last link could not be reused
    return replace(result, stats=stats)


def _link(config: Config, packs: tuple[Pack, ...], vocab: Vocabulary, sources: list[Source],
          extracted: Extracted, snapshot: Snapshot | None) -> tuple[Linked, str, str]:
    """Relink over the last link when it can be trusted, else link in full; returns the link,
    the cache layer that answered, and why the last link was not reused ("" when it was)."""
    by_path = {s.file.rel: s for s in sources}

    def reextract(paths: list[str], wider: Vocabulary) -> list[FileFacts]:
        again = extract_all([by_path[p] for p in paths], wider, config)
        extracted.cache_hits += again.cache_hits
        return again.facts

    reason = "no earlier link of this tree"
    if snapshot is not None:
        try:
            linked = relink(snapshot, sources, extracted, packs, vocab, reextract,
                            fact_cache(config, vocab).get)
            return linked, "incremental", ""
        except FullLink as why:
            reason = str(why)
    linked = Linker(extracted.facts, packs, vocab, reextract).link()
    return linked, "facts" if extracted.cache_hits else "cold", reason


def _import_link_stack() -> None:
    import networkx  # noqa: F401  (the inheritance graph of a full link; 0.2 s to import)


def _stats(started: float, cache: str, hits: int, jobs: int, warnings: list[str]) -> dict:
    """cache: "result" (unchanged tree), "result-facts" (changed files, unchanged facts),
    "incremental" (the edit relinked over the last link), "facts" (per-file facts reused,
    linked in full) or "cold"."""
    return {"seconds": round(time.perf_counter() - started, 3), "cache": cache,
            "cache_hits": hits, "jobs": jobs, "warnings": warnings}
