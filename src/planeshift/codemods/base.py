"""The codemod base class and registry: one codemod per module, found automatically.

A codemod is a ``libcst.codemod.VisitorBasedCodemodCommand`` driven by the scan's facts: its
``plan`` picks the registrations (or handlers, or settings entries) it has work for, per file,
and refuses the rest with a reason, without parsing anything; ``prepare`` locates each item in
the parsed file and schedules edits of exact nodes; the visit then walks only the paths to those
nodes. A rewrite that would be unsafe is refused (``self.warn`` and a not-migrated entry) or
skips the file (``SkipFile``); nothing raises out of a codemod except a bug, which the driver
reports as an error. Run alone (``python -m libcst.tool codemod ...``), a codemod scans the
project itself (see ``standalone``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import graphlib
import importlib
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper

from ..types import Registration
from .facts import MigrateFacts
from .model import Migrated, NotMigrated
from .support.fastinit import FastMatcherInit
from .support.imports import apply_imports
from .support.locate import Locator
from .support.names import ModuleNames, module_names, package_of

REGISTRY: dict[str, type[Codemod]] = {}
OUTCOMES = "planeshift.outcomes"  # context.scratch: what each codemod did, for the driver
TEXT = "planeshift.text"  # context.scratch: (tree, text) the driver parsed, spares a render
AST = "planeshift.ast"  # context.scratch: Python's tree of that text, once parsed
MOVED = "planeshift.lines_moved"  # context.scratch: an edit so far moved lines
REGIONS = "planeshift.regions"  # context.scratch: the tree holds only some statements (regions)
# context.scratch: id(a statement line an edit rebuilt) -> (that line, the line first parsed)
UNITS = "planeshift.units"


@dataclass(frozen=True, slots=True)
class Example:
    """A before/after pair, run by the tests against the demo bus (tests/fixtures/packs/demo.yaml):
    *before* is written to *path*, migrated, and must become *after*."""

    before: str
    after: str
    path: str = "app.py"
    convert_discard: bool = False
    pack: str = ""  # a pack of tests/fixtures/packs/ to run with instead of the demo pack


@dataclass(frozen=True, slots=True)
class Item:
    """One thing a codemod plans to do in a file; *data* is what its plan decided."""

    file: str
    line: int
    col: int = 0
    registration: Registration | None = None
    data: Any = None


@dataclass
class Plan:
    items: dict[str, list[Item]] = field(default_factory=dict)
    refused: list[NotMigrated] = field(default_factory=list)
    already: int = 0  # found already migrated (from the facts alone)

    def add(self, item: Item) -> None:
        self.items.setdefault(item.file, []).append(item)

    def refuse(self, codemod: str, reg: Registration, reason: str) -> None:
        self.refused.append(NotMigrated(reg.file, reg.line, codemod, reason, registration=reg))


class Source:
    """The file a codemod is transforming: its tree, text, statement locator and names."""

    def __init__(self, tree: cst.Module, text: str, rel: str, parsed: ast.Module | None = None,
                 original: cst.Module | None = None, package: str | None = None,
                 partial: bool = False) -> None:
        self.tree, self.text, self.rel, self.original = tree, text, rel, original
        self.package = package_of(rel) if package is None else package  # (relative imports)
        # *parsed* holds only the statements at the module's own level and those rewritten
        # (``support.regions``): every name of the module is then read from the text, if asked
        self.partial = partial
        if parsed is not None:
            self.__dict__["ast"] = parsed

    @functools.cached_property
    def locator(self) -> Locator:
        return Locator(self.tree, self.text, self.ast, self.original)

    @functools.cached_property
    def ast(self) -> ast.Module:
        return ast.parse(self.text)

    @functools.cached_property
    def names(self) -> ModuleNames:
        return module_names(self.ast, self.package, self.text, whole=not self.partial)

    def names_with(self, context: CodemodContext) -> ModuleNames:
        """The module's names with the imports codemods have asked for but not yet added."""
        pending = context.scratch.get(AddImportsVisitor.CONTEXT_KEY, [])
        if not pending:
            return self.names
        imports = {**self.names.imports, **{i.alias or i.obj_name: f"{i.module}.{i.obj_name}"
                                            for i in pending if i.obj_name}}
        return ModuleNames(imports, self.names.tree, self.names.text)

    def code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)


