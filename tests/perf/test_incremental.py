"""Incremental linking reports exactly what a full link reports, after every kind of edit.

Each case edits the fixture tree after a scan left its link snapshot, scans again with the cache
(incremental, or a full link when the edit reaches what reuse cannot follow) and compares the
JSON report with a scan that uses no cache at all; then it undoes the edit and compares again, so
the snapshot an incremental scan writes is checked too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from analyzer.helpers import write_tree

from perf.fixture_tree import fixture_files, report, run

Edit = Callable[[Path], None]


def append(rel: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        path = root / rel
        path.write_text(path.read_text() + text)
    return edit


def substitute(rel: str, old: str, new: str) -> Edit:
    def edit(root: Path) -> None:
        path = root / rel
        source = path.read_text()
        assert old in source, f"{rel} does not contain {old!r}"
        path.write_text(source.replace(old, new, 1))
    return edit


def create(rel: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        (root / rel).write_text(text)
    return edit


def delete(rel: str) -> Edit:
    def edit(root: Path) -> None:
        (root / rel).unlink()
    return edit


# name -> (edit, the cache layer expected: "incremental", or None when a full link is fine)
CASES: dict[str, tuple[Edit, str | None]] = {
    # the benchmark's edit: a new function at the end of the dispatcher's module
    "function appended to the bus module": (
        append("demo/bus.py", "\n\ndef _added():\n    return 1\n"), "incremental"),
    "lines above every definition of the bus module": (
        substitute("demo/bus.py", "from __future__", "import os\nimport sys\n\nfrom __future__"),
        None),  # (a __future__ import must come first: this is a syntax error, reported)
    "blank lines above the bus module's code": (
        substitute("demo/bus.py", "import enum", "\n\n\nimport enum"), "incremental"),
    "a handler turns sync (its callers in another module see it)": (
        substitute("app/mod_0.py", "async def handle_0", "def handle_0"), "incremental"),
    "a handler turns async": (
        substitute("app/mod_4.py", "def handle_4", "async def handle_4"), "incremental"),
    "a registration added": (
        append("app/mod_4.py", "\nfrom demo.bus import EventBus, Point\n"
                               "EventBus().on(Point.AFTER, handle_4)\n"), "incremental"),
    "a registration removed": (
        substitute("app/mod_5.py", "    bus.on(Point.BEFORE, handle_5)\n", ""), "incremental"),
    "a new module registering handlers": (
        create("app/extra.py", "from demo.bus import EventBus, Point\n"
                               "from app.mod_0 import handle_0\n\n"
                               "def wire(bus: EventBus) -> None:\n"
                               "    bus.on(Point.AFTER, handle_0)\n"), "incremental"),
    "a helper gets a caller (an activation)": (
        append("app/mod_3.py", "\nfrom app.mod_0 import setup_0\nfrom demo.bus import EventBus\n"
                               "setup_0(EventBus())\n"), "incremental"),
    "a new helper and its caller": (
        create("app/extra2.py", "from demo.bus import EventBus, Point\n"
                                "from app.mod_0 import handle_0\n\n"
                                "def wire(bus: EventBus) -> None:\n"
                                "    bus.on(Point.AFTER, handle_0)\n\n"
                                "wire(EventBus())\n"), "incremental"),
    "a module whose handler others import deleted": (delete("app/mod_4.py"), None),
    "an import aliased": (
        substitute("app/mod_0.py", "from demo.bus import EventBus, Point",
                   "from demo.bus import EventBus as Bus, Point\nEventBus = Bus"), "incremental"),
    "a file stops parsing": (append("app/mod_7.py", "\ndef broken(:\n"), None),
    "the dispatch loop stops awaiting": (
        substitute("demo/bus.py", "            if inspect.isawaitable(result):\n"
                                  "                await result\n", ""), None),
    "a new point": (
        substitute("demo/bus.py", '    AFTER = "after"\n',
                   '    AFTER = "after"\n    LATER = "later"\n'), "incremental"),
    "a class decorated": (
        substitute("app/mod_1.py", "class Service1", "@staticmethod\nclass Service1"),
        "incremental"),
    "a subclass of the bus": (
        append("app/mod_2.py", "\nclass LoudBus(EventBus):\n    pass\n\n"
                               "LoudBus().on(Point.AFTER, handle_2)\n"), None),
    "a new forwarder and its caller": (
        append("app/mod_8.py", "\nfrom demo.bus import EventBus, Point\n_BUS = EventBus()\n\n"
                               "def register(fn):\n    _BUS.on(Point.AFTER, fn)\n\n"
                               "register(handle_8)\n"), None),
    "lines moved above a forwarder (its form stays the same)": (
        substitute("app/mod_3.py", "from demo.bus", "\n\n\nfrom demo.bus"), "incremental"),
    "a module whose forwarder derives one form at two lines edited": (
        substitute("app/mod_3.py", "async def handle_3", "def handle_3"), "incremental"),
    "a second method named like a handler taken by its name": (
        create("app/other.py", "class Other:\n    def on_recorded(self, event):\n"
                               "        return event\n"), "incremental"),
    "the method a handler was taken to be renamed": (
        substitute("app/untyped.py", "async def on_recorded", "async def on_written"),
        "incremental"),
    "a class renamed": (substitute("app/mod_1.py", "class Service1", "class Renamed1"), None),
    "a method body of the bus edited": (
        substitute("demo/bus.py", "        self._subscribers.append(handler)\n",
                   "        self._subscribers.append(handler)\n        handler = handler\n"),
        "incremental"),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    write_tree(root, fixture_files())
    return root


@pytest.mark.parametrize("name", list(CASES))
def test_an_edit_relinks_to_the_same_report_as_a_full_scan(name: str, pristine: Path,
                                                           tmp_path: Path) -> None:
    edit, layer = CASES[name]
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(pristine, tree)
    before = report(run(tree, cache))
    originals = {p: p.read_bytes() for p in tree.rglob("*.py")}

    edit(tree)
    edited = run(tree, cache)
    assert report(edited) == report(run(tree, None)), f"{name}: {edited.stats}"
    if layer is not None:
        assert edited.stats["cache"] == layer, edited.stats.get("full_link")

    for path in tree.rglob("*.py"):
        if path not in originals:
            path.unlink()
    for path, data in originals.items():
        path.write_bytes(data)
    undone = run(tree, cache)
    assert undone.stats["cache"] in ("result", "incremental", "facts")
    assert report(undone) == before


def test_a_chain_of_edits_keeps_matching_a_full_scan(pristine: Path, tmp_path: Path) -> None:
    """Each scan relinks over the snapshot the previous incremental scan wrote."""
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(pristine, tree)
    run(tree, cache)
    layers = []
    for name in ("a handler turns sync (its callers in another module see it)",
                 "a registration added", "a new module registering handlers",
                 "function appended to the bus module", "a method body of the bus edited"):
        CASES[name][0](tree)
        result = run(tree, cache)
        layers.append(result.stats["cache"])
        assert report(result) == report(run(tree, None)), name
    assert layers == ["incremental"] * 5


def test_a_corrupt_snapshot_is_ignored(pristine: Path, tmp_path: Path) -> None:
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(pristine, tree)
    run(tree, cache)
    (snapshot,) = (cache / "link").glob("*.snap")
    snapshot.write_bytes(snapshot.read_bytes()[:1000])
    append("app/mod_0.py", "\n\ndef _added():\n    return 1\n")(tree)
    result = run(tree, cache)
    assert result.stats["cache"] == "facts"
    assert result.stats["full_link"] == "no earlier link of this tree"
    assert report(result) == report(run(tree, None))
    assert run(tree, cache).stats["cache"] == "result"


def test_missing_fact_entries_are_extracted_again(pristine: Path, tmp_path: Path) -> None:
    """The last link knows every file's digest, so a scan reads a fact entry only when a lookup
    reaches it; an entry deleted since is extracted again, not trusted or lost."""
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(pristine, tree)
    run(tree, cache)
    for entry in cache.glob("facts-*/*/*.facts"):
        entry.unlink()
    CASES["a new module registering handlers"][0](tree)  # a new file: no old facts to diff
    result = run(tree, cache)
    assert result.stats["cache"] == "incremental"
    assert report(result) == report(run(tree, None))
