"""What the codemods know of a project: the scan's facts, the packs' templates, the run's options."""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import fsio
from ..analyzer.context import is_context
from ..config import Config
from ..packs.model import DEFAULT_KERNEL_MODULE, Mechanism, Pack
from ..types import Registration, ScanResult
from .sites import site_of
from .support.lines import python_lines
from .support.names import module_of, package_of
from .support.style import TargetStyle, read_style
from .support.templates import OPTIONAL, Template, free_names


@dataclass(frozen=True, slots=True)
class MigrateOptions:
    select: tuple[str, ...] = ()  # codemod ids; () = all
    ignore: tuple[str, ...] = ()
    kernel_module: str | None = None  # --kernel-module: overrides the config and the packs
    convert_discard: bool = False  # --convert-discard: run returned awaitables (a behaviour change)
    write: bool = False  # apply the changes (else the result holds them as a diff)
    check: bool = False  # report whether anything would change (never writes)
    paths: tuple[str, ...] = ()  # root-relative files or folders; () = the whole project
    owners: bool = False  # --owners: the owner codemods (dispatchers themselves), not call sites
    owner: str | None = None  # with owners: only this one, "mechanism:Class" (--series)


@dataclass
class MigrateFacts:
    config: Config
    scan: ScanResult
    packs: tuple[Pack, ...]
    options: MigrateOptions = field(default_factory=MigrateOptions)
    rewritten: set[tuple] = field(default_factory=set)  # keys of registrations rewritten this run
    # rel -> (content key, module, is_package) of each file as the scan read it
    scanned: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    # rel -> the top-level statements of a file holding a registration, as the scan read it
    outlines: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.config.root

    @functools.cached_property
    def mechanisms(self) -> dict[str, tuple[Mechanism, Pack]]:
        return {m.id: (m, p) for p in self.packs for m in p.mechanisms}

    @functools.cached_property
    def by_file(self) -> dict[str, list[Registration]]:
        out: dict[str, list[Registration]] = defaultdict(list)
        for reg in sorted(self.scan.registrations, key=lambda r: r.sort_key):
            out[reg.file].append(reg)
        return dict(out)

    def runs(self, codemod: str) -> bool:
        """Is *codemod* part of this run (``--select`` / ``--ignore``)?"""
        chosen = not self.options.select or codemod in self.options.select
        return chosen and codemod not in self.options.ignore

    def lines(self, rel: str) -> list[str]:
        """A file's lines as the scan saw them (for the plans' cheap text checks)."""
        cache = self.__dict__.setdefault("_lines", {})
        if rel not in cache:
            try:
                cache[rel] = python_lines(fsio.decode_source(fsio.read_bytes(self.root / rel),
                                                             rel))
            except OSError:
                cache[rel] = []
        return cache[rel]

    @functools.cached_property
    def python_files(self) -> tuple[str, ...]:
        """The project's Python files, listed once, by the scan's discovery (``--exclude`` and
        .gitignore honoured): the files it read and those it could not read, each of which is
        an error of the scan, and so of the run; the library source read as context is not
        the project's."""
        read = {rel for rel in self.scanned if rel.endswith(".py") and not is_context(rel)}
        unread = {e.file for e in self.scan.errors
                  if e.file.endswith(".py") and not is_context(e.file)}
        return tuple(sorted(read | unread))

    def text(self, rel: str) -> str:
        """A project file's text, read once a run (OSError each time it is asked for when it
        cannot be read)."""
        texts = self.__dict__.setdefault("_texts", {})
        if rel not in texts:
            try:
                texts[rel] = fsio.read_text(self.root / rel, errors="replace")
            except OSError as exc:
                texts[rel] = exc
        found = texts[rel]
        if isinstance(found, OSError):
            raise found
        return found  # type: ignore[no-any-return]

    def module(self, rel: str) -> str:
        """*rel*'s module name as the scan gave it (a `src/` layout, a namespace package, a
        script), else the one its path spells."""
        seen = self.scanned.get(rel)
        return seen[1] if seen is not None and seen[1] else module_of(rel)

    def package(self, rel: str) -> str:
        """The package *rel*'s relative imports start from, by the scan's module name ("" for
        a script, which has none)."""
        seen = self.scanned.get(rel)
        if seen is None or not seen[1]:
            return package_of(rel)
        _, module, is_package = seen
        if "/" in module:  # a script, named by its path: no package
            return ""
        return module if is_package else module.rpartition(".")[0]

    def in_scope(self, rel: str) -> bool:
        paths = self.options.paths
        return not paths or any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in paths)

    def kernel(self, pack: Pack) -> str:
        """--kernel-module, else ``kernel-module`` in [tool.planeshift], else the pack's own."""
        return (self.options.kernel_module or self.config.kernel_module
                or pack.migrate.kernel_module or DEFAULT_KERNEL_MODULE)

    def kernel_modules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.kernel(p) for p in self.packs
                                   if any(m.migrate for m in p.mechanisms)))

    def template(self, mechanism: str, plane: str) -> Template | None:
        """The rewrite for a registration of *mechanism* in *plane*, or None when its pack has
        none (or the mechanism declares no ``migrate:``)."""
        mech, pack = self.mechanisms[mechanism]
        if mech.migrate is None:
            return None
        text = dict(mech.migrate.templates).get(plane) or dict(pack.migrate.templates).get(plane)
        return self.compile(text, pack) if text else None

    def looks_migrated(self, reg: Registration, plane: str | None = None) -> bool:
        """The handler text already starts with one of the mechanism's adapter calls (of
        *plane*'s template, or of any), or is its optional form ``optional(h, lambda p:
        <adapter call>...)``: an earlier run rewrote it; the file is not parsed."""
        if reg.via == "config" or reg.mechanism not in self.mechanisms:
            return False
        mech, pack = self.mechanisms[reg.mechanism]
        if mech.migrate is None:
            return False
        templates = {**dict(pack.migrate.templates), **dict(mech.migrate.templates)}
        texts = [templates.get(plane, "")] if plane else list(templates.values())
        expr = reg.handler.expr
        for text in filter(None, texts):
            head = text.split("(", 1)[0] + "("
            if expr.startswith(head) or re.match(
                    rf"{OPTIONAL}\(.*\blambda\s+\w+\s*:\s*{re.escape(head)}", expr, re.DOTALL):
                return True
        return False

    def looks_converted(self, reg: Registration) -> bool:
        """The handler text calls the mechanism's convert_discard wrapper (``scheduling(h)``,
        alone or inside its typed registration): an earlier --convert-discard run converted it."""
        mech = self.mechanisms.get(reg.mechanism, (None, None))[0]
        text = mech.migrate.convert_discard if mech and mech.migrate else None
        if not text:
            return False
        return re.search(rf"\b{re.escape(text.split('(', 1)[0])}\(", reg.handler.expr) is not None

    def convert_template(self, mechanism: str) -> Template | None:
        mech, pack = self.mechanisms[mechanism]
        text = mech.migrate.convert_discard if mech.migrate else None
        return self.compile(text, pack) if text else None

    def compile(self, text: str, pack: Pack) -> Template:
        """*text* as a template importing its names from *pack*'s kernel: made once a run (it
        parses the text), not once a registration."""
        kernel = self.kernel(pack)
        made: dict[tuple, Template] = self.__dict__.setdefault("_templates", {})
        key = (text, kernel, pack.migrate.imports)
        if key not in made:
            modules = {name: module.replace("{kernel}", kernel)
                       for module, names in pack.migrate.imports for name in names}
            used = [(n, modules[n]) for n in free_names(text) if n in modules]
            made[key] = Template(text, tuple(used))
        return made[key]

    def adapter(self, pack: Pack, name: str) -> str:
        """The qualified name of an adapter or kernel name the codemods write themselves."""
        kernel = self.kernel(pack)
        return f"{kernel}.adapters.{name}" if name[0].islower() else f"{kernel}.{name}"

    def registration_name(self, reg: Registration) -> str:
        """*reg*'s typed registration name, unique among the names made up in its module."""
        cache = self.__dict__.setdefault("_names", {})
        if reg.file not in cache:
            cache[reg.file] = made_names(self.by_file.get(reg.file, [reg]))
        return cache[reg.file].get(reg.key) or handler_name(reg)

    @functools.cached_property
    def adapter_names(self) -> frozenset[str]:
        """The calls the packs' templates wrap a handler in (``as_subscriber``...), and
        ``optional``."""
        texts = [t for p in self.packs for _, t in p.migrate.templates]
        texts += [t for p in self.packs for m in p.mechanisms if m.migrate
                  for _, t in m.migrate.templates]
        return frozenset({t.split("(", 1)[0].strip() for t in texts} | {OPTIONAL})

    @functools.cached_property
    def style(self) -> TargetStyle:
        """The target's formatter and import settings (line length, quotes, sections)."""
        return read_style(self.root)

    @functools.cached_property
    def owners(self) -> Callable[[str], str | None]:
        from ..owners import Owners

        return Owners(self.config)


