"""One file through its codemods (read, parse once, transform, add imports, render, compile), and
many files at once, shared with forked helpers.

A file's codemods run in order on one tree; the imports they asked for are added after the last,
so each finds the scan's lines where the scan saw them. The result is checked (it must parse and
``compile()``) here, in whichever process migrates the file; writing is the caller's. Helpers
are forked, so they inherit the scan's facts and the plans instead of receiving them pickled;
only each file's new text and outcomes travel back.
"""

from __future__ import annotations

import ast
import logging
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile

from ...analyzer.store.caches import entry_key
from ...workers import shared_map
from ..base import OUTCOMES, REGIONS, TEXT, UNITS, Codemod, Item
from ..facts import MigrateFacts
from ..model import Migrated, NotMigrated
from .imports import apply_imports
from .layout import fit, fit_tree
from .regions import regions_for
from .writer import SourceFile, WriteError, check_python, read_source

Step = tuple[type[Codemod], list[Item]]
Outcome = Migrated | NotMigrated | None
FORK_THRESHOLD = 4  # fewer files than this are migrated in-process
log = logging.getLogger(__name__)


@dataclass
class FileRun:
    rel: str
    source: SourceFile | None = None
    text: str | None = None  # the new text, when it differs from the source's
    outcomes: list[Outcome] = field(default_factory=list)
    rewritten: set[tuple] = field(default_factory=set)  # registration keys rewritten here
    # the spans of the source's text and the new text outside which the two are the same
    # (``FileChange.changed``), when known
    changed: tuple[tuple[int, int, int, int], ...] | None = None


def migrate_file(rel: str, steps: Sequence[Step], facts: MigrateFacts,
                 run: FileRun | None = None) -> FileRun:
    """Run *steps* on *rel* (or on the text an earlier *run* left); never raises."""
    run = run or FileRun(rel)
    if run.source is None:
        try:
            run.source = read_source(facts.root / rel, rel)
        except (OSError, ValueError) as exc:
            reason = f"cannot read it: {getattr(exc, 'strerror', None) or exc}"
            return _fail(run, steps, reason)
        if not _as_scanned(run.source, facts):
            run.source = None
            return _fail(run, steps, "it changed on disk since the scan read it; run migrate "
                                     "again")
    text = run.text if run.text is not None else run.source.text
    if not rel.endswith(".py"):
        return _settings(run, text, steps, facts)
    before = set(facts.rewritten)
    done = None if facts.options.owners else regional(run, text, steps, facts)
    first = run.text is None  # the text is the source's: no earlier pass changed it
    if done is None:
        run.changed = None
        return _whole(run, text, steps, facts, before)
    run.rewritten |= facts.rewritten - before
    new, compiled, changed = done
    run.changed = changed if first else None
    return _finish(run, text, new, compiled, rel)


def _whole(run: FileRun, text: str, steps: Sequence[Step], facts: MigrateFacts,
           before: set[tuple]) -> FileRun:
    """The whole module parsed, transformed and rendered by LibCST."""
    rel = run.rel
    assert run.source is not None
    try:
        tree = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return _fail(run, steps, f"LibCST cannot parse it: {exc.message}")
    except RecursionError:
        return _fail(run, steps, "LibCST cannot parse it: nesting too deep")
    if tree.code != text:  # LibCST 1.x drops a form feed starting a statement, a final CR
        # a refusal, not an error: nothing went wrong and nothing is left to do that planeshift
        # can do, so `migrate --check` (after --write or not) passes on such a file
        return _fail(run, steps, f"LibCST cannot reproduce it byte for byte{_why(text)}; it is "
                                 "left as it is", error=False)
    context = CodemodContext(filename=str(run.source.path), full_module_name=facts.module(rel),
                             full_package_name=facts.package(rel), scratch={TEXT: (tree, text)})
    parsed = tree
    for codemod, items in steps:
        tree = _transform(codemod, items, tree, context, facts, run)
    run.rewritten |= facts.rewritten - before
    try:
        tree = apply_imports(context, tree, facts.style)
        # the lines the rewrites made too long are laid out as the target's formatter would
        new = fit(tree, text, facts.style, facts.adapter_names, parsed,
                  context.scratch.get(UNITS))
    except Exception as exc:  # noqa: BLE001 - a bug: reported, unchanged
        return _error(run, exc)
    return _finish(run, text, new, new, rel)


