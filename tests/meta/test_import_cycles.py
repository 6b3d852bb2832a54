"""planeshift's own modules import each other without a cycle, lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "planeshift"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The planeshift modules *path* imports, anywhere in it (a lazy import is still a cycle)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for guard in ast.walk(tree) if _is_type_checking(guard)
                   for stmt in guard.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # `if TYPE_CHECKING:` imports never run
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            names = [f"{base}.{a.name}" for a in node.names]
            found.update(n for n in names if n in modules)  # `from . import mod` is mod
            if not all(n in modules for n in names):
                found.add(base)
    return {m for m in found if m in modules and m != name}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def import_graph() -> nx.DiGraph:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = nx.DiGraph()
    for path in paths:
        graph.add_node(module_name(path))
        graph.add_edges_from((module_name(path), target) for target in imports_of(path, modules))
    return graph


def test_the_import_graph_sees_the_package() -> None:
    graph = import_graph()
    assert "planeshift.api" in graph and graph.out_degree("planeshift.api") > 3


def test_no_import_cycles() -> None:
    cycles = sorted(" -> ".join([*c, c[0]]) for c in nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles:\n" + "\n".join(cycles[:20])
