"""The project index: modules, scopes and definitions by qualified name, and import resolution.

Resolution sees through ``import a.b as c``, ``from a import B as C``, relative imports, package
re-exports (``from .bus import HookBus`` in ``__init__``), star imports, and lazy ``__getattr__``
tables such as lionagi's ``_LAZY_MAP``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from typing import Any

from ..extract.facts import Binding, FileFacts, Function, Ref, call_rows

ScopeKey = tuple[str, str]  # (module, scope qualname); qualname "" is the module itself
DepKey = tuple  # (table, key) or ("bindings", scope key, name): one thing a lookup read
Loader = Callable[[str], FileFacts]  # module name -> its facts (a lazy index)
TABLES = ("modules", "functions", "function_module", "classes", "class_module", "scope_kind",
          "methods_of")


class Deps:
    """What the linker read, frame by frame: each unit of linking (a file's sites, the dispatcher
    policies) records the index entries its lookups touched, memoised results included, so a
    later scan can tell which units an edit reaches (see ``incremental.py``)."""

    def __init__(self) -> None:
        self.stack: list[set[DepKey]] = []

    def push(self) -> None:
        self.stack.append(set())

    def pop(self) -> frozenset[DepKey]:
        """Close the innermost frame; what it read was read by the enclosing frame too."""
        read = self.stack.pop()
        if self.stack:
            self.stack[-1] |= read
        return frozenset(read)

    def add(self, read: frozenset[DepKey]) -> None:
        """A memoised result was reused: its reads count for the current frame."""
        if self.stack:
            self.stack[-1] |= read


class Table:
    """One table of the index. A lookup (``get``, ``[]``, ``in``) is recorded in the open frame
    and, in a lazy index, first loads the module that may hold the key; iterating loads every
    module. The index fills it with ``put`` and reads its own entries with ``peek``, unrecorded."""

    __slots__ = ("name", "owner", "data")

    def __init__(self, name: str, owner: ProjectIndex) -> None:
        self.name, self.owner = name, owner
        self.data: dict[Any, Any] = {}

    def __getitem__(self, key: Any) -> Any:
        self.owner.touch(self.name, key)
        return self.data[key]

    def get(self, key: Any, default: Any = None) -> Any:
        self.owner.touch(self.name, key)
        return self.data.get(key, default)

    def __contains__(self, key: object) -> bool:
        self.owner.touch(self.name, key)
        return key in self.data

    def __iter__(self):
        self.owner.load_all()
        return iter(self.data)

    def __len__(self) -> int:
        self.owner.load_all()
        return len(self.data)

    def items(self):
        self.owner.load_all()
        return self.data.items()

    def put(self, key: Any, value: Any) -> None:
        self.data[key] = value

    def peek(self, key: Any, default: Any = None) -> Any:
        """An entry as the index itself sees it: not recorded, nothing loaded."""
        return self.data.get(key, default)


class ProjectIndex:
    """Everything the linker looks names up in: built from all files' facts, or, given a
    *loader* and the project's module names, filled module by module as lookups reach them."""

    def __init__(self, files: Iterable[FileFacts] = (), loader: Loader | None = None,
                 module_names: Iterable[str] = ()) -> None:
        self.files: dict[str, FileFacts] = {}
        self.modules = Table("modules", self)  # module name -> FileFacts
        self.functions = Table("functions", self)  # "module.qualname" -> Function
        self.function_module = Table("function_module", self)  # function -> its module
        self.classes = Table("classes", self)  # "module.qualname" -> Class
        self.class_module = Table("class_module", self)  # class -> its module
        self.scope_kind = Table("scope_kind", self)  # (module, scope) -> module|class|function
        self.methods_of = Table("methods_of", self)  # class -> its functions' qualnames
        self.bindings = _Scopes()
        self.deps = Deps()
        self._loader = loader
        self._pending = set(module_names) if loader is not None else set()
        self._seen: set[Any] = set()
        for facts in files:
            self.add_file(facts)

    def add_file(self, facts: FileFacts) -> None:
        self.files[facts.path] = facts
        if facts.module and self.modules.peek(facts.module) is None:
            self.modules.put(facts.module, facts)
            self._add(facts)

    def _add(self, facts: FileFacts) -> None:
        module = facts.module
        self.scope_kind.put((module, ""), "module")
        lazy = tuple((name, ("lazy", target, attr)) for name, target, attr in facts.lazy_exports)
        self.bindings.add((module, ""), facts.bindings + lazy)
        for cls in facts.classes:
            qn = f"{module}.{cls.qualname}"
            self.classes.put(qn, cls)
            self.class_module.put(qn, module)
            self.scope_kind.put((module, cls.qualname), "class")
            self.bindings.add((module, cls.qualname), cls.bindings)
        for func in facts.functions:
            qn = f"{module}.{func.qualname}"
            # a redefinition (overloads, conditional defs) keeps the last body, as Python does;
            # a property's setter shares its name but not its meaning
            if func.kind != "setter" or self.functions.peek(qn) is None:
                self.functions.put(qn, func)
            self.function_module.put(qn, module)
            self.scope_kind.put((module, func.qualname), "function")
            if "." in func.qualname:
                owner = f"{module}.{func.qualname.rsplit('.', 1)[0]}"
                self.methods_of.data.setdefault(owner, []).append(qn)
            self.bindings.add((module, func.qualname), func)  # its names are read when reached

    # -- recording and lazy loading -----------------------------------------------------------
    def touch(self, table: str, key: Any) -> None:
        if self._pending:
            self._ensure(table, key)
        if self.deps.stack:
            self.deps.stack[-1].add((table, key))

    def note(self, key: DepKey) -> None:
        """Record a read of something outside the tables (``("defined", name)``: which files
        define a function of that name), loading nothing."""
        if self.deps.stack:
            self.deps.stack[-1].add(key)

    def _ensure(self, table: str, key: Any) -> None:
        """Load every not-yet-loaded module that could define *key*."""
        if key in self._seen:
            return
        self._seen.add(key)
        if table == "scope_kind":  # keyed by (module, scope)
            self._load(key[0])
            return
        parts = key.split(".")
        for cut in range(len(parts), 0, -1):  # a module itself, or any module prefixing a name
            self._load(".".join(parts[:cut]))

    def _load(self, module: str) -> None:
        if module in self._pending:
            self._pending.discard(module)
            assert self._loader is not None
            self.add_file(self._loader(module))

    def load_all(self) -> None:
        for module in sorted(self._pending):
            self._load(module)

    def class_bases(self, qn: str) -> tuple[str, tuple[Ref, ...]] | None:
        """(qualname in its module, base refs) of a project class, for its ancestry: recorded
        apart from the class's other facts, so decorating a class or adding an enum member does
        not count as changing every ancestry drawn through it."""
        self.touch("bases", qn)
        cls = self.classes.peek(qn)
        return None if cls is None else (cls.qualname, cls.bases)

    def binding(self, key: ScopeKey, name: str) -> list[Ref] | None:
        """The refs *name* is bound to in scope *key* (None when it is not bound there)."""
        if self._pending:
            self._load(key[0])
        if self.deps.stack:
            self.deps.stack[-1].add(("bindings", key, name))
        return self.bindings.get(key).get(name)

    # -- scopes -------------------------------------------------------------------------------
    def scope_chain(self, module: str, scope: str) -> list[ScopeKey]:
        """Scopes a name used in *scope* may resolve in, innermost first (LEGB without builtins)."""
        chain: list[ScopeKey] = []
        parts = scope.split(".") if scope else []
        first = True
        while parts:
            key = (module, ".".join(parts))
            kind = self.scope_kind.get(key)
            # class bodies are only visible to code directly inside them, not to their methods
            if kind == "function" or (kind == "class" and first):
                chain.append(key)
            first = False
            parts.pop()
        chain.append((module, ""))
        return chain

    def enclosing_class(self, module: str, scope: str) -> str | None:
        """The qualified class a method scope belongs to."""
        if "." not in scope:
            return None
        parent = scope.rsplit(".", 1)[0]
        if self.scope_kind.get((module, parent)) == "class":
            return f"{module}.{parent}"
        return None

    def function_scope(self, func_qn: str) -> ScopeKey:
        module = self.function_module[func_qn]
        return module, func_qn[len(module) + 1 :]

    # -- qualified names ----------------------------------------------------------------------
    def split_module(self, qualname: str) -> tuple[str, list[str]] | None:
        """The longest project module prefixing *qualname*, and the attribute path after it."""
        parts = qualname.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module, parts[cut:]
        return None

    def resolve_module_target(self, module: str, spec: str) -> str:
        """A lazy-table module spec, absolute or relative to *module*'s package."""
        if spec.startswith("."):
            stripped = spec.lstrip(".")
            level = len(spec) - len(stripped)
            parts = module.split(".")
            facts = self.modules.get(module)
            if facts is not None and not facts.is_package:
                parts = parts[:-1]
            base = ".".join(parts[: len(parts) - (level - 1)] if level > 1 else parts)
            return f"{base}.{stripped}" if stripped else base
        candidate = f"{module}.{spec}"
        return candidate if candidate in self.modules else spec



