"""One migration run: scan, plan, rewrite the files that have work, then write them (or not).

Only files some codemod has work for are read and parsed. The codemods whose plans need only
the scan's facts (registration, argv, discard_gate) run first, file by file, on forked workers;
then those whose plans read what the first rewrote (decisions) run on the files they need; then
every changed file is written, unless the run is a dry run or a check. A failure in one file (it
does not parse, a codemod hits a bug, the result does not compile, it changed on disk) is an
error entry for that file; the run goes on.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from ..config import Config
from ..heap import collector_paused
from ..packs.model import DEFAULT_KERNEL_MODULE
from ..types import InputError
from .base import Codemod, Plan, all_codemods
from .facts import MigrateFacts, MigrateOptions
from .model import FileChange, Migrated, MigrateResult, NotMigrated
from .support.files import FileRun, Step, migrate_file, run_files
from .support.writer import WriteError, write_source

Progress = Callable[[int, int], None]


def selected(options: MigrateOptions) -> list[type[Codemod]]:
    """The codemods to run, in running order: the call-site codemods, or with ``owners`` the
    owner codemods; ValueError names an unknown id, or one of the other family."""
    every = {c.id: c for c in all_codemods()}
    known = {i: c for i, c in every.items() if c.owner == options.owners}
    unknown = sorted((set(options.select) | set(options.ignore)) - set(every))
    if unknown:
        raise ValueError(f"no codemod {unknown[0]!r} (have: {', '.join(sorted(every))})")
    other = sorted((set(options.select) | set(options.ignore)) - set(known))
    if other:
        flag = "without --owners" if options.owners else "with --owners"
        raise ValueError(f"codemod {other[0]!r} runs {flag}")
    return [c for c in known.values() if (not options.select or c.id in options.select)
            and c.id not in options.ignore]


def migrate(config: Config, options: MigrateOptions | None = None,
            progress: Progress | None = None) -> MigrateResult:
    """Scan, then rewrite registration call sites onto the kernels: a dry run unless
    ``options.write``; the result holds every change, what was migrated, what was not and why."""
    from .. import api

    options = options or MigrateOptions()
    started = time.perf_counter()
    codemods = selected(options)
    seen: dict[str, tuple[str, str, bool]] = {}
    outlines: dict[str, tuple[int, ...]] = {}
    scan = api.scan(config, seen=seen, outlines=outlines)
    facts = MigrateFacts(config, scan, api.load_packs(config), options, scanned=seen,
                         outlines=outlines)
    plans: dict[str, Plan] = {}
    # LibCST's trees hold no reference cycles: reference counting frees them, and the collector
    # would otherwise traverse every tree, fact and plan again and again while the sites are
    # rewritten (a third of the run on a module of 2,000 registrations)
    with collector_paused():
        runs, absent = _rewrite(codemods, facts, plans, progress, config)
        changes, outcomes = _finish(runs, options, config.root)
    refused = [r for p in plans.values() for r in p.refused]
    return MigrateResult(
        root=config.root.as_posix(),
        mode="write" if options.write and not options.check else
        "check" if options.check else "diff",
        codemods=tuple(c.id for c in codemods),
        kernel_modules=facts.kernel_modules(),
        migrated=tuple(sorted((o for o in outcomes if isinstance(o, Migrated)),
                              key=lambda m: (m.file, m.line, m.codemod))),
        not_migrated=tuple(sorted([*refused, *(o for o in outcomes if isinstance(o, NotMigrated))],
                                  key=lambda n: (n.file, n.line, n.codemod, n.reason))),
        changes=tuple(changes),
        errors=tuple(e for e in scan.errors if facts.in_scope(e.file)),
        already=sum(p.already for p in plans.values()) + sum(o is None for o in outcomes),
        context=scan.context,
        packs=scan.packs,
        stats={"seconds": round(time.perf_counter() - started, 3),
               "scan_seconds": scan.stats.get("seconds"), "scan_cache": scan.stats.get("cache"),
               "files_parsed": sum(1 for r in runs if r.endswith(".py")),
               "warnings": [*scan.stats.get("warnings", ()),
                            *(_ABSENT.format(module=m) for m in absent)]},
    )


def _rewrite(codemods: list[type[Codemod]], facts: MigrateFacts, plans: dict[str, Plan],
             progress: Progress | None, config: Config) -> tuple[dict[str, FileRun], list[str]]:
    """Every file with work through its codemods: those that need only the scan's facts, then
    those whose plans read what the first rewrote; with the kernel modules no file defines."""
    options = facts.options
    work = _work([c for c in codemods if not c.after_rewrites], facts, plans)
    absent = _absent_kernels(facts, facts.scanned) if work else []
    if absent and options.write and not options.check:
        raise InputError("--kernel-module", "<flag>", _ABSENT.format(module=absent[0]))
    counter = _Counter(progress, len(work))
    facts.style  # read once, before the workers fork  # noqa: B018
    runs = run_files(work, facts, config.jobs or _cores(), counter.step)
    for done in runs.values():
        facts.rewritten |= done.rewritten
    late = _work([c for c in codemods if c.after_rewrites], facts, plans)
    counter.total += len(late)
    for rel, steps in late.items():
        runs[rel] = migrate_file(rel, steps, facts, runs.get(rel))
        counter.step(1)
    return runs, absent


_ABSENT = ("the kernel module {module} is in neither the project nor the library source read as "
           "its context, so the rewritten files would not import: vendor the kernels into the "
           "project first (planeshift kernels vendor --into DIR) and name them with "
           "--kernel-module or kernel-module in [tool.planeshift]; nothing is written until then")


def _absent_kernels(facts: MigrateFacts, seen: dict[str, tuple[str, str, bool]]) -> list[str]:
    """The kernel modules the rewrites import that no file of the scan (the tree and its
    context) defines, with their ``adapters``; planeshift's own kernels are always there."""
    modules = {module for _, module, _ in seen.values()}
    return [k for k in facts.kernel_modules()
            if k != DEFAULT_KERNEL_MODULE and not {k, f"{k}.adapters"} <= modules]


