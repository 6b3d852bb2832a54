"""The library API: ``scan()`` returns results and never prints (the CLI does)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .analyzer.context import (PREFIX, ContextRoot, context_files, find_roots, is_context,
                               mentioned_in)
from .analyzer.discover import IgnoreRules, SourceFile, discover
from .analyzer.extract.entry_points import is_metadata, metadata_paths
from .analyzer.extract.facts import FileFacts
from .analyzer.extract.pool import Extracted, Extraction
from .analyzer.link.assemble import unread_results
from .analyzer.link.linker import Linked
from .analyzer.link.run import link
from .analyzer.shapes import vocabulary
from .analyzer.store.sources import Source
from .analyzer.store.store import Store, cache_escapes, cache_folder
from .config import Config, ConfigError
from .heap import heap_frozen
from .owners import Owners
from .packs.load import builtin_pack_names, builtin_pack_path, load_pack
from .packs.model import Pack, PackError
from .project import ProjectFacts, mechanism_summaries
from .rules.checks import run_checks
from .rules.classify import classify
from .types import ContextUse, FileError, Registration, ScanResult

if TYPE_CHECKING:
    from .analyzer.link.candidate import Candidate
    from .characterize.model import Characterization

Progress = Callable[[int, int], None]


def scan(config: Config, progress: Progress | None = None,
         seen: dict[str, tuple[str, str, bool]] | None = None,
         outlines: dict[str, tuple[int, ...]] | None = None) -> ScanResult:
    """Discover, extract (in parallel, cached), link, classify and check one project; *seen*,
    when given, receives each file's content key, module and package flag as this scan read
    it (``migrate`` rewrites a file only while its bytes are still those); *outlines*, the
    top-level statements (``extract.outline``) of each file holding a registration, from the
    facts extracted or cached (``migrate`` cuts out the statements it rewrites by them)."""
    started = time.perf_counter()
    escape = cache_escapes(config)
    if escape is not None:
        config = replace(config, use_cache=False)
    packs = load_packs(config)
    vocab = vocabulary(packs)
    store = Store(config, packs, vocab)
    store.warn(escape)
    unlisted: list[tuple[str, str]] = []
    files = discover(config.root, config.exclude, config.gitignore, settings_patterns(packs),
                     store.warnings, unlisted)
    roots, missing = find_roots(packs, config.root, config.context, {f.module for f in files},
                                look=config.use_context, mentions=mentioned_in(files))
    library = context_files(roots)
    sources, unreadable = store.read([*files, *metadata_files(config, packs), *library])
    unreadable += [FileError(rel, cause) for rel, cause in unlisted]
    if seen is not None:
        seen.update((s.file.rel, (s.key, s.file.module, s.file.is_package)) for s in sources)
    # where the context was found belongs to this run, not to the run that filled the cache (two
    # installs of one library share its entries: the key is the bytes read, not their folder)
    context = context_uses(config, packs, roots, missing, library)
    known = store.result(sources, unreadable)
    if known is not None:  # the tree is as last scanned
        if outlines is not None:
            facts = store.facts(vocab)
            _outlines(outlines, known, sources,
                      lambda i: facts.get(sources[i].key) if facts is not None else None)
        return owned(replace(known, context=context, stats=_stats(
            started, "result", len(sources), 0, store.warnings)), config)

    extraction = Extraction(sources, config, store.facts)
    extracted = extraction.all(vocab, progress, store.known_digests())
    known = store.result_of_facts(sources, extracted.digests())
    if known is not None:  # files changed, their facts did not (comments, formatting)
        if outlines is not None:
            _outlines(outlines, known, sources, extracted.facts_at)
        stats = _stats(started, "result-facts", extracted.cache_hits, extracted.jobs,
                       [*extracted.warnings, *store.warnings])
        return owned(replace(known, context=context, stats=stats), config)

    with heap_frozen():  # the facts are read, not freed, while they are linked, checked and kept
        outcome = link(extracted, extraction, packs, vocab, store.last_link(), store.old_facts)
        placed = planes(outcome.linked)
        project = classified(outcome.linked, config, placed, tuple(r.package for r in roots))
        findings, registrations = run_checks(project)
        tree = [f for f in outcome.linked.summaries if not is_context(f.path)]
        failed = [f for f in tree if f.error is not None]
        skipped = [FileError(f.path, f.error) for f in failed if not is_metadata(f.path)]
        store.warnings.extend(f"{f.path}: not read for plugin entry points: {f.error}"
                              for f in failed if is_metadata(f.path))
        result = ScanResult(
            root=config.root.as_posix(),
            registrations=tuple(registrations),
            emissions=project.emissions,
            mechanisms=tuple(mechanism_summaries(project)),
            findings=tuple(f for f in findings if not is_context(f.file)),
            errors=tuple(sorted([*skipped, *(e for e in unreadable if not is_context(e.file))],
                                key=lambda e: e.file)),
            files_scanned=len(files),
            files_with_sites=sum(1 for f in tree if f.has_sites),
            packs=tuple(p.name for p in packs),
            context=context,
            library=library_activated(outcome.linked, placed),
        )
        store.warnings.extend(unmatched_decorators(config, packs, registrations, extracted))
        if not any(s.problem for s in sources):  # a file changed mid-scan: keep nothing of it
            store.keep(result, outcome.linked, extracted, outcome.layer)
    if outlines is not None:
        _outlines(outlines, result, sources, extracted.facts_at)
    stats = _stats(started, outcome.layer, extracted.cache_hits, extracted.jobs,
                   [*extracted.warnings, *store.warnings])
    if outcome.full_link and store.enabled:
        stats["full_link"] = outcome.full_link  # why the last link could not be reused
    return owned(replace(result, stats=stats), config)


def characterize(config: Config, progress: Progress | None = None) -> Characterization:
    """Scan, then plan a characterization test of every dispatch path that can be built
    without I/O (``characterize/``); the scan's own result rides along as ``scan``."""
    from .characterize.plan import characterization

    result = scan(config, progress)
    packs = load_packs(config)
    files = discover(config.root, config.exclude, config.gitignore, settings_patterns(packs))
    return replace(characterization(result, packs, files), scan=result)