class _Scopes:
    """Scope key -> {name: [binding refs]}, grouped only for the scopes a lookup reaches: the
    linker touches a small part of a large project, and grouping every scope up front cost more
    than all the lookups."""

    def __init__(self) -> None:
        self._raw: dict[ScopeKey, list[tuple[Binding, ...] | Function]] = defaultdict(list)
        self._grouped: dict[ScopeKey, dict[str, list[Ref]]] = {}

    def add(self, key: ScopeKey, bindings: tuple[Binding, ...] | Function) -> None:
        """A scope's names, or the function whose local names they are (read when reached)."""
        self._raw[key].append(bindings)  # a redefined function merges its bodies' names
        self._grouped.pop(key, None)

    def get(self, key: ScopeKey) -> dict[str, list[Ref]]:
        """*name* -> the refs it is bound to, in scope *key* (empty for an unknown scope)."""
        grouped = self._grouped.get(key)
        if grouped is None:
            raw = self._raw.get(key)
            if raw is None:
                return {}
            grouped = defaultdict(list)
            for source in raw:
                bindings = source if isinstance(source, tuple) else source.bindings
                for name, ref in bindings:
                    grouped[name].append(ref)
            grouped = self._grouped[key] = dict(grouped)
        return grouped

    def scopes(self) -> list[ScopeKey]:
        return list(self._raw)


