"""The steps of `planeshift migrate --series`, each applied to the temporary copy in turn, each
copy change one patch: the kernels, the Phase 0 gate, each owner, the call sites (split by
package and owner, tests and examples apart), the settings' argv."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...analyzer.discover import ALWAYS_SKIPPED
from ...config import Config
from ..facts import MigrateOptions
from ..model import Migrated, MigrateResult, NotMigrated
from .model import ADR, GATE, GATE_KEY, KERNELS, Patch, Series, SeriesError
from .patchfile import FileDiff, Message


class SeriesRun:
    """The steps on one temporary copy (*config* is its configuration), in the order they
    apply; *prefix* is the project root's path below its git top-level."""

    def __init__(self, config: Config, options: MigrateOptions, prefix: str) -> None:
        self.config, self.options, self.prefix = config, options, prefix
        self.root = config.root
        self.patches: list[Patch] = []
        self.results: list[MigrateResult] = []
        self.notes: list[str] = []
        self.gate: str | None = None
        self.packages: tuple[str, ...] = ()
        self.before = self._snapshot()

    def steps(self) -> Series:
        self._kernels()
        self._gate()
        refused = self._owners()
        if self.gate is not None and refused:
            self._patch(GATE_KEY).message.refused += [f"owner not rewritten: {r}"
                                                      for r in refused]
        self._call_sites()
        self._argv()
        gate = "none: nothing could be characterized (see the report); run the project's tests"
        if self.gate:
            run = f"python -m pytest {GATE}"  # from the project root, where its package imports
            gate = f"cd {self.prefix.rstrip('/')} && {run}" if self.prefix else run
        for patch in self.patches:
            if patch.phase > 1 or self.gate is None:
                patch.message.gate = gate
        return Series(self.patches, self.gate, self.packages, self.results, self.notes,
                      gate if self.gate else None)

    # -- the copy -------------------------------------------------------------------------------

    def _snapshot(self) -> dict[str, tuple[bytes, int]]:
        out = {}
        for path in self.root.rglob("*"):
            rel = path.relative_to(self.root)
            if any(part in ALWAYS_SKIPPED for part in rel.parts) or not path.is_file() \
                    or path.is_symlink():
                continue
            out[rel.as_posix()] = (path.read_bytes(), path.stat().st_mode)
        return out

    def _changes(self) -> list[FileDiff]:
        """What the copy's files are now against the last snapshot (which this moves on)."""
        after = self._snapshot()
        out = []
        for rel in sorted(after):
            data, mode = after[rel]
            old = self.before.get(rel)
            if old is not None and old[0] == data:
                continue
            out.append(FileDiff(self.prefix + rel, None if old is None else _text(rel, old[0]),
                                _text(rel, data), "100755" if mode & 0o111 else "100644"))
        gone = sorted(set(self.before) - set(after))
        if gone:
            raise SeriesError(f"a step removed {gone[0]} (a series only adds and edits files)")
        self.before = after
        return out

    def _patch(self, key: str) -> Patch:
        return next(p for p in self.patches if p.key == key)

    def _migrate(self, **flags: Any) -> MigrateResult:
        from ..run import migrate

        gate = (f"/{GATE}",) if self.gate else ()
        config = replace(self.config, exclude=(*self.config.exclude, *gate))
        options = replace(self.options, **{"write": True, "check": False, **flags})
        result = migrate(config, options)
        self.results.append(result)
        self.notes += [f"{e.file}: cannot be analysed: {e.message}" for e in result.errors
                       if f"{e.file}: cannot be analysed: {e.message}" not in self.notes]
        errors = [n for n in result.not_migrated if n.error]
        if errors:
            e = errors[0]
            raise SeriesError(f"{e.file}:{e.line}: {e.codemod}: {e.reason} (in the temporary "
                              "copy; nothing was written)")
        return result

    # -- the steps ------------------------------------------------------------------------------

    def _kernels(self) -> None:
        from ... import api
        from ...packs.model import DEFAULT_KERNEL_MODULE
        from ...vendor import VendorError, vendor_kernels
        from ..owner.plan import kernel_missing

        packs = api.load_packs(self.config)
        modules = dict.fromkeys(
            self.options.kernel_module or self.config.kernel_module or p.migrate.kernel_module
            or DEFAULT_KERNEL_MODULE for p in packs if any(m.migrate for m in p.mechanisms))
        for module in modules:
            if module == DEFAULT_KERNEL_MODULE or kernel_missing(self.root, module) is None:
                continue
            into = _folder(self.root, module)
            try:
                vendor_kernels(into, module)
            except VendorError as exc:
                raise SeriesError(f"cannot vendor the kernels as {module}: {exc}") from exc
            files = self._changes()
            where = into.relative_to(self.root).as_posix()
            what = (f"The reference kernels and adapters of planeshift, copied into {where} "
                    f"({len(files)} files) by `planeshift kernels vendor`; nothing imports them "
                    "yet.")
            self.patches.append(Patch(KERNELS, 1, Message(
                f"Vendor the ADR-0120 dispatch kernels as {module}", [what],
                "the call-site rewrites and the owners' fan-out import them from the project, so "
                "the migrated code depends on nothing from planeshift at run time",
                ADR["kernels"],
                "none yet (the characterization gate is the next patch); the package must still "
                "import"), files))

    def _gate(self) -> None:
        from ... import api

        result = api.characterize(self.config)
        self.packages = result.packages
        if not result.plans:
            self.notes.append("no characterization gate: no dispatch path can be built without "
                              "I/O (planeshift characterize says why)")
            return
        target = self.root / GATE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(result.module, encoding="utf-8")
        self.gate = self.prefix + GATE
        paths = sorted({f"{p.recipe.dispatcher}" for p in result.plans})
        ours = tuple(f"{package}." for package in result.packages)
        skipped = [f"{s.dispatcher}: {s.reason}" for s in result.skipped
                   if s.dispatcher.startswith(ours) and not _absent(s.reason)]
        count = len(result.plans)
        what = (f"{GATE}: {result.tests} tests pinning how {count} dispatch "
                f"path{'s' if count != 1 else ''} behave today ({', '.join(paths)}), written by "
                "`planeshift characterize`.")
        self.patches.append(Patch(GATE_KEY, 2, Message(
            f"{GATE.split('/')[0]}: add the Phase 0 characterization gate", [what],
            "each dispatcher's behaviour (order, sync and async handlers, returned awaitables, "
            "failures, cancellation, deadlines) is pinned before any dispatcher moves onto the "
            "kernels; every later patch of this series must keep it green",
            ADR["gate"], "", [f"characterize left out {s}" for s in skipped]),
            self._changes(), {KERNELS}))

    def _owners(self) -> list[str]:
        """One patch per owner the codemods rewrite; the refused owners' reasons."""
        select, ignore = _family(self.options, owners=True)
        if select is None:
            return []
        dry = self._migrate(owners=True, write=False, select=select, ignore=ignore)
        rewritten = dict.fromkeys((m.owner["mechanism"], m.owner["class"], m.file)
                                  for m in dry.migrated if m.owner and "class" in m.owner)
        classes = {(mechanism, cls) for mechanism, cls, _ in rewritten}
        refused = [f"{_where(n)}: {n.reason}" for n in dry.not_migrated
                   if not _of(n, classes)]  # the storage a rewritten owner keeps: its patch
        files: dict[str, str] = {}
        for mechanism, cls, file in rewritten:
            result = self._migrate(owners=True, owner=f"{mechanism}:{cls}", select=select,
                                   ignore=ignore)
            changes = self._changes()
            if not changes:
                continue
            key = f"owner:{mechanism}:{cls}"
            needs = {KERNELS, GATE_KEY} | ({files[file]} if file in files else set())
            files[file] = key
            what = [f"{_where(m)}: {m.action}{_differences(m)}" for m in result.migrated]
            self.patches.append(Patch(key, 3, Message(
                f"{_package(file)}: run {cls} on the fan-out kernel ({mechanism})", what,
                f"{cls} keeps its public methods; its hand-written fan-out becomes the kernel's "
                "under the policy read from its own loop, so later changes of policy are "
                "declarations rather than loop edits",
                ADR["owner"], "", [f"{_where(n)}: {n.codemod}: {n.reason}"
                                   for n in result.not_migrated
                                   if _of(n, {(mechanism, cls)})]),
                changes, needs, frozenset({mechanism})))
        return refused

    def _call_sites(self) -> None:
        select, ignore = _family(self.options, owners=False, without="argv")
        if select is None:
            return
        result = self._migrate(select=select, ignore=ignore)
        changes = {f.path[len(self.prefix):]: f for f in self._changes()}
        by_file: dict[str, list[Migrated]] = defaultdict(list)
        for m in result.migrated:
            by_file[m.file].append(m)
        groups: dict[tuple[bool, str, str], list[str]] = defaultdict(list)
        for rel in changes:
            groups[(_is_test(rel), _package(rel), _primary(by_file[rel]))].append(rel)
        owners = defaultdict(set)
        for p in self.patches:
            for mech in p.mechanisms:
                owners[mech].add(p.key)
        placed: set[str] = set()
        for (test, package, primary), rels in sorted(groups.items(), key=_group_order):
            mechs = frozenset(m.registration.mechanism for r in rels for m in by_file[r]
                              if m.registration)
            others = sorted(mechs - {primary})
            names = primary + (f" (and {', '.join(others)})" if others else "")
            where = package
            key = f"calls:{'tests' if test else 'lib'}:{package}:{primary}"
            what = [f"{_where(m)}: {m.codemod}: {m.action}" for r in sorted(rels)
                    for m in by_file[r]]
            refused = [f"{_where(n)}: {n.codemod}: {n.reason}" for n in result.not_migrated
                       if n.file in rels]
            placed |= set(rels)
            needs = {KERNELS, GATE_KEY} | {k for m in mechs for k in owners[m]}
            codemods = sorted({m.codemod for r in rels for m in by_file[r]})
            subject, why = _calls_subject(where, names, primary, codemods)
            self.patches.append(Patch(key, 5 if test else 4, Message(
                subject, what, why, "; ".join(ADR[c] for c in codemods), "", refused),
                [changes[r] for r in sorted(rels)], needs, mechs))
        left = [f"{_where(n)}: {n.codemod}: {n.reason}" for n in result.not_migrated
                if n.file not in placed]
        calls = [p for p in self.patches if p.phase in (4, 5)]
        if left and calls:
            calls[-1].message.refused += left
        elif left:
            self.notes += [f"not migrated: {line}" for line in left]

    def _argv(self) -> None:
        if self.options.select and "argv" not in self.options.select \
                or "argv" in self.options.ignore:
            return
        result = self._migrate(select=("argv",), ignore=())
        files = self._changes()
        refused = [f"{_where(n)}: {n.reason}" for n in result.not_migrated]
        if not files:
            self.notes += [f"not migrated: {line}" for line in refused]
            return
        self.patches.append(Patch("argv", 6, Message(
            "settings: external hook commands as argv lists",
            [f"{_where(m)}: {m.action}" for m in result.migrated],
            "a command given as one shell string is split once, here, as the shell would "
            "(shlex), so it runs without a shell", ADR["argv"], "", refused),
            files, {KERNELS}))