def handler_name(reg: Registration, table: bool = False) -> str:
    """The ``name`` of a typed registration: the handler's qualified name where the scan knows
    it, else the expression qualified by where it is registered; a lambda is named after the
    point (or API) it is registered on, never after a line (lines move). A closure a factory
    made (``handler = make(...)``, the scan's qualified name a function inside a function) is
    one function for many registrations: it is named after the variable where it is
    registered, so each registration has a name of its own."""
    handler = reg.handler
    if handler.kind in ("function", "method", "class", "external") and handler.qualname \
            and not _closure(reg):
        return handler.qualname
    if handler.kind == "partial" and handler.qualname:
        return f"partial({handler.qualname})"
    where = ".".join(p for p in (module_of(reg.file), reg.scope) if p)
    if handler.kind == "lambda":  # a table's entries share one: named after the API
        point = reg.point if reg.point and not table and _plain(reg.point) else \
            reg.api.rsplit(".", 1)[-1]
        return f"{where}.<lambda@{point}>"
    return f"{where}.{' '.join(handler.expr.split())}"


def _closure(reg: Registration) -> bool:
    """*reg* registers a variable holding a nested function (``_make._handler``): a closure
    made by a factory, one per call, whatever the variable is called."""
    expr, qualname = reg.handler.expr, reg.handler.qualname or ""
    parts = qualname.split(".")
    nested = len(parts) >= 2 and all(p[:1].islower() or p[:1] == "_" for p in parts[-2:])
    return expr.isidentifier() and expr != parts[-1] and nested and reg.handler.kind == "function"


