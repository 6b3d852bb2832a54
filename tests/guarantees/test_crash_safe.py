"""Crash-safe writes: `migrate --write` interrupted at any file (an exception, a kill, a write
that fails or is killed half way) leaves every file as it was or fully rewritten, never partial,
and a rerun finishes the job."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_PACK

from planeshift.codemods import MigrateOptions, migrate
from planeshift.codemods import run as migrate_run
from planeshift.config import Config

from .helpers import APP, PACK_FLAGS, process, project

NAMES = ["app.py", *(f"app{i}.py" for i in range(6))]  # written in this order
PADDING = "# " + "x" * 98 + "\n"  # app3.py is large, so its rewrite is the one a size limit cuts

# The child: interrupt migrate --write as argv[1] says, after argv[2] files (or bytes), then run
# the CLI with the rest of argv. SIGKILL leaves no chance to clean up, as a power cut would not.
CHILD = """
import os, resource, signal, sys
from planeshift.codemods import run
mode, count = sys.argv[1], int(sys.argv[2])
if mode == "kill-after":
    real, done = run.write_source, []
    def write_source(*args, **kwargs):
        if len(done) == count:
            os.kill(os.getpid(), signal.SIGKILL)
        real(*args, **kwargs)
        done.append(1)
    run.write_source = write_source
else:  # a file-size limit: a write past it fails (EFBIG), or with SIGXFSZ kills the process
    if mode == "fsize-kill":
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, (count, count))
from planeshift.cli import main
sys.exit(main(sys.argv[3:]))
"""


def tree(root: Path) -> Path:
    files = {name: APP.replace("audit", f"audit{i}") for i, name in enumerate(NAMES[1:])}
    files["app3.py"] = PADDING * 2000 + files["app3.py"]  # ~200 kB
    return project(root, files)


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Every file as an uninterrupted run writes it."""
    root = tree(tmp_path_factory.mktemp("reference"))
    result = migrate(Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False),
                     MigrateOptions(write=True))
    assert not result.failed and len(result.changes) == len(NAMES)
    return {name: (root / name).read_bytes() for name in NAMES}


def assert_each_file_whole(root: Path, original: dict[str, bytes], expected: dict[str, bytes],
                           temporary: int = 0) -> tuple[int, int]:
    """Every file is the original or the full rewrite; returns (rewritten, original) counts.
    Only a write killed half way leaves its *temporary* file (hidden, never a .py)."""
    counts = [0, 0]
    for name in NAMES:
        data = (root / name).read_bytes()
        assert data in (original[name], expected[name]), f"{name} is partial"
        counts[data == original[name]] += 1
    assert len(list(root.glob(".*.tmp"))) == temporary
    return counts[0], counts[1]


def rerun_finishes(root: Path, expected: dict[str, bytes]) -> None:
    run = process(["migrate", "--root", str(root), "--write", "--no-cache", *PACK_FLAGS],
                  cwd=root)
    assert run.code == 0, run.stderr
    assert {name: (root / name).read_bytes() for name in NAMES} == expected


@pytest.mark.parametrize("after", [0, 2, 5])
def test_an_exception_after_n_files_leaves_each_file_whole_and_a_rerun_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expected: dict[str, bytes],
        after: int) -> None:
    root = tree(tmp_path)
    original = {name: (root / name).read_bytes() for name in NAMES}
    real, done = migrate_run.write_source, list[int]()

    def write_source(*args, **kwargs) -> None:
        if len(done) == after:
            raise KeyboardInterrupt
        real(*args, **kwargs)
        done.append(1)

    monkeypatch.setattr(migrate_run, "write_source", write_source)
    with pytest.raises(KeyboardInterrupt):
        migrate(Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1),
                MigrateOptions(write=True))
    assert assert_each_file_whole(root, original, expected) == (after, len(NAMES) - after)
    monkeypatch.undo()
    rerun_finishes(root, expected)


@pytest.mark.parametrize("after", [1, 4])
def test_a_kill_after_n_files_leaves_each_file_whole_and_a_rerun_finishes(
        tmp_path: Path, expected: dict[str, bytes], after: int) -> None:
    root = tree(tmp_path)
    original = {name: (root / name).read_bytes() for name in NAMES}
    run = process(["-c", CHILD, "kill-after", str(after), "migrate", "--root", str(root),
                   "--write", "--no-cache", *PACK_FLAGS], cwd=root, module=False)
    assert run.code == -9  # SIGKILL
    assert assert_each_file_whole(root, original, expected) == (after, len(NAMES) - after)
    rerun_finishes(root, expected)


@pytest.mark.parametrize("mode", ["fsize", "fsize-kill"])
def test_a_write_cut_off_half_way_leaves_the_file_as_it_was(tmp_path: Path,
                                                          expected: dict[str, bytes],
                                                          mode: str) -> None:
    """A file-size limit between the small files' size and app3.py's: its write fails part way
    (as on a full disk), or the kernel kills the process there (SIGXFSZ)."""
    root = tree(tmp_path)
    original = {name: (root / name).read_bytes() for name in NAMES}
    limit = len(original["app3.py"]) // 2
    run = process(["-c", CHILD, mode, str(limit), "migrate", "--root", str(root), "--write",
                   "--no-cache", *PACK_FLAGS], cwd=root, module=False)
    killed = mode == "fsize-kill"
    rewritten, kept = assert_each_file_whole(root, original, expected, temporary=int(killed))
    assert (root / "app3.py").read_bytes() == original["app3.py"]
    if mode == "fsize":  # the failed write is one error line; every other file is rewritten
        assert run.code == 1 and (rewritten, kept) == (len(NAMES) - 1, 1)
        assert any(line.startswith("  app3.py:") and line.endswith(
            "registration: error: not written: cannot write it: File too large")
            for line in run.stderr.splitlines()), run.stderr
        run.assert_clean_stderr()
    else:  # killed in the middle of app3.py's write, after app.py and app0-2.py
        assert run.code == -signal.SIGXFSZ and (rewritten, kept) == (4, 3)
    rerun_finishes(root, expected)
