"""planeshift's own modules import each other in one direction: no cycle (lazy imports inside
functions and ``if TYPE_CHECKING:`` imports included) and no import of a module of a higher layer.

The layers, bottom to top (docs/architecture.md draws them): the shared base (results, settings,
the kernels), the pack model (``packs/``), the analyzer (dispatch-policy inference included), the
rules (classification and checks), what reads a scan (``api``, ``lint``, ``characterize``,
``reports``), the codemods (the reports of a migrate run in their room, ``codemods/report/``),
the CLI. Each layer is whole top-level modules and packages, none carved out of another. A module
of a layer may import its own layer and those below it; the few places where a lower layer needs something only
a higher one knows (the registration shapes a pack form may use, the facts the rules read of a
file, the codes ``severity`` may name) are handed down when the higher layer is imported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "planeshift"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (  # bottom first; the longest prefix decides
    ("base", ("planeshift", "planeshift.types", "planeshift.config", "planeshift.atomic",
              "planeshift.fsio",
              "planeshift.codeversion", "planeshift.heap", "planeshift.method_cache",
              "planeshift.pyfloor",
              "planeshift.pylines",
              "planeshift.repository", "planeshift.workers", "planeshift.vendor",
              "planeshift.owners", "planeshift.kernels")),
    ("packs", ("planeshift.packs",)),
    ("analyzer", ("planeshift.analyzer", "planeshift.project")),
    ("rules", ("planeshift.rules",)),
    ("consumers", ("planeshift.api", "planeshift.lint", "planeshift.characterize",
                   "planeshift.reports", "planeshift.pack_draft")),
    ("codemods", ("planeshift.codemods",)),
    ("cli", ("planeshift.cli", "planeshift.__main__")),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str], type_only: bool = False) -> set[str]:
    """The planeshift modules *path* imports, anywhere in it (a lazy import is still a cycle);
    with *type_only*, the ``if TYPE_CHECKING:`` imports too."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for guard in ast.walk(tree) if _is_type_checking(guard)
                   for stmt in guard.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only and not type_only:
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


def import_graph(type_only: bool = False) -> nx.DiGraph:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = nx.DiGraph()
    for path in paths:
        graph.add_node(module_name(path))
        graph.add_edges_from((module_name(path), target)
                             for target in imports_of(path, modules, type_only))
    return graph


