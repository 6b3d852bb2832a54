"""Incremental linking on lionagi 0.36.0: edits of the dispatcher modules, a handler and a new
file, each relinked over the previous scan's snapshot and compared with a scan without cache."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from planeshift import api
from planeshift.config import Config
from planeshift.reports.json_report import render_json
from planeshift.types import ScanResult

DISPATCHERS = ("hooks/bus.py", "service/broadcaster.py", "session/observer.py",
               "protocols/messages/manager.py", "state/lifecycle/callbacks.py")


def scan(root: Path, cache: Path | None) -> ScanResult:
    return api.scan(Config(root=root, use_cache=cache is not None, cache_dir=cache, jobs=2))


def report(result: ScanResult) -> dict:
    data = json.loads(render_json(result))
    del data["stats"]
    return data


@pytest.fixture(scope="module")
def tree(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("lionagi-incremental")
    root = work / "lionagi"
    shutil.copytree(corpus_root, root, ignore=shutil.ignore_patterns("__pycache__",
                                                                      ".planeshift_cache"))
    cache = work / "cache"
    assert scan(root, cache).stats["cache"] == "cold"
    return root, cache


def flip_an_async_handler(root: Path, lionagi_scan: ScanResult) -> str:
    """Make one project handler that is registered somewhere a plain function."""
    for reg in lionagi_scan.registrations:
        name = (reg.handler.qualname or "").rsplit(".", 1)[-1]
        if reg.handler.declared_async and name:
            for path in sorted(root.rglob("*.py")):
                text = path.read_text(encoding="utf-8")
                found = re.search(rf"^(\s*)async def {re.escape(name)}\(", text, re.M)
                if found and reg.handler.qualname.startswith(
                        path.relative_to(root.parent).with_suffix("").as_posix().replace("/", ".")):
                    path.write_text(text.replace(f"async def {name}(", f"def {name}(", 1),
                                    encoding="utf-8")
                    return f"{path.relative_to(root)}:{name}"
    pytest.fail("no async handler defined in the tree to flip")


def test_edits_of_lionagi_relink_to_the_same_report_as_a_full_scan(
        tree: tuple[Path, Path], lionagi_scan: ScanResult) -> None:
    root, cache = tree
    layers: dict[str, str] = {}

    def check(name: str) -> None:
        relinked = scan(root, cache)
        layers[name] = relinked.stats["cache"]
        assert report(relinked) == report(scan(root, None)), (name, relinked.stats)

    for rel in DISPATCHERS:  # the benchmark's edit
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n\ndef _added():\n    return 1\n",
                        encoding="utf-8")
    check("functions appended to the five dispatcher modules")

    bus = root / "hooks" / "bus.py"
    bus.write_text(bus.read_text(encoding="utf-8").replace(
        "import logging\n", "import logging\n\n_MOVED = True\n\n", 1), encoding="utf-8")
    check("every definition of the HookBus module moves down")

    flipped = flip_an_async_handler(root, lionagi_scan)
    check(f"a registered handler turns sync ({flipped})")

    (root / "hooks" / "extra_wiring.py").write_text(
        "from lionagi.hooks.bus import HookBus, HookPoint\n\n"
        "async def audit(**payload):\n    return None\n\n"
        "BUS = HookBus()\nBUS.on(HookPoint.SESSION_START, audit)\n",
        encoding="utf-8")
    check("a new module registers on HookBus")

    # a new helper (a function registering a fixed handler): the files calling it are read again
    (root / "hooks" / "extra_helper.py").write_text(
        "from lionagi.hooks.bus import HookBus, HookPoint\n\n"
        "async def audit(**payload):\n    return None\n\n"
        "def wire(bus: HookBus) -> None:\n    bus.on(HookPoint.SESSION_START, audit)\n",
        encoding="utf-8")
    check("a new helper registers on HookBus")
    assert set(layers.values()) == {"incremental"}, layers