def entries(facts: FileFacts) -> dict[DepKey, Any]:
    """Every index entry one file contributes, keyed as lookups record them, with the value a
    lookup could observe: two versions of a file differ exactly in the entries whose values differ.

    Definition lines are left out (no lookup into another file reports them) and so are local
    names, which are entries of their own; a line-shifting edit above a class does not make
    every user of the class look changed.
    """
    index = ProjectIndex([facts])
    out: dict[DepKey, Any] = {}
    for table in TABLES:
        for key, value in getattr(index, table).data.items():
            if table == "modules":
                value = (value.path, value.is_package)
            elif table == "functions":  # field by field: a cached function is a LazyFunction
                value = tuple(getattr(value, f.name) for f in fields(Function)
                              if f.name not in ("line", "bindings"))
            elif table == "classes":
                out[("bases", key)] = (value.qualname, value.bases)
                value = replace(value, line=0, bindings=())
            elif table == "methods_of":
                value = tuple(value)
            out[(table, key)] = value
    for key in index.bindings.scopes():
        for name, refs in index.bindings.get(key).items():
            out[("bindings", key, name)] = tuple(refs)
    named: dict[str, list[str]] = {}
    for func in facts.functions:
        named.setdefault(func.name, []).append(func.qualname)
    for name, qualnames in named.items():  # read by a handler taken by its name alone
        out[("defined", name)] = tuple(sorted(qualnames))
    # the calls each scope makes, read by a handler's effects (its helpers' bodies): without
    # their positions, so lines moving above them change nothing
    out[("calls", facts.module)] = tuple(sorted({(row[0], row[1], row[6], row[7])
                                                 for row in call_rows(facts)}, key=repr))
    return out
