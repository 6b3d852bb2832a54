"""Files the OS can hand over, wherever planeshift reads one (sources, settings files, the lint
baseline, ignore files, CODEOWNERS): only regular files are read, a FIFO never blocks a run, a bad
file is one line naming it and never the end of the run, and a file reached by several paths
(a symbolic link, a hard link) is read once.

The FIFO cases run planeshift as a child with a time limit: opened for reading, a FIFO with no
writer blocks for ever, which is then a timeout here, not a hung suite."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from .helpers import APP, command, errors_of, invoke, process, project

LIMIT = 60  # seconds: far above a run on this tiny tree; only a blocked read reaches it


def test_read_bytes_refuses_a_fifo_without_opening_it_for_a_blocking_read(tmp_path: Path
                                                                          ) -> None:
    from planeshift import fsio

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(fsio.NotRegularFile, match=r"not a regular file \(a FIFO\)"):
        fsio.read_bytes(tmp_path / "fifo")
    if stat.S_ISCHR(os.stat("/dev/zero").st_mode):  # (a sandbox may hand over a plain file)
        with pytest.raises(fsio.NotRegularFile, match="a character device"):
            fsio.read_bytes("/dev/zero")  # read, it would never end
    with pytest.raises(IsADirectoryError, match="Is a directory"):
        fsio.read_bytes(tmp_path)


def test_a_fifo_given_as_the_lint_baseline_is_an_error_naming_it(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    os.mkfifo(root / "baseline.json")
    run = process(command("lint", root, "--baseline", str(root / "baseline.json")), cwd=root,
                  timeout=LIMIT)
    run.assert_clean_stderr()
    assert run.code == 2
    assert "baseline.json" in run.stderr and "not a regular file (a FIFO)" in run.stderr


def test_a_deeply_nested_baseline_is_an_error_naming_the_file(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    root = project(tmp_path / "p")
    (root / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    run = invoke(root, *command("lint", root, "--baseline", str(root / "deep.json")),
                 monkeypatch=monkeypatch)
    run.assert_clean_stderr()
    assert run.code == 2
    assert "internal error" not in run.stderr and "RecursionError" not in run.stderr
    assert str(root / "deep.json") in run.stderr and "nested too deeply" in run.stderr


@pytest.mark.parametrize("kind", ["scan", "lint", "migrate"])
def test_fifos_as_ignore_file_codeowners_and_settings_file_never_block(tmp_path: Path,
                                                                       kind: str) -> None:
    """A .gitignore, a CODEOWNERS (lint and migrate look for owners) and a settings file the
    demo pack collects, each a FIFO: the run completes, the ignore file is a
    warning line, the settings file an error line."""
    root = project(tmp_path / "p")
    (root / ".git").mkdir()  # the repository top: .gitignore and CODEOWNERS are looked for
    os.mkfifo(root / ".gitignore")
    os.mkfifo(root / "CODEOWNERS")
    (root / ".demo").mkdir()  # the demo pack's settings files: **/.demo/hooks.yaml
    os.mkfifo(root / ".demo" / "hooks.yaml")
    extra = ("--write",) if kind == "migrate" else ()
    run = process(command(kind, root, *extra), cwd=root, timeout=LIMIT)
    run.assert_clean_stderr()
    report = run.json()
    assert errors_of(report) == {".demo/hooks.yaml": "cannot read: not a regular file (a FIFO)"}
    assert ".gitignore: not a regular file (a FIFO)" in run.stderr
    assert "ignore file not read, so it ignores nothing" in run.stderr


def test_a_file_reached_through_links_is_read_once(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "p")
    os.symlink("app.py", root / "alias.py")
    os.link(root / "app.py", root / "hard.py")
    run = invoke(root, *command("scan", root), monkeypatch=monkeypatch)
    report = run.json()
    files = sorted(r["file"] for r in report["registrations"])
    assert files == ["app.py"], files  # once, under its own name, not three times
    assert "alias.py: the same file as app.py (a link); read once, as app.py" in run.stderr
    assert "hard.py: the same file as app.py (a link); read once, as app.py" in run.stderr


def test_a_file_with_hard_links_is_not_split_by_a_rewrite(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Replacing a file atomically gives its name a new inode: the other names of a hard-linked
    file would keep the old text. Such a file is reported, not written."""
    root = project(tmp_path / "p")
    outside = tmp_path / "elsewhere.py"
    os.link(root / "app.py", outside)
    run = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    report = run.json()
    assert (root / "app.py").read_text() == APP == outside.read_text()
    assert os.stat(root / "app.py").st_ino == os.stat(outside).st_ino
    reasons = json.dumps(report)
    assert "it has 2 hard links, which replacing it would split" in reasons


def test_a_symbolic_link_and_its_target_are_rewritten_once(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    root = project(tmp_path / "p")
    os.symlink("app.py", root / "alias.py")
    run = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    report = run.json()
    assert "changed on disk" not in json.dumps(report)
    assert (root / "alias.py").is_symlink() and "as_subscriber" in (root / "app.py").read_text()
    check = invoke(root, *command("migrate", root, "--check"), monkeypatch=monkeypatch)
    assert check.code == 0, check.stdout


def test_a_fifo_as_pyproject_is_an_error_naming_it(tmp_path: Path) -> None:
    """The settings are what the user wrote: unreadable, they stop the run with one line."""
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "app.py").write_text(APP)
    os.mkfifo(root / "pyproject.toml")
    run = process(["scan", str(root), "--no-cache"], cwd=root, timeout=LIMIT)
    run.assert_clean_stderr()
    assert run.code == 2
    assert run.stderr.count("\n") == 1
    assert "pyproject.toml: cannot read: not a regular file (a FIFO)" in run.stderr


def test_a_fifo_as_an_ancestors_gitignore_is_a_warning(tmp_path: Path) -> None:
    """The .gitignore of a folder between the repository top and the scan root."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    os.mkfifo(top / ".gitignore")
    root = project(top / "sub")
    run = process(command("scan", root), cwd=root, timeout=LIMIT)
    run.assert_clean_stderr()
    assert run.code == 0
    assert f"ignore file not read, so it ignores nothing: {top / '.gitignore'}: not a regular " \
           "file (a FIFO)" in run.stderr
