"""The command line: flags, formats, output files and exit codes, through click's CliRunner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from shared_cache import cache_flags

from planeshift import __version__
from planeshift.cli import cli, main

HOOKS = """\
from lionagi.hooks.bus import HookBus, HookPoint

bus = HookBus()

def log(event):
    return None

bus.on(HookPoint.SESSION_START, log)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose own pyproject.toml stops config discovery from leaving the tmp dir."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "app.py").write_text(HOOKS)
    return tmp_path


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def scan(project: Path, *args: str | Path) -> Result:
    return run("scan", project, *cache_flags(), *args)


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert __version__ in result.stdout


def test_help_lists_every_command() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in ("scan", "packs", "kernels", "lint", "baseline", "explain", "migrate"):
        assert command in result.stdout


def test_scan_help_describes_formats_and_exit_codes() -> None:
    result = run("scan", "--help")
    assert result.exit_code == 0
    for text in ("terminal", "json", "markdown", "Exit codes", "skipped", "--no-builtin-packs"):
        assert text in result.stdout


def test_missing_path_exits_2_with_message(tmp_path: Path) -> None:
    result = run("scan", tmp_path / "nope", "--no-cache")
    assert result.exit_code == 2
    assert "nope" in result.stderr and "no such file or directory" in result.stderr


def test_clean_scan_exits_0_and_prints_summary(project: Path) -> None:
    result = scan(project)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "1 file," in text and "hookbus" in text
    assert result.stderr == ""


def test_syntax_error_is_skipped_exits_1_and_listed_in_json(project: Path) -> None:
    (project / "broken.py").write_text("def f(:\n")
    result = scan(project, "--format", "json")
    assert result.exit_code == 1
    assert "1 file skipped" in result.stderr
    data = json.loads(result.stdout)
    assert [e["file"] for e in data["errors"]] == ["broken.py"]
    assert data["summary"]["errors"] == 1


def test_json_to_output_file(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "scan.json"
    out.parent.mkdir()
    result = scan(project, "--format", "json", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    data = json.loads(out.read_text())
    assert data["schema"] == "planeshift.report/1"
    assert data["root"] == project.resolve().as_posix()
    assert {r["file"] for r in data["registrations"]} <= {"app.py"}
    assert [p.name for p in out.parent.iterdir()] == ["scan.json"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # an ordinary file, not mkstemp's 0600


def test_unwritable_output_exits_2_before_scanning(project: Path, tmp_path: Path) -> None:
    result = scan(project, "--format", "json", "-o", tmp_path / "missing" / "scan.json")
    assert result.exit_code == 2
    assert "missing" in result.stderr


def test_markdown_to_stdout(project: Path) -> None:
    result = scan(project, "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# planeshift inventory\n")


def test_terminal_to_output_file_is_plain_text(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "scan.txt"
    result = scan(project, "--details", "-o", out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "planeshift scan" in text and "\x1b[" not in text


def test_malformed_pack_exits_2_naming_the_file(project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("mechanisms: [\n  - id: x\n    title: : :\n")
    result = scan(project, "--pack", bad)
    assert result.exit_code == 2
    assert "bad.yaml" in result.stderr and "YAML" in result.stderr


def test_unknown_config_key_exits_2_naming_the_key(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.planeshift]\nexclud = ['x']\n")
    result = scan(project)
    assert result.exit_code == 2
    assert "tool.planeshift.exclud" in result.stderr
    assert "pyproject.toml" in result.stderr


def test_config_flag_reads_the_given_file(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text("[tool.planeshift]\njobz = 2\n")
    result = scan(project, "--config", other)
    assert result.exit_code == 2
    assert "other.toml" in result.stderr and "tool.planeshift.jobz" in result.stderr


def test_exclude_and_no_builtin_packs(project: Path) -> None:
    result = scan(project, "--format", "json", "--exclude", "app.py")
    assert json.loads(result.stdout)["summary"]["files_scanned"] == 0
    result = scan(project, "--format", "json", "--no-builtin-packs")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mechanisms"] == [] and data["registrations"] == []
    assert "no rule packs" in result.stderr


def test_cache_dir_is_used(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    result = run("scan", project, "--cache-dir", cache, "--jobs", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    assert cache.is_dir() and any(p.is_file() for p in cache.rglob("*"))
    again = run("scan", project, "--cache-dir", cache, "--format", "json")
    assert json.loads(again.stdout)["stats"]["cache_hits"] >= 1


def test_packs_lists_builtin_mechanisms() -> None:
    result = run("packs")
    assert result.exit_code == 0
    assert "lionagi" in result.stdout and "dispatcher:" in result.stdout


def test_packs_show_prints_the_yaml_path() -> None:
    result = run("packs", "--show", "lionagi")
    assert result.exit_code == 0
    path = Path(result.stdout.strip())
    assert path.name == "lionagi.yaml" and path.is_file()
    missing = run("packs", "--show", "nope")
    assert missing.exit_code == 2 and "nope" in missing.stderr


def test_main_returns_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert main(["scan", str(tmp_path / "nope")]) == 2
    assert main(["scan", "--format", "xml", str(tmp_path)]) == 2
    capsys.readouterr()


def test_warnings_go_to_stderr_and_skips_set_exit_1(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planeshift import api
    from planeshift.types import FileError, ScanResult

    def fake_scan(config: object, progress: object = None) -> ScanResult:
        return ScanResult(root="/x", registrations=(), emissions=(), mechanisms=(),
                          errors=(FileError("a.py", "cannot read"), FileError("b.py", "bad")),
                          stats={"seconds": 0.1, "warnings": ["cache folder not writable"]})

    monkeypatch.setattr(api, "scan", fake_scan)
    result = scan(project, "--format", "markdown")
    assert result.exit_code == 1
    assert "warning: cache folder not writable" in result.stderr
    assert "2 files skipped" in result.stderr
    assert "## Skipped files" in result.stdout


def test_explain_axes_lists_every_axis() -> None:
    from planeshift.rules.axes import AXES

    result = run("explain", "axes")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()[2:]] == list(AXES)


def test_explain_one_axis_gives_values_and_how_it_is_read() -> None:
    result = run("explain", "handler_cancellation")
    assert result.exit_code == 0
    for text in ("translate", "cancel_siblings_and_return", "How it is read", "Provenance"):
        assert text in result.stdout


def test_explain_unknown_name_fails_with_usage_error() -> None:
    result = run("explain", "speed")
    assert result.exit_code == 2
    assert "no rule, codemod or axis 'speed'" in result.output