def regional(run: FileRun, text: str, steps: Sequence[Step], facts: MigrateFacts
             ) -> tuple[str, str, tuple[tuple[int, int, int, int], ...]] | None:
    """The new text, from only the statements holding the steps' items (``support.regions``),
    the text that must compile for it to (:meth:`Regions.compiled`) and the spans of *text*
    and the new text outside which the two are the same; None where the whole module must be
    parsed instead (the reason is logged)."""
    assert run.source is not None
    # the scan's outline of the module describes the text it read, not an earlier pass's result
    outline = facts.outlines.get(run.rel) if run.text is None else None
    names = _local_names(steps)
    parsed = None
    if outline is None or names:  # a definition looked up by name may stand anywhere
        try:
            parsed = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # the whole module's path says what LibCST makes of it
    regions = regions_for(text, parsed, _lines(steps, parsed, names), outline)
    if isinstance(regions, str):
        log.debug("%s: the whole module is parsed: %s", run.rel, regions)
        return None
    context = CodemodContext(filename=str(run.source.path), full_module_name=facts.module(run.rel),
                             full_package_name=facts.package(run.rel),
                             scratch={REGIONS: regions})
    outcomes = list(run.outcomes)
    tree = regions.module
    for codemod, items in steps:
        tree = _transform(codemod, items, tree, context, facts, run)
    try:
        if regions.failed:
            raise ValueError(regions.failed)
        tree = apply_imports(context, tree, facts.style)
        small = "".join(text[a:b] for a, b in regions.spans)
        new, spans = regions.render(fit_tree(tree, small, facts.style, facts.adapter_names,
                                             regions.module, context.scratch.get(UNITS)))
    except Exception as exc:  # noqa: BLE001 - the whole module's path does it, or says why not
        log.debug("%s: the whole module is parsed: %s", run.rel, exc)
        run.outcomes = outcomes
        return None
    changed = tuple((a, b, c, d) for (a, b), (c, d) in zip(regions.spans, spans, strict=True))
    return new, regions.compiled(new, spans), changed


def _local_names(steps: Sequence[Step]) -> set[str]:
    """The names of the handlers whose definitions a codemod looks up in the module."""
    locals_ = (getattr(item.data, "local", None) for _, items in steps for item in items)
    return {local.split(".")[0] for local in locals_ if isinstance(local, str)}


def _lines(steps: Sequence[Step], parsed: ast.Module | None, names: set[str]) -> set[int]:
    """The lines the steps' items are at (a registration's first and last), and every
    definition of the *names* in *parsed* (given when there are any)."""
    lines: set[int] = set()
    for _, items in steps:
        for item in items:
            lines.add(item.line)
            reg = item.registration
            if reg is not None:
                lines.update(n for n in (reg.line, reg.end_line) if n)
    if names and parsed is not None:
        lines.update(node.lineno for node in ast.walk(parsed) if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names)
    return lines


def _finish(run: FileRun, text: str, new: str, compiled: str, rel: str) -> FileRun:
    """*new* kept if it differs from *text* and *compiled* (*new*, or the statements a regional
    rewrite changed) compiles."""
    assert run.source is not None
    try:
        if new != text:
            check_python(compiled, rel, new)
    except Exception as exc:  # noqa: BLE001 - an uncompilable result or a bug: reported, unchanged
        return _error(run, exc)
    run.text = new if new != run.source.text else None
    return _as_bytes(run)