class Codemod(VisitorBasedCodemodCommand, FastMatcherInit):
    id: ClassVar[str] = ""
    after: ClassVar[tuple[str, ...]] = ()  # the ids of the codemods it runs after, on a file
    after_rewrites: ClassVar[bool] = False  # its plan reads what the other codemods rewrote
    keeps_lines: ClassVar[bool] = False  # its edits rewrite expressions in place, line for line
    owner: ClassVar[bool] = False  # rewrites dispatchers themselves (Phase 1): runs with --owners
    DESCRIPTION: str = ""  # what libcst.tool lists
    EXAMPLES: ClassVar[list[Example]] = []

    def __init__(self, context: CodemodContext, items: Sequence[Item] | None = None,
                 facts: MigrateFacts | None = None, kernel_module: str | None = None,
                 convert_discard: bool = False) -> None:
        super().__init__(context)
        self.items, self.facts = items, facts
        self.cli_options = {"kernel_module": kernel_module, "convert_discard": convert_discard}
        self._edits: dict[int, list[Callable[[Any], Any]]] = {}
        self._paths: set[int] = set()

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        """Options for ``python -m libcst.tool codemod`` (as for ``planeshift migrate``)."""
        arg_parser.add_argument("--kernel-module", dest="kernel_module", default=None,
                                help="the import path of the kernels in the project")
        arg_parser.add_argument("--convert-discard", dest="convert_discard",
                                action="store_true", help="discard_gate: convert, not annotate")

    # -- what a codemod implements ----------------------------------------------------------

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        raise NotImplementedError

    def prepare(self, item: Item, source: Source) -> None:
        raise NotImplementedError

    # -- running ----------------------------------------------------------------------------

    def transform_module(self, tree: cst.Module) -> cst.Module:
        """Alone (libcst.tool, tests): the stage, then the imports it asked for."""
        return apply_imports(self.context, self.transform_stage(tree))

    def transform_stage(self, tree: cst.Module) -> cst.Module:
        """The edits alone; the driver adds every codemod's imports to a file once, at the end,
        so later codemods still find the scan's lines where the scan saw them. The tree is not
        deep-copied (LibCST's default): nothing here reads metadata of the copied tree."""
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            try:
                result = self.transform_module_impl(tree)
                if result is not tree and not self.keeps_lines:
                    self.context.scratch[MOVED] = True  # the next codemod renders it again
                return result
            finally:
                self.context = replace(self.context, wrapper=None)

    def file_items(self) -> Sequence[Item]:
        """This file's items: planned from the scan by the driver, or (run alone: libcst.tool,
        tests) by a scan of its own; SkipFile when there are none."""
        if self.facts is None or self.items is None:
            from .standalone import standalone_items

            self.facts, self.items = standalone_items(self, self.context)
        if not self.items:
            raise SkipFile("nothing to migrate in this file")
        return self.items

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        items = self.file_items()
        source = self._source(tree)
        for item in items:
            try:
                self.prepare(item, source)
            except SkipFile:
                raise
            except LookupError as exc:  # the locator could not map this file's statements
                self.refuse(item, f"cannot locate the site: {exc}")
            except Exception as exc:  # noqa: BLE001 - a bug: an error entry, the others go on
                self.refuse(item, f"internal error: {type(exc).__name__}: {exc}", error=True,
                            owner=self.about(item))
        if not self._edits:
            return tree
        if not self.keeps_lines:
            self.context.scratch[MOVED] = True
        return tree.visit(self)

    def _source(self, tree: cst.Module) -> Source:
        """The file as this codemod sees it. While earlier edits kept every line where it was
        (expressions rewritten in place), the text first parsed, and its Python tree, still
        locate statements and lines, so the tree is not rendered and parsed again."""
        scratch, rel = self.context.scratch, self.items[0].file  # type: ignore[index]
        regions = scratch.get(REGIONS)
        if regions is not None:  # support.regions.Regions
            found: Source = regions.source(tree, rel, self.context.full_package_name,
                                           bool(scratch.get(MOVED)))
            return found
        parsed = scratch.get(TEXT)
        if parsed is not None and (parsed[0] is tree or not scratch.get(MOVED)):
            source = Source(tree, parsed[1], rel, scratch.get(AST), parsed[0],
                            self.context.full_package_name)
            scratch[AST] = source.ast
            return source
        return Source(tree, tree.code, rel, package=self.context.full_package_name)

    # -- edits: scheduled on exact nodes, applied while visiting only their paths ------------

    def edit(self, node: cst.CSTNode, path: Iterable[cst.CSTNode],
             change: Callable[[Any], Any]) -> None:
        self._edits.setdefault(id(node), []).append(change)
        self._paths.update(id(n) for n in path)
        self._paths.add(id(node))

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self._paths and (self.plain or super().on_visit(node))

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        result = updated_node if self.plain else super().on_leave(original_node, updated_node)
        for change in self._edits.get(id(original_node), ()):
            result = change(result)
        if result is not original_node and type(original_node) is cst.SimpleStatementLine:
            # which line each rewritten one was: the layout pass keeps the lines it had long
            units = self.context.scratch.setdefault(UNITS, {})
            first = units.pop(id(original_node), None)
            units[id(result)] = (result, first[1] if first and first[0] is original_node
                                 else original_node)
        return result

    def add_import(self, qualified: str, alias: str | None = None) -> None:
        module, _, name = qualified.rpartition(".")
        AddImportsVisitor.add_needed_import(self.context, module, name, alias)

    # -- outcomes ---------------------------------------------------------------------------

    def about(self, item: Item) -> dict[str, Any] | None:
        """What an outcome of *item* says of its owner (owner codemods: the mechanism and the
        class), also when a bug ends its rewrite; None for a call site."""
        return None

    def done(self, item: Item, action: str, owner: dict[str, Any] | None = None) -> None:
        self._record(Migrated(item.file, item.line, self.id, action, item.registration, owner))

    def refuse(self, item: Item, reason: str, error: bool = False,
               owner: dict[str, Any] | None = None) -> None:
        self.warn(f"{item.file}:{item.line}: {reason}")
        self._record(NotMigrated(item.file, item.line, self.id, reason, error, item.registration,
                                 owner))

    def already(self, item: Item) -> None:
        self._record(None)

    def _record(self, outcome: Migrated | NotMigrated | None) -> None:
        self.context.scratch.setdefault(OUTCOMES, []).append(outcome)


