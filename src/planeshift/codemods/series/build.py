"""`planeshift migrate --series DIR`: the migration as an ordered patch series, one pull request a
patch, each applying on top of the one before it.

Everything happens on a temporary copy of the project: each step (vendor the kernels, write
the Phase 0 gate, rewrite one owner, migrate the call sites, the settings' argv) is applied
there and the copy's change is the step's patch, so patch N is made on top of patch N-1. The
call-site step's files are split into patches by the owners (mechanisms) they register with
and their package, the project's tests and examples apart. The order is a topological order of
the patches' dependency graph (networkx, imported here only: the kernels before everything, the
gate before the owners, an owner before the call sites that register with it, the library's
call sites before the tests'). Nothing is written outside DIR, and the user's tree is only read.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from ...analyzer.discover import ALWAYS_SKIPPED
from ...config import Config
from ..facts import MigrateOptions
from .model import GATE, KERNELS, Patch, Series, SeriesError
from .patchfile import file_name, now, render
from .steps import SeriesRun

__all__ = ["GATE", "Patch", "Series", "SeriesError", "build_series", "order"]


def build_series(config: Config, options: MigrateOptions, out: Path) -> Series:
    """Make the series on a temporary copy of ``config.root`` and write it into *out*."""
    _check_out(out)
    with tempfile.TemporaryDirectory(prefix="planeshift-series-") as tmp:
        copy = Path(tmp) / "tree" / config.root.name
        shutil.copytree(config.root, copy, symlinks=True,
                        ignore=shutil.ignore_patterns(*ALWAYS_SKIPPED))
        run = SeriesRun(_rebase(config, copy, Path(tmp) / "cache"), options,
                        _prefix(config.root))
        series = run.steps()
    series.patches = order(series.patches)
    _write(series, out)
    return series


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise SeriesError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.glob("*.patch")):
        raise SeriesError(f"{out} already holds .patch files: give an empty or new folder")


def _rebase(config: Config, copy: Path, cache: Path) -> Config:
    """The configuration of the copy: paths inside the project moved into it, its own cache."""
    def move(path: Path) -> Path:
        return copy / path.relative_to(config.root) if path.is_relative_to(config.root) else path

    source = config.source and str(move(Path(config.source)))
    return replace(config, root=copy, packs=tuple(move(p) for p in config.packs),
                   context=tuple(move(p) for p in config.context), source=source,
                   cache_dir=cache, baseline=None)


def _prefix(root: Path) -> str:
    """The project root's path below its git top-level (``services/api/``), or ''."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            rel = root.relative_to(folder).as_posix()
            return "" if rel == "." else rel + "/"
    return ""


def order(patches: list[Patch]) -> list[Patch]:
    """The patches in a topological order of their dependency graph: a patch after every patch
    it needs (and every patch after the kernels); ties by phase, then as they were made (the
    order in which the copy received them, so each applies on top of the one before)."""
    import networkx as nx  # --series only: `planeshift scan` never loads it

    index = {p.key: (p.phase, n) for n, p in enumerate(patches)}
    graph = nx.DiGraph()
    graph.add_nodes_from(index)
    for p in patches:
        graph.add_edges_from((need, p.key) for need in p.needs if need in index)
        if KERNELS in index and p.key != KERNELS:
            graph.add_edge(KERNELS, p.key)
    if not nx.is_directed_acyclic_graph(graph):
        raise SeriesError("the patches depend on each other in a cycle: "
                          f"{nx.find_cycle(graph)}")
    by_key = {p.key: p for p in patches}
    return [by_key[k] for k in nx.lexicographical_topological_sort(graph, key=index.__getitem__)]


def _write(series: Series, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    date, total = now(), len(series.patches)
    for number, patch in enumerate(series.patches, 1):
        patch.written = out / file_name(number, patch.message.subject)
        patch.written.write_text(render(patch.message, patch.files, number, total, date),
                                 encoding="utf-8", newline="\n")
