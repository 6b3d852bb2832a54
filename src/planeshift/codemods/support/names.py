"""Names in one module: what its top-level imports bind, and every name it uses or binds.

Codemods match on resolved names, never on spelling: ``as_subscriber`` is the adapter only when
the module imports it from the adapter module (``import x as y`` included), and an import is
added only when the name is free, so the rewrite never shadows a user's own binding.
"""

from __future__ import annotations

import ast
import functools


class ModuleNames:
    """The module's top-level imports, and (computed only when a name in question occurs in its
    text at all) every name it uses or binds: in *tree*, or (without one) in *text* parsed
    then."""

    def __init__(self, imports: dict[str, str], tree: ast.Module | None = None,
                 text: str | None = None) -> None:
        self.imports = imports  # local name -> qualified name, from top-level imports
        self.tree, self.text = tree, text

    @functools.cached_property
    def _names(self) -> tuple[frozenset[str], frozenset[str]]:
        tree = self.tree if self.tree is not None or self.text is None else ast.parse(self.text)
        used, bound = _names(tree) if tree is not None else (set(), set())
        return frozenset(used), frozenset(bound)

    @property
    def used(self) -> frozenset[str]:
        """Every name the module binds or reads, anywhere."""
        return self._names[0]

    @property
    def bound(self) -> frozenset[str]:
        """Every name the module binds, anywhere."""
        return self._names[1]

    def _mentions(self, name: str) -> bool:
        if self.text is None:
            return True
        seen = self.__dict__.setdefault("_mentioned", {})  # one search of the text per name
        if name not in seen:
            seen[name] = name in self.text
        return seen[name]  # type: ignore[no-any-return]

    def builtin(self, name: str) -> bool:
        """Does *name* mean the builtin here (nothing in the module binds it)?"""
        return name.isidentifier() and not (self._mentions(name) and name in self.bound)

    def resolve(self, dotted: str) -> str | None:
        """The qualified name a dotted local reference (``x`` or ``mod.attr``) stands for."""
        head, _, rest = dotted.partition(".")
        target = self.imports.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def free(self, name: str, qualified: str) -> bool:
        """Can *name* be imported as *qualified* here: unused, or already exactly that."""
        if self.imports.get(name) == qualified:
            return True
        return not (self._mentions(name) and name in self.used)


def module_names(tree: ast.Module, package: str = "", text: str | None = None,
                 whole: bool = True) -> ModuleNames:
    """The names of the module *tree* (of *text*); not *whole*: *tree* holds only the statements
    at the module's own level (its imports), and every name is read from *text* if asked."""
    imports: dict[str, str] = {}
    for node in top_level(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    imports[head] = head
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                if alias.name != "*":
                    imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return ModuleNames(imports, tree if whole else None, text)


def top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module statements, looking into top-level try/except (optional imports) but not into
    ``if TYPE_CHECKING:``, whose imports bind nothing at run time."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.Try):
            out += top_level([*node.body, *[s for h in node.handlers for s in h.body]])
        else:
            out.append(node)
    return out


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".") if package else []
    base = parts[: len(parts) - node.level + 1] if node.level > 1 else parts
    return ".".join([*base, *([node.module] if node.module else [])])


def _names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(every name used or bound, every name bound)."""
    names: set[str] = set()
    reads: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else names).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
    return names | reads, names


def module_of(rel: str) -> str:
    """The dotted module name of a root-relative path (``pkg/__init__.py`` is ``pkg``)."""
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(rel: str) -> str:
    module = module_of(rel)
    return module if rel.endswith("__init__.py") else module.rpartition(".")[0]
