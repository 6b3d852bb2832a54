"""The planeshift-lint pre-commit hook, end to end, as the README ships it: its two
`.pre-commit-config.yaml` snippets, read from the README, in a new git repository whose commits
go through `pre-commit install`. The released form names a tag (`rev: v<version>`): the test
makes a clone of this working tree with that annotated tag, and pre-commit installs it into its
own environment (from the package index); the `repo: local` form runs the planeshift on PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planeshift import __version__

from .helpers import write_project

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
README = (REPO / "README.md").read_text(encoding="utf-8")
HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))

HANDLERS = "def on_msg(payload):\n    return None\n"
EXTRA = """\
from demo.bus import EventBus
from app.handlers import on_msg

bus = EventBus(on_event=[on_msg])
"""


def readme_snippets() -> dict[str, dict]:
    """The README's pre-commit configurations, by form: "released" and "local"."""
    section = README[README.index("**pre-commit.**"):]
    section = section[:section.index("\n### ")]
    found = {}
    for block in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL):
        config = yaml.safe_load(block)
        [repo] = config["repos"]
        found["local" if repo["repo"] == "local" else "released"] = config
    assert set(found) == {"released", "local"}, found
    return found


SNIPPETS = readme_snippets()


def test_the_hook_is_declared_for_a_whole_project_analysis() -> None:
    [hook] = HOOKS
    assert hook["id"] == "planeshift-lint" and hook["entry"] == "planeshift lint"
    assert hook["pass_filenames"] is True and hook["require_serial"] is True
    assert hook["language"] == "python" and "python" in hook["types_or"]


def test_the_readme_names_the_tag_of_this_version_and_the_shipped_hook() -> None:
    """`rev` is the tag each release gets (v + the version), and the local form runs the hook
    the repository ships, with the same entry, files and serial run."""
    [released] = SNIPPETS["released"]["repos"]
    assert released["rev"] == f"v{__version__}"
    assert f'version = "{__version__}"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert [h["id"] for h in released["hooks"]] == [HOOKS[0]["id"]]
    [local] = SNIPPETS["local"]["repos"][0]["hooks"]
    for key in ("id", "entry", "types_or", "require_serial"):
        assert local[key] == HOOKS[0][key], key
    assert local.get("pass_filenames", True) is HOOKS[0]["pass_filenames"]


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          cwd=cwd, env=env, check=check, capture_output=True, text=True,
                          timeout=900)


def _release_clone(target: Path) -> Path:
    """A clone of this working tree (its committed and uncommitted files) with the annotated
    tag a release gets, as a user's clone of a release has."""
    listed = _git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    _git(target, "init", "-q")
    _git(target, "add", ".")
    _git(target, "commit", "-qm", "planeshift")
    _git(target, "tag", "-a", f"v{__version__}", "-m", f"planeshift {__version__}")
    return target


def _commit(project: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    _git(project, "add", ".")
    return _git(project, "commit", "-m", message, env=env, check=False)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_readme_snippets_block_a_commit_whose_change_reaches_a_hazard(tmp_path: Path) -> None:
    """Pasted into a new repository, each README snippet lets a clean commit through, and
    blocks one that changes only handlers.py so that on_msg becomes async: the registration in
    the unchanged extra.py becomes a PS101 error, named with its file, line and rule."""
    clone = _release_clone(tmp_path / "planeshift")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)  # the released form runs the planeshift pre-commit installed
    local_env = {**env, "PYTHONPATH": str(SRC),  # the local form: the planeshift on PATH
                 "PATH": os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])}
    forms = [("released", env), ("local", local_env)]
    if shutil.which("planeshift", path=local_env["PATH"]) is None:
        forms.pop()  # (planeshift not installed in this environment: only the released form)

    for form, form_env in forms:
        config = SNIPPETS[form]
        if form == "released":
            config["repos"][0]["repo"] = str(clone)  # the only line a user fills in
        project = write_project(tmp_path / form, {
            "app/__init__.py": "", "app/handlers.py": HANDLERS, "app/extra.py": EXTRA})
        (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        _git(project, "init", "-q")
        installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=project,
                                   env=form_env, capture_output=True, text=True, timeout=120,
                                   check=False)
        assert installed.returncode == 0, installed.stdout + installed.stderr

        first = _commit(project, form_env, "start")
        assert first.returncode == 0, form + first.stdout + first.stderr
        assert "planeshift lint" in first.stdout + first.stderr  # the hook did run

        handlers = project / "app" / "handlers.py"
        handlers.write_text(HANDLERS.replace("def on_msg", "async def on_msg"))
        blocked = _commit(project, form_env, "on_msg is async now")
        out = blocked.stdout + blocked.stderr
        assert blocked.returncode != 0, form + out
        assert "app/extra.py:4:16: PS101 [error] on_msg lands on demo_callbacks" in out, form + out
        assert "(reached through app/handlers.py)" in out, out

        extra = project / "app" / "extra.py"
        extra.write_text(EXTRA.replace("[on_msg])", "[on_msg])  # planeshift: ignore[PS101] "
                                       "fire-and-forget by design; owner @hooks"))
        passed = _commit(project, form_env, "on_msg is async, dropped on purpose")
        assert passed.returncode == 0, form + passed.stdout + passed.stderr
        assert len(_git(project, "log", "--oneline").stdout.splitlines()) == 2
