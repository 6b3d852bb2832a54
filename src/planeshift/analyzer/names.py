"""The project index: modules, scopes and definitions by qualified name, and import resolution.

Resolution sees through ``import a.b as c``, ``from a import B as C``, relative imports, package
re-exports (``from .bus import HookBus`` in ``__init__``), star imports, and lazy ``__getattr__``
tables such as lionagi's ``_LAZY_MAP``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .facts import Binding, Class, FileFacts, Function, Ref

ScopeKey = tuple[str, str]  # (module, scope qualname); qualname "" is the module itself


class ProjectIndex:
    """Everything the linker looks names up in, built once from all files' facts."""

    def __init__(self, files: Iterable[FileFacts]) -> None:
        self.files: dict[str, FileFacts] = {}
        self.modules: dict[str, FileFacts] = {}
        self.functions: dict[str, Function] = {}  # "module.qualname" -> function
        self.function_module: dict[str, str] = {}
        self.classes: dict[str, Class] = {}
        self.class_module: dict[str, str] = {}
        self.scope_kind: dict[ScopeKey, str] = {}
        self.methods_of: dict[str, list[str]] = defaultdict(list)  # class -> its functions
        self.bindings = _Scopes()
        for facts in files:
            self.files[facts.path] = facts
            if facts.module and facts.module not in self.modules:
                self.modules[facts.module] = facts
                self._add(facts)

    def _add(self, facts: FileFacts) -> None:
        module = facts.module
        self.scope_kind[(module, "")] = "module"
        lazy = tuple((name, ("lazy", target, attr)) for name, target, attr in facts.lazy_exports)
        self.bindings.add((module, ""), facts.bindings + lazy)
        for cls in facts.classes:
            qn = f"{module}.{cls.qualname}"
            self.classes[qn] = cls
            self.class_module[qn] = module
            self.scope_kind[(module, cls.qualname)] = "class"
            self.bindings.add((module, cls.qualname), cls.bindings)
        for func in facts.functions:
            qn = f"{module}.{func.qualname}"
            # a redefinition (overloads, conditional defs) keeps the last body, as Python does;
            # a property's setter shares its name but not its meaning
            if func.kind != "setter" or qn not in self.functions:
                self.functions[qn] = func
            self.function_module[qn] = module
            self.scope_kind[(module, func.qualname)] = "function"
            if "." in func.qualname:
                owner = f"{module}.{func.qualname.rsplit('.', 1)[0]}"
                self.methods_of[owner].append(qn)
            self.bindings.add((module, func.qualname), func.bindings)

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

    def is_module(self, name: str) -> bool:
        return name in self.modules


class _Scopes:
    """Scope key -> {name: [binding refs]}, grouped only for the scopes a lookup reaches: the
    linker touches a small part of a large project, and grouping every scope up front cost more
    than all the lookups."""

    def __init__(self) -> None:
        self._raw: dict[ScopeKey, list[tuple[Binding, ...]]] = defaultdict(list)
        self._grouped: dict[ScopeKey, dict[str, list[Ref]]] = {}

    def add(self, key: ScopeKey, bindings: tuple[Binding, ...]) -> None:
        self._raw[key].append(bindings)  # a redefined function merges its bodies' names
        self._grouped.pop(key, None)

    def get(self, key: ScopeKey, default: dict | None = None) -> dict[str, list[Ref]]:
        grouped = self._grouped.get(key)
        if grouped is None:
            raw = self._raw.get(key)
            if raw is None:
                return default if default is not None else {}
            grouped = defaultdict(list)
            for bindings in raw:
                for name, ref in bindings:
                    grouped[name].append(ref)
            grouped = self._grouped[key] = dict(grouped)
        return grouped

    def __getitem__(self, key: ScopeKey) -> dict[str, list[Ref]]:
        if key not in self._raw:
            raise KeyError(key)
        return self.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._raw
