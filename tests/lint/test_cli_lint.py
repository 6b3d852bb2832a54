"""`planeshift lint` and `planeshift baseline` through click's CliRunner: flags and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from shared_cache import cache_flags

from planeshift.cli import cli

from .helpers import HAZARD, module, write_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project with one PS101 error in app/main.py, as the working folder."""
    root = tmp_path / "project"
    write_project(root, {"app/main.py": module(HAZARD), "app/clean.py": "x = 1\n"})
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def lint(*args: str | Path) -> Result:
    return run("lint", *cache_flags(), *args)


def test_a_finding_exits_1_with_a_sorted_line_and_summary(project: Path) -> None:
    result = lint()
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("app/main.py:6:16: PS101 [error] lambda payload: send(payload)")
    summary = lines.index("1 finding (1 error, 0 warning, 0 info), 0 suppressed, 0 baselined; "
                          "failed (fail-on warning)")
    assert lines[summary - 1].startswith("context: ")  # where library source came from
    assert lines[summary + 1:summary + 3] == [
        "next:", "  planeshift explain PS101  — what the rule checks and how to fix it"]
    assert lines[-1].startswith("  planeshift baseline -o planeshift-baseline.json  — ")
    assert "Traceback" not in result.output


def test_paths_limit_the_findings_judged(project: Path) -> None:
    result = lint("app/clean.py")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith("0 findings")  # and no next step
    assert result.stdout.startswith("context: ")


def test_paths_are_relative_to_the_working_folder(project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project / "app")  # the root is still the git top-level
    result = lint("main.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("main.py:6:16: PS101 [error]")


def test_root_option(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.parent)
    result = lint("--root", "project", "project/app/main.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("project/app/main.py:6:16: PS101")


@pytest.mark.parametrize("fail_on", ["error", "warning", "info"])
def test_an_error_fails_at_every_level(project: Path, fail_on: str) -> None:
    assert lint("--fail-on", fail_on).exit_code == 1


def test_fail_on_error_passes_warnings(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text() + 'severity = {PS101 = "warning"}\n')
    assert lint("--fail-on", "error").exit_code == 0
    assert lint().exit_code == 1
    assert lint("--fail-on", "bogus").exit_code == 2


def test_json_to_a_file_with_the_summary_on_stderr(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "lint.json"
    result = lint("--format", "json", "-o", out)
    assert result.exit_code == 1 and result.stdout == ""
    doc = json.loads(out.read_text())
    assert doc["schema"] == "planeshift.lint/1" and doc["summary"]["findings"] == 1
    assert "wrote json report" in result.stderr and "1 finding (1 error" in result.stderr


def test_sarif_and_github_to_stdout(project: Path) -> None:
    sarif = json.loads(lint("--format", "sarif").stdout)
    assert sarif["version"] == "2.1.0" and len(sarif["runs"][0]["results"]) == 1
    github = lint("--format", "github").stdout
    assert github.startswith(
        "::error file=app/main.py,line=6,col=16,endLine=6,endColumn=55,"
        "title=PS101 discard_unawaited::")


def test_broken_file_in_paths_exits_1_with_one_line(project: Path) -> None:
    (project / "app" / "broken.py").write_text("def f(:\n")
    result = lint("app/broken.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "app/broken.py: cannot be analysed: syntax error (line 1): invalid syntax")
    assert lint("app/clean.py").exit_code == 0  # a broken file elsewhere fails nobody's commit


@pytest.mark.parametrize(("setup", "args", "message"), [
    (lambda p: (p / "pyproject.toml").write_text("[tool.planeshift]\nfail_on = 'error'\n"), (),
     "tool.planeshift.fail_on: unknown key"),
    (lambda p: (p / "bad.json").write_text("[]"), ("--baseline", "bad.json"),
     "bad.json: schema: expected a planeshift.baseline/1 document"),
    (lambda p: None, ("nope.py",), "nope.py: no such file or directory"),
    (lambda p: None, ("--baseline", "missing.json"), "planeshift baseline -o missing.json"),
    (lambda p: None, ("-o", "no/such/dir/out.txt"), "no such directory"),
])
def test_usage_and_config_errors_exit_2(project: Path, setup, args: tuple, message: str) -> None:
    setup(project)
    result = lint(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_unknown_format_is_a_usage_error(project: Path) -> None:
    assert lint("--format", "xml").exit_code == 2


def test_a_tool_error_exits_2_without_a_traceback(project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from planeshift import api

    def broken_scan(config: object, progress: object = None) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "scan", broken_scan)
    result = lint()
    assert result.exit_code == 2
    assert "planeshift lint: error: internal error: RuntimeError: boom" in result.stderr


def test_baseline_then_lint_with_it(project: Path) -> None:
    made = run("baseline", *cache_flags(), "-o", "planeshift-baseline.json")
    assert made.exit_code == 0, made.output
    assert "wrote 1 finding to planeshift-baseline.json" in made.stderr
    result = lint("--baseline", "planeshift-baseline.json")
    assert result.exit_code == 0
    assert "0 findings (0 error, 0 warning, 0 info), 0 suppressed, 1 baselined" in result.stdout


def test_configured_baseline_is_the_default_and_no_baseline_ignores_it(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text() + 'baseline = "ci/baseline.json"\n')
    (project / "ci").mkdir()
    assert run("baseline", *cache_flags()).exit_code == 0
    assert (project / "ci" / "baseline.json").is_file()
    assert lint().exit_code == 0
    assert lint("--no-baseline").exit_code == 1


def test_baseline_of_some_paths_keeps_the_other_entries(project: Path) -> None:
    (project / "app" / "other.py").write_text(module(HAZARD))
    assert run("baseline", *cache_flags(), "-o", "b.json").exit_code == 0
    assert len(json.loads((project / "b.json").read_text())["findings"]) == 2
    (project / "app" / "other.py").write_text("x = 1\n")  # fixed
    assert run("baseline", *cache_flags(), "-o", "b.json", "app/other.py").exit_code == 0
    files = [e["file"] for e in json.loads((project / "b.json").read_text())["findings"]]
    assert files == ["app/main.py"]


def test_baseline_needs_a_file(project: Path) -> None:
    result = run("baseline", *cache_flags())
    assert result.exit_code == 2 and "-o/--output: no baseline file" in result.stderr


def test_scan_warnings_reach_stderr(project: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    result = run("lint", "--cache-dir", blocked / "cache", "app/clean.py")
    assert result.exit_code == 0, result.output
    assert "planeshift: warning:" in result.stderr
