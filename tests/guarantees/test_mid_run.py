"""Files that cannot be read, or that are deleted or changed while a run is under way: one line
naming the file, the rest completes, nothing wrong is cached, nothing changed is overwritten."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from analyzer.helpers import DEMO_PACK

from planeshift import api
from planeshift.analyzer.store import sources
from planeshift.analyzer.store.sources import StatIndex
from planeshift.api import scan
from planeshift.config import Config
from planeshift.types import ScanResult

from .helpers import APP, command, errors_of, invoke, process, project


def locked_tree(root: Path) -> Path:
    project(root, {"secret.py": APP, "locked/inner.py": APP})
    os.chmod(root / "secret.py", 0)
    os.chmod(root / "locked", 0)
    return root


@pytest.mark.parametrize("kind", ["scan", "lint", "migrate"])
def test_an_unreadable_file_and_folder_are_named_and_the_rest_completes(tmp_path: Path,
                                                                        kind: str) -> None:
    root = locked_tree(tmp_path)
    try:
        extra = ("--write",) if kind == "migrate" else ()
        run = process(command(kind, root, *extra), cwd=root, drop_privileges=True)
    finally:
        os.chmod(root / "locked", 0o755)
        os.chmod(root / "secret.py", 0o644)
    run.assert_clean_stderr()
    assert run.code == 1
    assert errors_of(run.json()) == {"secret.py": "cannot read: Permission denied",
                                     "locked": "cannot list folder: Permission denied"}
    assert "secret.py: cannot be analysed: cannot read: Permission denied" in run.stderr
    assert "locked: cannot be analysed: cannot list folder: Permission denied" in run.stderr
    if kind == "scan":
        assert {r["file"] for r in run.json()["registrations"]} == {"app.py"}
    if kind == "migrate":
        assert [f["file"] for f in run.json()["files"]] == ["app.py"]


def config(root: Path, cache: bool = True) -> Config:
    return Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=cache, jobs=1)


def registrations(result: ScanResult) -> set[tuple[str, int]]:
    return {(r.file, r.line) for r in result.registrations}


def vouched_scan(root: Path, monkeypatch: pytest.MonkeyPatch, meddle) -> ScanResult:
    """A warm scan whose stat index vouches for every file but whose facts must be extracted
    again, so each file is read late; *meddle* runs just before that read."""
    monkeypatch.setattr(StatIndex, "RACY_NS", -1)  # vouch for files written a moment ago
    scan(config(root))
    for entry in (root / ".planeshift_cache").iterdir():  # all but the stat index
        if entry.is_dir():
            shutil.rmtree(entry)
    calls: list[int] = []

    def progress(done: int, total: int) -> None:
        if not calls:
            meddle()
        calls.append(done)

    return scan(config(root), progress)


def test_a_file_deleted_mid_scan_is_named_not_scanned_as_empty(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    root = project(tmp_path, {"other.py": APP})
    result = vouched_scan(root, monkeypatch, (root / "other.py").unlink)
    assert {e.file: e.message for e in result.errors} == {
        "other.py": "cannot read: No such file or directory"}
    assert registrations(result) == {("app.py", 9)}


def test_a_file_changed_mid_scan_is_named_and_poisons_no_cache(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    root = project(tmp_path, {"other.py": APP})
    path = root / "other.py"
    result = vouched_scan(root, monkeypatch, lambda: path.write_text("x = 1\n"))
    assert {e.file: e.message for e in result.errors} == {
        "other.py": "it changed during the scan; scan again"}
    path.write_text(APP)  # back to the bytes the stat index named: their facts must be theirs
    again = scan(config(root))
    assert again.errors == () and registrations(again) == registrations(scan(config(root, False)))
    assert ("other.py", 9) in registrations(again)


def test_a_file_edited_within_the_timestamp_granularity_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a file system with one-second timestamps (ext3, HFS+), an edit in the second a scan
    read the file keeps its stat (same inode, size and times): the stat index must not have
    vouched for it, or the next scan answers the old bytes' result."""
    real_stat = os.stat

    def coarse(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        return SimpleNamespace(st_mode=st.st_mode, st_ino=st.st_ino, st_size=st.st_size,
                               st_mtime_ns=st.st_mtime_ns // 10**9 * 10**9,
                               st_ctime_ns=st.st_ctime_ns // 10**9 * 10**9)

    monkeypatch.setattr(sources, "os", SimpleNamespace(stat=coarse))
    root = project(tmp_path, {"other.py": APP})
    path = root / "other.py"
    edited = APP.replace("bus.subscribe(audit)", "# s.subscribe(audit)")  # the same size
    for _ in range(5):  # until the write, the scan and the edit fall in one second
        path.write_text(APP)
        before = coarse(path)
        assert ("other.py", 9) in registrations(scan(config(root)))
        with open(path, "r+b") as out:  # in place: the same inode
            out.write(edited.encode())
        if coarse(path) == before:
            break
    else:
        pytest.skip("every try crossed a second boundary")
    assert ("other.py", 9) not in registrations(scan(config(root)))


def scan_then(monkeypatch: pytest.MonkeyPatch, meddle) -> None:
    """Run *meddle* right after every scan a command makes, before it goes on."""
    real = api.scan

    def scanned(*args, **kwargs) -> ScanResult:
        result = real(*args, **kwargs)
        meddle()
        return result

    monkeypatch.setattr(api, "scan", scanned)


def test_migrate_never_rewrites_a_file_changed_after_the_scan_read_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, {"other.py": APP})
    path = root / "other.py"
    edited = "import os  # an editor saved this meanwhile\n" + APP
    scan_then(monkeypatch, lambda: path.write_text(edited))
    run = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    assert run.code == 1 and path.read_text() == edited
    (entry,) = [n for n in run.json()["not_migrated"] if n["file"] == "other.py"]
    assert entry["error"] and "changed on disk since the scan read it" in entry["reason"]
    assert "as_subscriber(" in (root / "app.py").read_text()  # the rest completes
    monkeypatch.undo()
    rerun = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    assert rerun.code == 0 and "as_subscriber(" in path.read_text()
    assert path.read_text().startswith("import os  # an editor saved this meanwhile\n")


@pytest.mark.parametrize("kind", ["lint", "migrate"])
def test_a_file_deleted_after_the_scan_is_named_and_the_rest_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    root = project(tmp_path, {"other.py": APP})
    scan_then(monkeypatch, (root / "other.py").unlink)
    extra = ("--write",) if kind == "migrate" else ()
    run = invoke(root, *command(kind, root, *extra), monkeypatch=monkeypatch)
    run.assert_clean_stderr()
    if kind == "migrate":
        assert run.code == 1
        (entry,) = [n for n in run.json()["not_migrated"] if n["file"] == "other.py"]
        assert entry["reason"] == "cannot read it: No such file or directory"
        assert "as_subscriber(" in (root / "app.py").read_text()
    else:
        assert run.code in (0, 1) and run.json()["root"] == root.as_posix()
