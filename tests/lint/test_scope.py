"""Which files a run judges: PATHS relative to the working folder, inside the root."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.config import ConfigError
from planeshift.lint.scope import Scope, default_root, git_top, resolve_scope

from .helpers import HAZARD, lint_project, module, open_findings, write_project


def test_paths_are_made_root_relative_from_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("")
    scope = resolve_scope(tmp_path, [Path("a.py"), Path("sub")], cwd=tmp_path / "pkg")
    assert scope == Scope(("pkg/a.py", "pkg/sub"), ("pkg/a.py",))
    assert "pkg/sub/x.py" in scope and "pkg/a.py" in scope
    assert "pkg/subway.py" not in scope and "pkg/b.py" not in scope


def test_no_paths_or_the_root_itself_is_the_whole_project(tmp_path: Path) -> None:
    assert resolve_scope(tmp_path, []) == Scope()
    assert resolve_scope(tmp_path, [Path(".")], cwd=tmp_path) == Scope()
    assert "anything/at/all.py" in Scope()


def test_missing_path_and_path_outside_the_root_are_errors(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    with pytest.raises(ConfigError, match="no such file"):
        resolve_scope(tmp_path / "root", [Path("nope.py")], cwd=tmp_path / "root")
    (tmp_path / "elsewhere.py").write_text("")
    with pytest.raises(ConfigError, match="outside the project root"):
        resolve_scope(tmp_path / "root", [Path("elsewhere.py")], cwd=tmp_path)


def test_default_root_is_the_git_top_level(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert git_top(tmp_path / "a" / "b") == tmp_path.resolve()
    assert default_root(tmp_path / "a" / "b") == tmp_path.resolve()


def test_default_root_without_git_is_the_working_folder(tmp_path: Path) -> None:
    if git_top(tmp_path) is not None:
        pytest.skip("the temporary folder is inside a git repository")
    assert default_root(tmp_path) == tmp_path.resolve()


def test_only_findings_in_scope_are_judged_but_names_resolve_project_wide(tmp_path: Path) -> None:
    # the handler is defined in another file than the one judged: the whole project is analysed
    files = {"app/handlers.py": module("def forward(payload):\n    return send(payload)\n"),
             "app/main.py": "from demo.bus import EventBus\nfrom app.handlers import forward\n\n"
                            "bus = EventBus(on_event=[forward])\n",
             "app/other.py": module(HAZARD)}
    write_project(tmp_path, files)
    assert open_findings(lint_project(tmp_path, ["app/main.py"])) == [("PS101", "app/main.py", 4)]
    assert [r for r, f, _ in open_findings(lint_project(tmp_path, ["app"]))] == ["PS101", "PS101"]


@pytest.mark.parametrize("content", ["def f(:\n", b"name = '\xff\xfe'\n"],
                         ids=["syntax-error", "bad-encoding"])
def test_a_broken_file_in_scope_fails_and_outside_is_ignored(tmp_path: Path, content) -> None:
    write_project(tmp_path, {"app/ok.py": "x = 1\n", "app/broken.py": content})
    result = lint_project(tmp_path, ["app/broken.py"])
    assert [e.file for e in result.errors] == ["app/broken.py"] and result.failed
    assert not lint_project(tmp_path, ["app/ok.py"]).failed
