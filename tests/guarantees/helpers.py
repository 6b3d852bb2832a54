"""Shared by the guarantee tests: a project on the tests' demo bus, the CLI run in-process (stdout
and stderr apart) or as a real process, and the checks every bad-input run must pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree
from click.testing import CliRunner

from planeshift.cli import cli

SRC = Path(__file__).resolve().parents[2] / "src"

APP = """\
from demo.bus import EventBus


def audit(**payload):
    print("audit", payload)


bus = EventBus()
bus.subscribe(audit)
"""

PACK_FLAGS = ("--pack", str(DEMO_PACK), "--no-builtin-packs")


def project(root: Path, files: Mapping[str, str | bytes] = {}, settings: str = "") -> Path:
    """The demo bus, one good registration in app.py, *files*, and a pyproject.toml (which stops
    the search for settings at *root*) holding *settings* under [tool.planeshift]."""
    write_tree(root, {**DEMO_FILES, "app.py": APP})
    (root / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.planeshift]\n{settings}")
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return root


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)

    def assert_clean_stderr(self) -> None:
        """No traceback, and every line says something (one line per problem)."""
        assert "Traceback" not in self.stderr, self.stderr
        assert all(line.strip() for line in self.stderr.splitlines()), self.stderr


def invoke(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch | None = None) -> Run:
    """``planeshift ARGS`` in this process, from *root* (lint and migrate read the cwd)."""
    if monkeypatch is not None:
        monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, list(args), catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a crash the command let through: the test must see it
    return Run(result.exit_code, result.stdout, result.stderr)


def command(kind: str, root: Path, *extra: str) -> list[str]:
    """The arguments of scan, lint, migrate or characterize on *root*, JSON out, the demo pack,
    no cache (characterize writes its module beside *root*)."""
    if kind == "scan":
        return ["scan", str(root), "--format", "json", "--no-cache", *PACK_FLAGS, *extra]
    if kind == "characterize":
        module = root.parent / f"{root.name}_characterization.py"
        return ["characterize", str(root), "--format", "json", "-o", str(module), "--no-cache",
                *PACK_FLAGS, *extra]
    return [kind, "--root", str(root), "--format", "json", "--no-cache", *PACK_FLAGS, *extra]


def process(args: Sequence[str], cwd: Path, drop_privileges: bool = False,
            env: Mapping[str, str] | None = None, timeout: float = 120,
            module: bool = True) -> Run:
    """``python -m planeshift ARGS`` (``python ARGS`` unless *module*) as a real process from
    *cwd*; *drop_privileges* takes away
    root's power to read anything (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so mode 000 means
    unreadable even to root, as it is to everyone else."""
    argv = [sys.executable, *(("-m", "planeshift") if module else ()), *args]
    if drop_privileges and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot make a file unreadable")
        argv = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *argv]
    environment = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
    done = subprocess.run(argv, cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=timeout, check=False)
    return Run(done.returncode, done.stdout, done.stderr)


def errors_of(report: dict) -> dict[str, str]:
    return {e["file"]: e["message"] for e in report["errors"]}
