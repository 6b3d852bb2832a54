"""Names across modules for the rules: each file's imports and classes, and a resolver over them.

The linker resolves names for registrations; a rule that needs a class's ancestry or an
exception's qualified name (a base class's status setter, a ``PermissionError`` subclass)
reads this shared per-file fact instead, so it never reaches into the linker.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .syntax import DEFS, dotted, qualname, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts

NAMES = "names"  # the key of this fact among a file's rule facts
_BUILTINS = frozenset(dir(builtins))


def names_of(tree: ast.Module) -> tuple[Any, ...]:
    """(imports, classes, top-level names) of one module, as marshal data.

    imports: (local name, relative level, module, imported name or "") for every import
    statement, module-level ones first; classes: (qualname, line, dotted bases).
    """
    imports: list[tuple[str, int, str, str]] = []
    later: list[tuple[str, int, str, str]] = []
    classes: list[tuple[str, int, tuple[str, ...]]] = []
    for stmt in statements(tree):
        node = stmt.node
        kind = type(node)
        if kind is ast.Import:
            into = later if stmt.function else imports
            for alias in node.names:
                if alias.asname:
                    into.append((alias.asname, 0, alias.name, ""))
                else:
                    head = alias.name.split(".")[0]
                    into.append((head, 0, head, ""))
        elif kind is ast.ImportFrom:
            into = later if stmt.function else imports
            into.extend((a.asname or a.name, node.level, node.module or "", a.name)
                        for a in node.names if a.name != "*")
        elif kind is ast.ClassDef:
            classes.append((qualname(stmt), node.lineno, tuple(dotted(b) or "" for b in node.bases)))
    top = set()
    for node in tree.body:
        if isinstance(node, (*DEFS, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            top.update(t.id for t in targets if isinstance(t, ast.Name))
    return tuple(imports + later), tuple(classes), tuple(sorted(top))


@dataclass
class _Module:
    package: str
    imports: dict[str, str] = field(default_factory=dict)  # local name -> absolute dotted target
    classes: dict[str, tuple[int, tuple[str, ...]]] = field(default_factory=dict)
    top: frozenset[str] = frozenset()


_built: list[tuple[ProjectFacts, Names]] = []


class Names:
    """Qualified names over the project's modules: imports followed through re-exports, and
    class ancestry. A name it cannot follow is returned as written."""

    @classmethod
    def of(cls, project: ProjectFacts) -> Names:
        """The resolver of *project*, built once for all the rules that check it."""
        if not (_built and _built[0][0] is project):
            _built[:] = [(project, cls(project))]
        return _built[0][1]

    @staticmethod
    def forget() -> None:
        """Let the last project go once its rules have run."""
        _built.clear()

    def __init__(self, project: ProjectFacts) -> None:
        self.modules: dict[str, _Module] = {}
        self.paths: dict[str, str] = {}  # module -> file
        paths = {f.path: f.module for f in project.files if f.module}
        for path, (imports, classes, top) in project.rule_facts(NAMES):
            module = paths.get(path)
            if not module:
                continue
            package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
            entry = _Module(package, top=frozenset(top))
            for local, level, source, name in imports:
                base = _absolute(package, level, source)
                entry.imports.setdefault(local, f"{base}.{name}" if name else base)
            entry.classes = {q: (line, bases) for q, line, bases in classes}
            self.modules[module] = entry
            self.paths[module] = path

    def resolve(self, module: str, text: str, depth: int = 0) -> str:
        """The qualified name *text* (dotted, as written in *module*) stands for."""
        entry = self.modules.get(module)
        head, _, rest = text.partition(".")
        if entry is None or depth > 8:
            return text
        if head in entry.top or head in entry.classes:
            return f"{module}.{text}"
        if head in entry.imports:
            return self.follow(entry.imports[head] + (f".{rest}" if rest else ""), depth + 1)
        return text  # a builtin, or a name this module never binds

    def follow(self, qualified: str, depth: int = 0) -> str:
        """*qualified* after re-exports: ``pkg.X`` becomes ``pkg.mod.X`` when ``pkg`` imports it."""
        located = self.locate(qualified)
        if located is None:
            return qualified
        module, inner = located
        entry = self.modules[module]
        head = inner.split(".")[0]
        if head in entry.top or head in entry.classes or head not in entry.imports:
            return qualified
        return self.resolve(module, inner, depth)

    def locate(self, qualified: str) -> tuple[str, str] | None:
        """(module, the rest) for the longest scanned module *qualified* starts with."""
        parts = qualified.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.modules:
                return module, ".".join(parts[i:])
        return None

    def class_of(self, qualified: str) -> tuple[str, str, int, tuple[str, ...]] | None:
        """(module, class qualname, line, dotted bases) of a class defined in the tree."""
        located = self.locate(self.follow(qualified))
        if located is None:
            return None
        module, inner = located
        found = self.modules[module].classes.get(inner)
        return (module, inner, *found) if found else None

    def ancestors(self, qualified: str) -> list[str]:
        """Every base class of *qualified*, nearest first, qualified where they resolve."""
        out: list[str] = []
        todo = [self.follow(qualified)]
        while todo:
            found = self.class_of(todo.pop(0))
            if found is None:
                continue
            module, _, _, bases = found
            for base in bases:
                name = self.resolve(module, base) if base else ""
                if name and name not in out:
                    out.append(name)
                    todo.append(name)
        return out

    def is_builtin(self, name: str) -> bool:
        return name in _BUILTINS


def _absolute(package: str, level: int, module: str) -> str:
    if not level:
        return module
    parts = package.split(".") if package else []
    base = ".".join(parts[: len(parts) - level + 1]) if level <= len(parts) else ""
    return f"{base}.{module}" if base and module else base or module