def tree_facts(config: Config) -> list[FileFacts]:
    """Every file's facts, extracted (or read from the cache) as a scan would, without linking:
    what ``planeshift packs init`` reads dispatcher classes from."""
    packs = load_packs(config)
    vocab = vocabulary(packs)
    store = Store(config, packs, vocab)
    files = discover(config.root, config.exclude, config.gitignore, settings_patterns(packs))
    sources, _ = store.read(files)
    return Extraction(sources, config, store.facts).all(vocab).facts


def owned(result: ScanResult, config: Config) -> ScanResult:
    """Every finding with its owner (``owners`` in ``[tool.planeshift]``, else CODEOWNERS).

    Owners are settings, not facts of the tree, so the caches keep findings without them and
    each scan resolves them afresh.
    """
    if not result.findings:
        return result
    owner_of = Owners(config)
    return replace(result, findings=tuple(replace(f, owner=owner_of(f.file))
                                          for f in result.findings))


def classified(linked: Linked, config: Config, placed: Callable[[Candidate], Registration],
               context: tuple[str, ...] = ()) -> ProjectFacts:
    """Every candidate of the tree in its plane, as the plain project facts the rules read
    (what the link found in context roots served the link and is not the project's)."""
    return ProjectFacts(
        root=config.root.as_posix(),
        registrations=tuple(placed(c) for c in linked.candidates if not is_context(c.file)),
        emissions=tuple(e for e in linked.emissions if not is_context(e.file)),
        context=context,
        mechanisms=tuple(linked.mechanisms),
        files=tuple(linked.summaries),
    )


def planes(linked: Linked) -> Callable[[Candidate], Registration]:
    """A candidate's registration in its plane: flagged where its hook is firstresult, without
    the effects no caller can meet (``link.assemble.unread_results``), then classified by its
    mechanism's rules. Built once a link: the tree's registrations and the library's the tree
    activates are placed alike."""
    models = {m.id: m.model for m in linked.mechanisms}
    firstresult, unread = firstresult_hooks(linked), unread_results(linked.units)
    return lambda cand: classify(unread(firstresult(cand)), models[cand.mechanism])


def firstresult_hooks(linked: Linked) -> Callable[[Candidate], Candidate]:
    """The hook implementations of a spec marked ``firstresult``: one the tree (or its context)
    marks ``@hookspec(firstresult=True)``, or, for a library's specs not in view, one its pack's
    ``hookimpl`` form names in ``firstresult``. Each is flagged ``firstresult``, with where the
    spec was read as evidence."""
    named = {(m.id, name): "as the pack names it" for m in linked.mechanisms
             for form in m.model.registrations if form.kind == "hookimpl"
             for name in form.firstresult}
    specs = {name: f"at {s.path}:{line}" for s in linked.summaries for name, line in s.firstresult}

    def flag(cand: Candidate) -> Candidate:
        if cand.via != "hookimpl" or "firstresult" in cand.flags:
            return cand
        at = specs.get(cand.point or "") or named.get((cand.mechanism, cand.point or ""))
        if at is None:
            return cand
        return replace(cand, flags=tuple(sorted((*cand.flags, "firstresult"))), evidence=(
            *cand.evidence, f"{cand.point} is a firstresult hook (its spec {at}): the caller "
            "stops at the first result that is not None and uses it"))

    return flag


