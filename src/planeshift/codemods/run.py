"""One migration run: scan, then each codemod in turn plans and rewrites the files it has work in.

Only files some codemod has work for are read and parsed, once; each codemod runs over every
file before the next one plans (``decisions`` plans from what ``registration`` rewrote), and a
file's imports are added once, after its last codemod, so every codemod finds the scan's lines
where the scan saw them. A failure in one file (it does not parse, a codemod hits a bug, the
result does not compile, it changed on disk) is an error entry for that file; the run goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile

from ..config import Config
from .base import OUTCOMES, TEXT, Codemod, Item, Plan, all_codemods
from .facts import MigrateFacts, MigrateOptions
from .imports import apply_imports
from .model import FileChange, Migrated, MigrateResult, NotMigrated
from .names import module_of, package_of
from .writer import SourceFile, WriteError, check_python, read_source, write_source

Progress = Callable[[int, int], None]


@dataclass
class _File:
    rel: str
    source: SourceFile | None = None
    tree: cst.Module | None = None
    context: CodemodContext | None = None
    text: str | None = None  # the new text of a settings file
    outcomes: list[Migrated | NotMigrated | None] = field(default_factory=list)


def selected(options: MigrateOptions) -> list[type[Codemod]]:
    """The codemods to run, in running order; ValueError names an unknown id."""
    known = {c.id: c for c in all_codemods()}
    unknown = sorted((set(options.select) | set(options.ignore)) - set(known))
    if unknown:
        raise ValueError(f"no codemod {unknown[0]!r} (have: {', '.join(sorted(known))})")
    chosen = [c for c in known.values() if (not options.select or c.id in options.select)
              and c.id not in options.ignore]
    return sorted(chosen, key=lambda c: (c.order, c.id))


def migrate(config: Config, options: MigrateOptions | None = None,
            progress: Progress | None = None) -> MigrateResult:
    """Scan, then rewrite registration call sites onto the kernels: a dry run unless
    ``options.write``; the result holds every change, what was migrated, what was not and why."""
    from .. import api

    options = options or MigrateOptions()

    started = time.perf_counter()
    codemods = selected(options)
    scan = api.scan(config)
    facts = MigrateFacts(config, scan, api.load_packs(config), options)
    plans: dict[str, Plan] = {}
    files: dict[str, _File] = {}
    done = total = 0
    for codemod in codemods:
        plans[codemod.id] = plan = codemod.plan(facts)  # may read what earlier codemods did
        total += len(plan.items)
        for rel, items in sorted(plan.items.items()):
            _run(codemod, files.setdefault(rel, _File(rel)), items, facts)
            done += 1
            if progress is not None:
                progress(done, total)
    changes, outcomes = _finish(files, options)
    refused = [r for p in plans.values() for r in p.refused]
    migrated = sorted((o for o in outcomes if isinstance(o, Migrated)),
                      key=lambda m: (m.file, m.line, m.codemod))
    not_migrated = sorted([*refused, *(o for o in outcomes if isinstance(o, NotMigrated))],
                          key=lambda n: (n.file, n.line, n.codemod, n.reason))
    return MigrateResult(
        root=config.root.as_posix(),
        mode="write" if options.write else "check" if options.check else "diff",
        codemods=tuple(c.id for c in codemods),
        kernel_modules=facts.kernel_modules(),
        migrated=tuple(migrated),
        not_migrated=tuple(not_migrated),
        changes=tuple(changes),
        errors=scan.errors,
        already=sum(p.already for p in plans.values()) + sum(o is None for o in outcomes),
        stats={"seconds": round(time.perf_counter() - started, 3),
               "scan_seconds": scan.stats.get("seconds"), "scan_cache": scan.stats.get("cache"),
               "files_parsed": sum(1 for f in files.values() if f.tree is not None),
               "warnings": list(scan.stats.get("warnings", ()))},
    )


def _run(codemod: type[Codemod], state: _File, items: list[Item], facts: MigrateFacts) -> None:
    if state.source is None and not _read(state, items, codemod, facts.root):
        return
    assert state.source is not None
    if not state.rel.endswith(".py"):
        rewrite = getattr(codemod, "rewrite_text", None)
        if rewrite is None:
            return
        state.text, outcomes = rewrite(state.text or state.source.text, items, facts)
        state.outcomes += outcomes
        return
    if state.tree is None:
        try:
            state.tree = cst.parse_module(state.source.text)
        except cst.ParserSyntaxError as exc:
            _fail(state, items, codemod, f"LibCST cannot parse it: {exc.message}")
            return
        state.context = CodemodContext(
            filename=str(state.source.path), full_module_name=module_of(state.rel),
            full_package_name=package_of(state.rel), scratch={TEXT: (state.tree, state.source.text)})
    assert state.context is not None
    try:
        state.tree = codemod(state.context, items, facts).transform_stage(state.tree)
    except SkipFile as exc:
        state.outcomes += [NotMigrated(i.file, i.line, codemod.id, str(exc) or "skipped",
                                       registration=i.registration) for i in items]
    except Exception as exc:  # a bug in a codemod: this file's items are errors, the run goes on
        _fail(state, items, codemod, f"internal error: {type(exc).__name__}: {exc}")
    state.outcomes += state.context.scratch.pop(OUTCOMES, [])


def _read(state: _File, items: list[Item], codemod: type[Codemod], root: Path) -> bool:
    try:
        state.source = read_source(root / state.rel, state.rel)
    except (OSError, ValueError) as exc:
        _fail(state, items, codemod, f"cannot read it: {getattr(exc, 'strerror', None) or exc}")
        return False
    return True


def _fail(state: _File, items: list[Item], codemod: type[Codemod], reason: str) -> None:
    state.outcomes += [NotMigrated(i.file, i.line, codemod.id, reason, True, i.registration)
                       for i in items]


def _finish(files: dict[str, _File], options: MigrateOptions
            ) -> tuple[list[FileChange], list[Migrated | NotMigrated | None]]:
    changes: list[FileChange] = []
    outcomes: list[Migrated | NotMigrated | None] = []
    for rel in sorted(files):
        state = files[rel]
        if state.source is None:
            outcomes += state.outcomes
            continue
        try:
            after = _new_text(state)
            if after != state.source.text and rel.endswith(".py"):
                check_python(after, rel)
            written = False
            if after != state.source.text and options.write and not options.check:
                write_source(state.source, after)
                written = True
        except WriteError as exc:
            outcomes += _unwritten(state.outcomes, str(exc))
            continue
        outcomes += state.outcomes
        if after != state.source.text:
            changes.append(FileChange(rel, state.source.text, after, written))
    return changes, outcomes


def _new_text(state: _File) -> str:
    assert state.source is not None
    if state.tree is None or state.context is None:
        return state.text if state.text is not None else state.source.text
    return apply_imports(state.context, state.tree).code


def _unwritten(outcomes: list[Migrated | NotMigrated | None], reason: str
               ) -> list[Migrated | NotMigrated | None]:
    """A file that could not be written: its rewrites become errors."""
    return [NotMigrated(o.file, o.line, o.codemod, f"not written: {reason}", True, o.registration)
            if isinstance(o, Migrated) else o for o in outcomes]