def _error(run: FileRun, exc: Exception) -> FileRun:
    reason = (str(exc) if isinstance(exc, WriteError) else "nesting too deep to rewrite"
              if isinstance(exc, RecursionError) else f"internal error: {exc!r}")
    run.outcomes = [_as_error(o, reason) for o in run.outcomes]
    return run


def run_files(work: dict[str, list[Step]], facts: MigrateFacts, jobs: int,
              progress: Callable[[int], None] | None = None) -> dict[str, FileRun]:
    """Every file of *work* through its steps, shared with up to *jobs* - 1 forked helpers
    (:func:`planeshift.workers.shared_map`), largest file first."""
    names = list(work)
    if jobs <= 1 or len(names) < FORK_THRESHOLD:
        jobs = 1

    def one(k: int) -> bytes:
        return pickle.dumps(migrate_file(names[k], work[names[k]], facts))

    def done(k: int, blob: bytes) -> None:
        if progress is not None:
            progress(1)

    blobs = shared_map(one, [_size(facts, rel) for rel in names], jobs, done)
    return {rel: pickle.loads(blob) for rel, blob in zip(names, blobs)}


def _transform(codemod: type[Codemod], items: list[Item], tree: cst.Module,
               context: CodemodContext, facts: MigrateFacts, run: FileRun) -> cst.Module:
    try:
        tree = codemod(context, items, facts).transform_stage(tree)
    except SkipFile as exc:
        run.outcomes += [NotMigrated(i.file, i.line, codemod.id, str(exc) or "skipped",
                                     registration=i.registration) for i in items]
    except RecursionError:
        _fail(run, [(codemod, items)], "nesting too deep to rewrite")
    except Exception as exc:  # noqa: BLE001 - a codemod's bug: its items here are errors
        _fail(run, [(codemod, items)], f"internal error: {type(exc).__name__}: {exc}")
    run.outcomes += context.scratch.pop(OUTCOMES, [])
    return tree


def _settings(run: FileRun, text: str, steps: Sequence[Step], facts: MigrateFacts) -> FileRun:
    for codemod, items in steps:
        rewrite = getattr(codemod, "rewrite_text", None)
        if rewrite is not None:
            text, outcomes = rewrite(text, items, facts)
            run.outcomes += outcomes
    assert run.source is not None
    run.text = text if text != run.source.text else None
    return _as_bytes(run)


def _as_bytes(run: FileRun) -> FileRun:
    """The new text must become bytes that keep the original's outside the change and read
    back as that text (:meth:`SourceFile.encode`), in a dry run too; else it is not written."""
    if run.source is not None and run.text is not None:
        try:
            run.source.encode(run.text)
        except WriteError as exc:
            run.outcomes = [_as_error(o, str(exc)) for o in run.outcomes]
            run.text = None
    return run


def _fail(run: FileRun, steps: Sequence[Step], reason: str, error: bool = True) -> FileRun:
    run.outcomes += [NotMigrated(i.file, i.line, codemod.id, reason, error, i.registration)
                     for codemod, items in steps for i in items]
    return run


def _as_error(outcome: Outcome, reason: str) -> Outcome:
    """A rewrite whose file cannot be written becomes an error entry."""
    if isinstance(outcome, Migrated):
        return NotMigrated(outcome.file, outcome.line, outcome.codemod, f"not written: {reason}",
                           True, outcome.registration)
    return outcome


def _why(text: str) -> str:
    if "\r" in text and "\n" not in text:
        return " (CR line endings)"
    return " (a form feed at the start of a statement)" if "\x0c" in text else ""


def _as_scanned(source: SourceFile, facts: MigrateFacts) -> bool:
    """Are the bytes read for rewriting those the scan read? The positions it gave are theirs."""
    seen = facts.scanned.get(source.rel)
    if seen is None:  # not a file the scan read (a library caller): nothing to compare
        return True
    key, module, is_package = seen
    return entry_key(source.data, source.rel, module, is_package) == key


def _size(facts: MigrateFacts, rel: str) -> int:
    try:
        return (facts.root / rel).stat().st_size
    except OSError:
        return 0
