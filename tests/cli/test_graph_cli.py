"""`planeshift graph`: formats, output files, exit codes, and networkx loaded by it alone."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner, Result

import planeshift
from planeshift.cli import cli

HOOKS = """\
from lionagi.hooks.bus import HookBus, HookPoint

bus = HookBus()

def log(event):
    return None

bus.on(HookPoint.SESSION_START, log)
bus.emit(HookPoint.SESSION_START)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose own pyproject.toml stops config discovery from leaving the tmp dir."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "app.py").write_text(HOOKS)
    return tmp_path


def graph(project: Path, *args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["graph", str(project), "--no-cache", "--no-context",
                                    *map(str, args)])


def test_help_lists_graph_and_its_formats() -> None:
    assert "graph" in CliRunner().invoke(cli, ["--help"]).stdout
    result = CliRunner().invoke(cli, ["graph", "--help"])
    assert result.exit_code == 0
    for text in ("mermaid", "dot", "graphml", "--mechanism", "--context", "--no-context",
                 "--cache-dir", "--config", "Exit codes"):
        assert text in result.stdout


def test_mermaid_to_stdout_by_default(project: Path) -> None:
    result = graph(project)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "flowchart LR"
    assert '  d_hookbus[["hookbus<br/>HookBus"]]:::dispatcher' in lines
    assert '  p_hookbus_SESSION_START{{"SESSION_START"}}:::point' in lines
    assert '  r_app_py_8["on<br/>app.py:8"]:::subscriber' in lines
    assert '  h_app_log("app.log"):::subscriber' in lines
    assert '  e_app_py>"#lt;module#gt;<br/>app.py"]:::emitter' in lines
    for edge in ("r_app_py_8 --> p_hookbus_SESSION_START", "r_app_py_8 -.-> h_app_log",
                 "p_hookbus_SESSION_START --> d_hookbus", "e_app_py ==> p_hookbus_SESSION_START"):
        assert f"  {edge}" in lines


def test_graphml_to_a_file_reads_back_and_counts_on_stderr(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "map.graphml"
    result = graph(project, "--format", "graphml", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "5 nodes (1 dispatcher, 1 point, 1 registration, 1 handler, 1 emitter)" in result.stderr
    assert "4 edges (1 registers, 1 dispatched_by, 1 handled_by, 1 emits)" in result.stderr
    back = nx.read_graphml(out)
    assert back.number_of_nodes() == 5
    assert back.nodes["handler:app.log"]["plane"] == "subscriber"


def test_graphml_to_stdout_is_utf8_xml(project: Path) -> None:
    result = graph(project, "--format", "graphml")
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    assert nx.read_graphml(io.BytesIO(result.stdout_bytes)).number_of_nodes() == 5


def test_dot_to_stdout(project: Path) -> None:
    result = graph(project, "--format", "dot")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("digraph planeshift {\n") and result.stdout.endswith("}\n")
    assert '"registration:app.py:8:0:hookbus:log:SESSION_START" -> "point:hookbus:SESSION_START"' \
        in result.stdout


def test_unknown_mechanism_exits_2_naming_the_known_ones(project: Path) -> None:
    result = graph(project, "--mechanism", "nope")
    assert result.exit_code == 2
    assert "no mechanism 'nope'" in result.stderr and "hookbus" in result.stderr


def test_skipped_file_exits_1_after_writing_the_graph(project: Path) -> None:
    (project / "broken.py").write_text("def f(:\n")
    result = graph(project)
    assert result.exit_code == 1
    assert result.stdout.startswith("flowchart LR")
    assert "broken.py: cannot be analysed" in result.stderr


PROBE = """\
import sys
from planeshift.cli import main
code = main(sys.argv[1:])
print(code, "networkx" in sys.modules)
"""


def probe(*args: str | Path) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(planeshift.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], check=False,
                          capture_output=True, text=True, env=env, timeout=120)
    return done.stdout.strip().splitlines()[-1]


def test_scan_never_imports_networkx_and_graph_does(project: Path, tmp_path: Path) -> None:
    common = ["--no-cache", "--no-context", "-o"]
    assert probe("scan", project, "--format", "json", *common, tmp_path / "r.json") == "0 False"
    assert probe("--help") == "0 False"
    assert probe("graph", project, *common, tmp_path / "g.mmd") == "0 True"  # the probe sees it