def register(cls: type[Codemod]) -> type[Codemod]:
    if not cls.id:
        raise TypeError(f"{cls.__name__} needs an id")
    if cls.id in REGISTRY and REGISTRY[cls.id] is not cls:
        raise ValueError(f"duplicate codemod id {cls.id}: {cls.__name__} and "
                         f"{REGISTRY[cls.id].__name__}")
    REGISTRY[cls.id] = cls
    return cls


def all_codemods() -> list[type[Codemod]]:
    """Every codemod (each ``@register``-ed in its own module of this package's call-site room or
    of ``owner/``), in running order; modules are found with pkgutil, so adding a codemod touches
    no list. ``support/``, ``series/`` and ``report/`` hold no codemod and are not imported here."""
    package = __name__.rpartition(".")[0]
    for room in (package, f"{package}.owner"):
        for info in pkgutil.iter_modules(importlib.import_module(room).__path__):
            if not info.ispkg:
                importlib.import_module(f"{room}.{info.name}")
    return running_order(REGISTRY.values())


class OrderError(ValueError):
    """A codemod runs after an id no codemod has, after one of the other set, or in a cycle."""


def running_order(codemods: Iterable[type[Codemod]]) -> list[type[Codemod]]:
    """*codemods* in the order they run, derived from what each declares: every codemod after
    the ones its ``after`` names and, when its plan reads what the others rewrote
    (``after_rewrites``: the driver plans it in a second pass), after every one whose plan does
    not; ties broken by id. The call-site codemods come first, then the ``--owners`` ones (the
    two sets never run together). OrderError names an unknown id or a cycle."""
    by_id = {c.id: c for c in codemods}
    out: list[type[Codemod]] = []
    for owner in (False, True):
        family = {i: c for i, c in by_id.items() if c.owner == owner}
        sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
        for ident, codemod in family.items():
            for before in codemod.after:
                if before not in by_id:
                    raise OrderError(f"codemod {ident!r} runs after {before!r}, which no codemod "
                                     f"is (have: {', '.join(sorted(by_id))})")
                if before not in family:
                    raise OrderError(f"codemod {ident!r} runs after {before!r}, which runs in "
                                     "the other set (--owners)")
            late = [i for i, c in family.items() if c.after_rewrites < codemod.after_rewrites]
            sorter.add(ident, *codemod.after, *late)
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            raise OrderError("codemods run after each other in a cycle: "
                             + " -> ".join(exc.args[1])) from None
        while sorter.is_active():
            ready = sorted(sorter.get_ready())
            out += [family[i] for i in ready]
            sorter.done(*ready)
    return out


def codemod_by_id(name: str) -> type[Codemod] | None:
    return next((c for c in all_codemods() if c.id == name), None)
