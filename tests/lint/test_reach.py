"""The commit gate sees what a change reaches: `lint` given the changed files (as pre-commit
passes them) judges every finding whose evidence lies in one of them, not only the findings in
them: a handler made async in handlers.py turns a registration in extra.py into a PS101 error."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator
from reports.sarif_schema import sarif_errors

from planeshift.cli import cli
from planeshift.reports.lint_json import load_lint_schema

from .helpers import write_project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

HANDLERS = "def on_msg(payload):\n    return None\n"
EXTRA = """\
from demo.bus import EventBus
from app.handlers import on_msg

bus = EventBus(on_event=[on_msg])
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository, committed: a sync handler in app/handlers.py registered in app/extra.py
    on the demo bus's callback list (which never awaits what a handler returns)."""
    root = write_project(tmp_path / "repo", {
        "app/__init__.py": "", "app/handlers.py": HANDLERS, "app/extra.py": EXTRA,
        "app/clean.py": "x = 1\n"})
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    monkeypatch.chdir(root)
    return root


def edit(root: Path, rel: str, old: str, new: str) -> list[str]:
    """Change *rel* and return the changed files as pre-commit passes them (git's own list)."""
    path = root / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return git(root, "diff", "--name-only").split()


def lint(*args: str) -> Result:
    return CliRunner().invoke(cli, ["lint", "--no-cache", *args])


def test_a_handler_made_async_fails_the_gate_on_the_registration_it_reaches(repo: Path) -> None:
    assert lint("app/handlers.py").exit_code == 0  # sync: a PS101 info at most, which passes
    changed = edit(repo, "app/handlers.py", "def on_msg", "async def on_msg")
    assert changed == ["app/handlers.py"]  # extra.py is untouched
    result = lint(*changed)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0] == (
        "app/extra.py:4:16: PS101 [error] on_msg lands on demo_callbacks, whose policy never "
        "awaits a returned awaitable; it returns an awaitable that is never run "
        "(reached through app/handlers.py)")
    data = json.loads(lint("--format", "json", *changed).stdout)
    assert [(f["file"], f["line"], f["rule"], f["reached_from"]) for f in data["findings"]] == [
        ("app/extra.py", 4, "PS101", ["app/handlers.py"])]
    assert list(Draft202012Validator(load_lint_schema()).iter_errors(data)) == []
    sarif = json.loads(lint("--format", "sarif", *changed).stdout)
    assert sarif_errors(sarif) == []
    [related] = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "app/handlers.py"


def test_a_change_that_reaches_no_finding_passes(repo: Path) -> None:
    edit(repo, "app/handlers.py", "def on_msg", "async def on_msg")
    result = lint("app/clean.py")  # the hazard exists, but this change has nothing to do with it
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith("0 findings")


def test_a_changed_dispatcher_reaches_the_registrations_on_it(repo: Path) -> None:
    edit(repo, "app/handlers.py", "def on_msg", "async def on_msg")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "async")
    changed = edit(repo, "demo/bus.py", "class EventBus", "# the bus\nclass EventBus")
    assert changed == ["demo/bus.py"]
    result = lint(*changed)
    assert result.exit_code == 1
    assert "app/extra.py:4:16: PS101 [error]" in result.stdout
    assert "(reached through demo/bus.py)" in result.stdout


def test_a_reached_finding_takes_its_file_s_suppression_and_baseline(repo: Path) -> None:
    """A suppression comment in extra.py suppresses the reached finding, and a suppression there
    for another finding is not judged (PS902) by a change to handlers.py; a baseline entry of
    extra.py holds the reached finding, and `baseline PATHS` does not record it."""
    edit(repo, "app/handlers.py", "def on_msg", "async def on_msg")
    extra = repo / "app" / "extra.py"
    extra.write_text(EXTRA.replace("[on_msg])", "[on_msg])  # planeshift: ignore[PS101] fire and "
                                   "forget; owner @hooks") + "y = 1  # planeshift: ignore[PS103] "
                                   "not a finding here; owner @hooks\n")
    suppressed = json.loads(lint("--format", "json", "app/handlers.py").stdout)
    assert [(f["file"], f["rule"], f["status"]) for f in suppressed["findings"]] == [
        ("app/extra.py", "PS101", "suppressed")]
    assert lint("app/extra.py").exit_code == 1  # judged in its own file, the stray one is PS902

    extra.write_text(EXTRA)
    assert CliRunner().invoke(cli, ["baseline", "--no-cache", "-o", "base.json"]).exit_code == 0
    held = lint("--baseline", "base.json", "app/handlers.py")
    assert held.exit_code == 0, held.output
    assert "1 baselined" in held.stdout and "fixed" not in held.stdout
    assert CliRunner().invoke(cli, ["baseline", "--no-cache", "-o", "part.json",
                                    "app/handlers.py"]).exit_code == 0
    assert json.loads((repo / "part.json").read_text())["findings"] == []