OWNER_CODEMODS = ("owner_dispatch", "owner_table", "owner_declarations")


def _family(options: MigrateOptions, owners: bool, without: str = ""
            ) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """--select / --ignore for one family of codemods (owners or call sites, *without* one
    of them): (select, ignore), select None when the user's --select leaves none of it."""
    mine = (lambda c: c in OWNER_CODEMODS) if owners else (
        lambda c: c not in OWNER_CODEMODS and c != without)
    select = tuple(filter(mine, options.select))
    if options.select and not select:
        return None, ()
    ignore = tuple(filter(mine, options.ignore)) + ((without,) if without else ())
    return select, ignore


def _of(item: NotMigrated, owners: set[tuple[str, str]]) -> bool:
    """Is *item* a refusal about one of *owners* (mechanism, class)?"""
    owner = item.owner or {}
    return (owner.get("mechanism"), owner.get("class")) in owners


def _absent(reason: str) -> bool:
    """A characterize skip that says there is nothing in the tree to pin (no dispatch loop, a
    dispatcher of a context package), not one the reviewer needs to know of."""
    return "no dispatch path" in reason or "context package" in reason


def _differences(done: Migrated) -> str:
    """Where an owner's policy differs from its nearest ADR profile (``failure: isolate_base_
    exceptions, not isolate``), or ''."""
    policy = (done.owner or {}).get("policy") or {}
    found = [f"{d['axis']}: {d['code']}, not {d['profile']}"
             for d in policy.get("differences", ())]
    return f" (differs in {'; '.join(found)})" if found else ""