def library_activated(linked: Linked, placed: Callable[[Candidate], Registration]
                      ) -> tuple[Registration, ...]:
    """The registrations made inside a context library (a helper of lionagi's, say) that the
    tree's own calls activate: each *placed* as in the library, with only the tree's calls as
    its activations, its file relative to the folder holding the package."""
    out = []
    for cand in linked.candidates:
        calls = tuple(a for a in cand.activations if not is_context(a.file))
        if is_context(cand.file) and calls:
            reg = placed(replace(cand, activations=calls))
            out.append(replace(reg, file=reg.file[len(PREFIX):]))
    return tuple(sorted(out, key=lambda r: r.sort_key))


def context_uses(config: Config, packs: tuple[Pack, ...], roots: list[ContextRoot],
                 missing: list[str], library: list[SourceFile]) -> tuple[ContextUse, ...]:
    """What the report says of each pack's package: the source read, or found nowhere."""
    served = {}
    for pack in packs:
        if pack.package:
            served.setdefault(pack.package, []).extend(m.id for m in pack.mechanisms)
    out = [ContextUse(r.package, r.folder.as_posix(), r.version, r.origin,
                      sum(1 for f in library if f.rel.startswith(f"{PREFIX}{r.package}/")),
                      tuple(served[r.package])) for r in roots]
    why = "not found" if config.use_context else "not read (--no-context)"
    out += [ContextUse(p, None, None, why, 0, tuple(served[p])) for p in missing]
    return tuple(out)


def unmatched_decorators(config: Config, packs: tuple[Pack, ...],
                         registrations: Sequence[Registration],
                         extracted: Extracted) -> list[str]:
    """A warning for each decorator form of the user's own packs that matched nothing while the
    tree spells a decorator of its name: the form's qualified name is likely wrong (a decorator
    is matched by what it resolves to, so a misspelt module matches nothing, silently)."""
    given = {str(Path(p).resolve()) for p in config.packs}
    forms = [(pack, mech, form) for pack in packs if str(Path(pack.path).resolve()) in given
             for mech in pack.mechanisms for form in mech.registrations
             if form.kind == "decorator"]
    used = {(r.mechanism, r.api) for r in registrations if r.via == "decorator"}
    idle = [(pack, mech, form) for pack, mech, form in forms
            if (mech.id, form.api_suffix) not in used]
    if not idle:
        return []
    spelled = {site.text.rsplit(".", 1)[-1] for facts in extracted.facts for site in facts.sites
               if site.kind == "decorator"}
    return [f"pack {pack.name}: the decorator form {form.name} of {mech.id} matched nothing, "
            f"though the tree has @{form.api_suffix} decorators: check its qualified name (a "
            "decorator matches by what it resolves to)"
            for pack, mech, form in idle if form.api_suffix in spelled]


def load_packs(config: Config) -> tuple[Pack, ...]:
    """Built-in packs (all, or those the config names) and then the user's packs."""

    names = builtin_pack_names() if config.builtin_packs is None else list(config.builtin_packs)
    cache = cache_folder(config) if config.use_cache and not cache_escapes(config) else None
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


def metadata_files(config: Config, packs: tuple[Pack, ...]) -> list[SourceFile]:
    """The root's packaging metadata, read for plugin entry points when a pack registers plugins
    whole (``extract.entry_points``): read and linked, not counted among the files scanned (one
    that cannot be read is a warning, not a skipped file); ``exclude`` leaves one out."""
    if not any(f.plugins for p in packs for m in p.mechanisms for f in m.registrations):
        return []
    excluded = IgnoreRules.of(config.exclude)
    return [SourceFile(path, path.name, "", False) for path in metadata_paths(config.root)
            if not excluded.ignored(path.name, False)]


def settings_patterns(packs: tuple[Pack, ...]) -> tuple[str, ...]:
    """The hook settings files the packs read (gitignore-style patterns)."""
    return tuple(dict.fromkeys(f for p in packs for m in p.mechanisms for c in m.config for f in c.files))


def _outlines(into: dict[str, tuple[int, ...]], result: ScanResult, sources: Sequence[Source],
              facts_at: Callable[[int], FileFacts | None]) -> None:
    """*into* gets the outline of each file of *sources* holding a registration of *result*."""
    files = {r.file for r in result.registrations}
    for i, src in enumerate(sources):
        if src.file.rel in files:
            facts = facts_at(i)
            if facts is not None and facts.outline:
                into[src.file.rel] = facts.outline


def _stats(started: float, cache: str, hits: int, jobs: int, warnings: list[str]) -> dict:
    """cache: "result" (unchanged tree), "result-facts" (changed files, unchanged facts),
    "incremental" (the edit relinked over the last link), "facts" (per-file facts reused,
    linked in full) or "cold"."""
    return {"seconds": round(time.perf_counter() - started, 3), "cache": cache,
            "cache_hits": hits, "jobs": jobs, "warnings": warnings}