def _plain(point: str) -> bool:
    """A point spelled as a name (``BEFORE``, ``Topic.PLACED``, ``security_pre:*``), not an
    expression the scan could only quote (``_Filter(...)``)."""
    return re.fullmatch(r"[\w.:*-]+", point) is not None


def made_names(regs: list[Registration]) -> dict[tuple, str]:
    """The name of each registration of one module (by key): a name planeshift makes up (a
    lambda's, an expression's) is made unique within the module by ``#2``, ``#3``... in the
    order of the call sites (the registrations one call makes for the entries of a table share
    its one rewrite, and so its name); a function's qualified name is its own and stays."""
    out: dict[tuple, str] = {}
    seen: dict[str, int] = {}
    named: dict[tuple, str] = {}
    counts = Counter(site_of(r) for r in {r.key: r for r in regs}.values())
    for reg in sorted(regs, key=lambda r: r.sort_key):
        name = handler_name(reg, table=counts[site_of(reg)] > 1)
        made = reg.handler.kind not in ("function", "method", "class", "external", "partial") \
            or not reg.handler.qualname or _closure(reg)
        site = (*site_of(reg), name)
        if made and site in named:
            name = named[site]
        elif made:
            seen[name] = seen.get(name, 0) + 1
            name = named[site] = name if seen[name] == 1 else f"{name}#{seen[name]}"
        out[reg.key] = name
    return out
