"""Shared helpers for lint tests: a small project on the demo bus, linted without a cache."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

from analyzer.helpers import DEMO_BUS, DEMO_FILES, DEMO_PACK, write_tree
from shared_cache import FOLDER as SHARED_CACHE

from planeshift.config import load_config
from planeshift.lint import LintResult, lint, resolve_scope

# The demo bus without its deliberately dormant point (PS103 reports that member at its
# definition), so a lint test's project holds only the hazards the test writes.
LINT_DEMO_FILES = {**DEMO_FILES, "demo/bus.py": DEMO_BUS.replace(
    '    NEVER_EMITTED = "never_emitted"\n', "")}

# A sync lambda around a coroutine call on a callback list that drops what it returns: PS101 error.
HAZARD = "bus = EventBus(on_event=[lambda payload: send(payload)])"
HEADER = """\
from demo.bus import EventBus, Point

async def send(payload):
    return payload

"""


def write_project(root: Path, files: Mapping[str, str | bytes], settings: str = "") -> Path:
    """The demo bus, *files* (dedented) and a pyproject.toml whose [tool.planeshift] loads only
    the demo pack; *settings* adds lines to that table."""
    write_tree(root, {**LINT_DEMO_FILES, **files})
    shutil.copy(DEMO_PACK, root / "demo.yaml")
    table = 'packs = ["demo.yaml"]\nbuiltin-packs = []\n' + textwrap.dedent(settings)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.planeshift]\n{table}")
    return root


def lint_project(root: Path, paths: Iterable[str] = (), baseline: Path | None = None,
                 fail_on: str | None = None) -> LintResult:
    config = load_config(root).with_flags(cache_dir=SHARED_CACHE, jobs=1)
    return lint(config, resolve_scope(root, [root / p for p in paths], cwd=root), baseline, fail_on)


def module(body: str) -> str:
    """A module importing the demo bus and defining ``send``, then *body* (dedented)."""
    return HEADER + textwrap.dedent(body).lstrip("\n")


def open_findings(result: LintResult) -> list[tuple[str, str, int]]:
    """(rule, file, line) of every open finding outside the demo bus."""
    return [(f.finding.rule, f.finding.file, f.finding.line) for f in result.open
            if not f.finding.file.startswith("demo/")]