def _folder(root: Path, module: str) -> Path:
    """Where *module* goes in the project: below its top-level package's folder (at the root or
    under ``src/``)."""
    parts = module.split(".")
    for base in (root, root / "src"):
        if (base / parts[0]).is_dir():
            return base.joinpath(*parts)
    raise SeriesError(f"the kernel module {module}: no folder {parts[0]}/ in the project to "
                      "vendor it into (name one with --kernel-module)")


def _text(rel: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SeriesError(f"{rel} is not UTF-8: a series holds text patches only") from exc


def _where(item: Migrated | NotMigrated) -> str:
    return f"{item.file}:{item.line}"


_TEST = re.compile(r"(^|/)(tests?|examples)/|(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")


def _is_test(rel: str) -> bool:
    """The project's tests and examples: under tests/ or examples/, test_*.py, conftest.py."""
    return _TEST.search(rel) is not None


def _package(rel: str) -> str:
    """The package a file's patch is grouped by: its first two folders (``lionagi.session``)."""
    folders = rel.split("/")[:-1]
    return ".".join(folders[:2]) or "(top level)"


def _primary(done: list[Migrated]) -> str:
    """The mechanism most of a file's rewritten registrations register with ('' for none): the
    owner its patch is grouped under (a file is never split between patches)."""
    counts: dict[str, int] = defaultdict(int)
    for m in done:
        if m.registration is not None and m.codemod == "registration":
            counts[m.registration.mechanism] += 1
    if not counts:
        for m in done:
            if m.registration is not None:
                counts[m.registration.mechanism] += 1
    return min(counts, key=lambda mech: (-counts[mech], mech)) if counts else ""


def _group_order(item: tuple[tuple[bool, str, str], list[str]]) -> tuple:
    (test, package, primary), _ = item
    return (test, not primary, package, primary)


DECLARE_WHY = ("each registration with an owner that reads declarations (on the kernels) hands it "
               "a typed registration (its plane, name and policy), which the façade unwraps to "
               "the same handler object; a registration with any other owner is left as it is "
               "(nothing would read its declaration): behaviour stays what it is today")
DISCARD_WHY = ("each registration whose returned awaitable the dispatcher discards is recorded "
               "where it is made, with the team that owns it, so that awaiting it is a change of "
               "its own: behaviour stays what it is today")


def _calls_subject(where: str, names: str, primary: str, codemods: list[str]
                   ) -> tuple[str, str]:
    """A call-site patch's subject and why, after what it carries: typed registrations, only
    the discard notes, or the interceptors' typed decisions."""
    if codemods == ["discard_gate"]:
        return f"{where}: record the discarded awaitables of {names}", DISCARD_WHY
    if primary:
        return f"{where}: typed registrations for {names}", DECLARE_WHY
    return f"{where}: typed decisions from the interceptors", DECLARE_WHY