def _work(codemods: list[type[Codemod]], facts: MigrateFacts,
          plans: dict[str, Plan]) -> dict[str, list[Step]]:
    """Each file's steps: the codemods with items in it, in running order."""
    work: dict[str, list[Step]] = defaultdict(list)
    for codemod in codemods:
        plans[codemod.id] = plan = codemod.plan(facts)
        for rel, items in plan.items.items():
            work[rel].append((codemod, items))
    return dict(work)


def _finish(runs: dict[str, FileRun], options: MigrateOptions, root: Path
            ) -> tuple[list[FileChange], list[Migrated | NotMigrated | None]]:
    """Each changed file written (with --write) one after the other: an interrupted run leaves
    every file as it was or fully rewritten, and a rerun finds the rest still to do."""
    changes: list[FileChange] = []
    outcomes: list[Migrated | NotMigrated | None] = []
    for rel in sorted(runs):
        run = runs[rel]
        if run.source is None or run.text is None:
            outcomes += run.outcomes
            continue
        written = False
        if options.write and not options.check:
            try:
                write_source(run.source, run.text, root)
                written = True
            except WriteError as exc:
                outcomes += [NotMigrated(o.file, o.line, o.codemod, f"not written: {exc}", True,
                                         o.registration) if isinstance(o, Migrated) else o
                             for o in run.outcomes]
                continue
        outcomes += run.outcomes
        changes.append(FileChange(rel, run.source.text, run.text, written, run.changed))
    return changes, outcomes


def _cores() -> int:
    """``jobs = 0``: one worker per core this process may run on."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class _Counter:
    """Files done so far, reported as (done, total); the total grows as later plans are made."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.done, self.total = progress, 0, total

    def step(self, count: int) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done))