def layer_of(module: str) -> int | None:
    """The index of *module*'s layer in LAYERS (None: no layer names it); the package itself
    (``planeshift/__init__.py``) names only itself."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            below = module.startswith(prefix + ".") and prefix != "planeshift"
            if (module == prefix or below) and (
                    best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def upward(graph: nx.DiGraph) -> list[str]:
    """Each import of a module of a higher layer, as `a -> b (layer -> layer)`."""
    out = []
    for a, b in graph.edges():
        low, high = layer_of(a), layer_of(b)
        if low is not None and high is not None and low < high:
            out.append(f"{a} -> {b} ({LAYERS[low][0]} -> {LAYERS[high][0]})")
    return sorted(out)


def cycles(graph: nx.DiGraph) -> list[str]:
    """Each cycle as `a -> b -> a`, starting at its first module in sorted order."""
    out = []
    for cycle in nx.simple_cycles(graph):
        start = cycle.index(min(cycle))
        cycle = cycle[start:] + cycle[:start]
        out.append(" -> ".join([*cycle, cycle[0]]))
    return sorted(out)


def test_the_import_graph_sees_the_package() -> None:
    graph = import_graph()
    assert "planeshift.api" in graph and graph.out_degree("planeshift.api") > 3
    assert graph.has_edge("planeshift.api", "planeshift.rules.checks")
    assert not import_graph().has_edge("planeshift.rules.suppressions.base", "planeshift.types")
    assert import_graph(type_only=True).has_edge("planeshift.rules.suppressions.base",
                                                 "planeshift.types")


def test_the_checks_see_an_upward_import_and_a_cycle() -> None:
    graph = nx.DiGraph([("planeshift.packs.reader", "planeshift.analyzer.shapes"),
                        ("planeshift.analyzer.shapes", "planeshift.packs.reader")])
    assert upward(graph) == [
        "planeshift.packs.reader -> planeshift.analyzer.shapes (packs -> analyzer)"]
    assert cycles(graph) == [
        "planeshift.analyzer.shapes -> planeshift.packs.reader -> planeshift.analyzer.shapes"]


def test_every_planeshift_import_names_a_module() -> None:
    """A lazy import of a module that moved fails only when it runs: every ``from planeshift...``
    (relative or not) names a module of the package."""
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    missing = []
    for path in paths:
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                    "planeshift")):
                parts = package.split(".")
                base = node.module or ""
                if node.level:
                    parent = ".".join(parts[: len(parts) - node.level + 1])
                    base = f"{parent}.{base}" if base else parent
                if base not in modules:
                    missing.append(f"{name}:{node.lineno} imports {base}")
    assert missing == []


def test_every_folder_of_modules_is_a_package() -> None:
    """A folder of modules without ``__init__.py`` is left out of the installed package."""
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    assert sorted(str(f.relative_to(PACKAGE)) for f in folders
                  if not (f / "__init__.py").is_file()) == []


def test_a_layer_is_whole_packages_none_carved_out_of_another() -> None:
    """The layer map names top-level modules and packages only: no module of one package counted
    in another package's layer (the reports of a migrate run live in ``codemods/report/``)."""
    carved = [p for _, prefixes in LAYERS for p in prefixes if p.count(".") > 1]
    assert carved == []


def test_every_module_has_a_layer() -> None:
    assert layer_of("planeshift.somewhere_new") is None  # a new top-level module must be placed
    assert [m for m in import_graph() if layer_of(m) is None] == []


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(found[:20])


def test_no_import_cycles_through_type_only_imports() -> None:
    found = cycles(import_graph(type_only=True))
    assert not found, "import cycles through TYPE_CHECKING imports:\n" + "\n".join(found[:20])


def test_no_module_imports_a_higher_layer() -> None:
    found = upward(import_graph(type_only=True))
    assert not found, "imports running upwards:\n" + "\n".join(found)


@pytest.mark.parametrize(("module", "above"), [
    ("planeshift.packs.load", ("planeshift.analyzer", "planeshift.rules", "planeshift.codemods")),
    ("planeshift.analyzer.link.run", ("planeshift.rules", "planeshift.codemods", "planeshift.cli")),
    ("planeshift.config", ("planeshift.packs", "planeshift.analyzer", "planeshift.rules")),
])
def test_a_layer_runs_without_the_layers_above_it(module: str, above: tuple[str, ...]) -> None:
    """Imported alone in a fresh interpreter, a module loads nothing of a higher layer."""
    code = (f"import sys, {module}\n"
            f"print(sorted(m for m in sys.modules if m.startswith({above!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_lower_layer_used_before_the_higher_one_hands_down_says_what_to_import() -> None:
    """The pack reader without the shapes, extraction without the rules' file facts: a clear
    error naming the module to import, never a pack read or a file's facts cached without them."""
    code = """
import sys
from planeshift.packs.load import builtin_pack_path, load_pack
from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.extract.sites import Vocabulary
for attempt in (lambda: load_pack(builtin_pack_path("lionagi")),
                lambda: extract_source(b"x = 1\\n", "a.py", "a", False, Vocabulary())):
    try:
        attempt()
    except RuntimeError as exc:
        print(exc)
import planeshift.analyzer.shapes, planeshift.rules.checks
print(len(load_pack(builtin_pack_path("lionagi")).mechanisms) > 0,
      extract_source(b"x = 1\\n", "a.py", "a", False, Vocabulary()).error)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert "import planeshift.analyzer.shapes" in out[0]
    assert "import planeshift.rules.checks" in out[1]
    assert out[2] == "True None"
