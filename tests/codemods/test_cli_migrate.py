"""`planeshift migrate` through click's CliRunner: output streams, flags and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree
from click.testing import CliRunner, Result
from shared_cache import cache_flags

from planeshift.cli import cli
from planeshift.codemods.report.json_report import load_migrate_schema

APP = '''
from demo.bus import EventBus, Point


def guard(**payload):
    if payload.get("tool") == "rm":
        raise PermissionError("no rm")


def audit(**payload):
    return None


bus = EventBus()
bus.on(Point.BEFORE, guard)
bus.subscribe(audit)
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    write_tree(root, {**DEMO_FILES, "app.py": APP})
    (root / "pyproject.toml").write_text(
        f'[tool.planeshift]\npacks = ["{DEMO_PACK.as_posix()}"]\nbuiltin-packs = []\n'
        'owners = {"**" = "@demo-team"}\n')
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def migrate(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["migrate", *cache_flags(), *map(str, args)])


def test_a_dry_run_prints_the_diff_and_the_report_and_writes_nothing(project: Path) -> None:
    before = (project / "app.py").read_text()
    result = migrate()
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("--- a/app.py\n+++ b/app.py\n")
    assert "+bus.subscribe(\n+    as_subscriber(Subscription(" in result.stdout
    assert "app.py:14: registration: interceptor (stage BEFORE)" in result.stderr
    assert result.stderr.rstrip().endswith("1 file would change (apply with --write)")
    assert (project / "app.py").read_text() == before


def test_check_fails_while_something_would_change_and_passes_after_write(project: Path) -> None:
    assert migrate("--check").exit_code == 1
    written = migrate("--write")
    assert written.exit_code == 0 and written.stdout == ""
    assert "1 file written" in written.stderr
    text = (project / "app.py").read_text()
    assert "@returns_decisions(deny=PermissionError)" in text
    again = migrate("--check")
    assert again.exit_code == 0 and again.stdout == ""
    assert "nothing to change" in again.stderr


def test_select_ignore_and_kernel_module(project: Path) -> None:
    result = migrate("--select", "registration", "--ignore", "decisions",
                     "--kernel-module", "app_kernels")
    assert result.exit_code == 0, result.output
    assert "+from app_kernels.adapters import Subscription, as_interceptor, as_subscriber" \
        in result.stdout
    assert "InterceptorDecision" not in result.stdout
    comma = migrate("--select", "registration,decisions")
    assert "InterceptorDecision" in comma.stdout


def test_json_report_follows_its_schema_and_goes_to_a_file(project: Path) -> None:
    result = migrate("--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    jsonschema.validate(data, load_migrate_schema())
    assert data["schema"] == "planeshift.migrate/1" and data["mode"] == "diff"
    assert {m["codemod"] for m in data["migrated"]} == {"registration", "decisions"}
    assert data["files"][0]["diff"].startswith("--- a/app.py")
    out = project / "report.json"
    to_file = migrate("--format", "json", "-o", out, "--write")
    assert to_file.exit_code == 0 and to_file.stdout == ""
    written = json.loads(out.read_text())
    jsonschema.validate(written, load_migrate_schema())
    assert written["mode"] == "write" and written["files"][0]["written"] is True
    text_out = project / "report.txt"
    assert migrate("-o", text_out).exit_code == 0
    assert text_out.read_text().endswith("nothing to change\n")


@pytest.mark.parametrize(("args", "message"), [
    (("--write", "--check"), "give one of --write and --check"),
    (("--select", "nope"), "no codemod 'nope'"),
    (("--pack", "missing.yaml"), "missing.yaml"),
])
def test_usage_errors_exit_2_with_one_line(project: Path, args: tuple[str, ...],
                                           message: str) -> None:
    result = migrate(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_a_file_not_migrated_because_of_an_error_exits_1(project: Path) -> None:
    pack = project / "bad.yaml"
    pack.write_text(DEMO_PACK.read_text().replace(
        "policy={policy}, handler={handler}", "policy={policy}, policy={handler}"))
    (project / "pyproject.toml").write_text(
        f'[tool.planeshift]\npacks = ["{pack.as_posix()}"]\nbuiltin-packs = []\n')
    result = migrate("--write", "--select", "registration")
    assert result.exit_code == 1
    assert "error: not written: the rewritten file does not compile" in result.stderr


def test_help_says_what_is_not_done() -> None:
    result = CliRunner().invoke(cli, ["migrate", "--help"])
    assert result.exit_code == 0
    assert "Not done" in result.output and "--convert-discard" in result.output


def test_explain_prints_a_codemods_page() -> None:
    result = CliRunner().invoke(cli, ["explain", "discard_gate"])
    assert result.exit_code == 0
    assert result.output.startswith("# discard_gate (codemod)")
    listing = CliRunner().invoke(cli, ["explain"]).output
    assert "registration" in listing and "PS101" in listing


def test_kernels_that_are_nowhere_in_view_are_never_imported_by_a_write(project: Path) -> None:
    """`--kernel-module shopkernels` before the kernels are vendored there: the rewritten file
    would not import. A dry run says so; --write refuses, writes nothing and exits 2; once
    `planeshift kernels vendor` put them there, the same command writes."""
    before = (project / "app.py").read_text()
    shown = migrate("--kernel-module", "shopkernels")
    assert shown.exit_code == 0
    assert "from shopkernels.adapters import" in shown.stdout
    warning = ("the kernel module shopkernels is in neither the project nor the library source "
               "read as its context, so the rewritten files would not import")
    assert f"planeshift: warning: {warning}" in shown.stderr
    refused = migrate("--kernel-module", "shopkernels", "--write")
    assert refused.exit_code == 2
    assert f"planeshift migrate: error: --kernel-module: {warning}" in refused.stderr
    assert "planeshift kernels vendor --into DIR" in refused.stderr
    assert (project / "app.py").read_text() == before
    vendored = CliRunner().invoke(cli, ["kernels", "vendor", "--into", "shopkernels",
                                        "--package", "shopkernels"])
    assert vendored.exit_code == 0, vendored.output
    written = migrate("--kernel-module", "shopkernels", "--write")
    assert written.exit_code == 0, written.output
    assert "warning" not in written.stderr
    assert "from shopkernels.adapters import" in (project / "app.py").read_text()
