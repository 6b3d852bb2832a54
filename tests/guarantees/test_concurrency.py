"""Two runs at once on one tree (pre-commit and an editor) both succeed and leave a valid cache;
a cache another planeshift wrote is never answered from."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_PACK

from planeshift.analyzer.store import caches
from planeshift.analyzer.store.codec import DIGEST
from planeshift.api import scan
from planeshift.codeversion import tree_digest
from planeshift.config import Config
from planeshift.reports.json_report import render_json
from planeshift.rules import packs

from .helpers import APP, PACK_FLAGS, SRC, process, project

ROUNDS = 4


def tree(root: Path) -> Path:
    files = {f"pkg/mod{i}.py": APP.replace("audit", f"audit{i}") for i in range(30)}
    return project(root, {"pkg/__init__.py": "", **files})


def start(kind: str, root: Path) -> subprocess.Popen:
    args = (["scan", str(root), "--format", "json"] if kind == "scan"
            else ["lint", "--root", str(root), "--format", "json", "--fail-on", "error"])
    return subprocess.Popen([sys.executable, "-m", "planeshift", *args, *PACK_FLAGS, "--jobs", "2"],
                            cwd=root, env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "stats"}


@pytest.mark.parametrize("kinds", [("scan", "scan"), ("lint", "lint"), ("scan", "lint")])
def test_two_runs_at_once_both_succeed_and_leave_a_valid_cache(tmp_path: Path,
                                                               kinds: tuple[str, str]) -> None:
    root = tree(tmp_path)
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False)
    truth = json.loads(render_json(scan(config)))
    for round_ in range(ROUNDS):
        if round_:  # an edit between rounds, so each round writes facts, results and the link
            (root / f"pkg/mod{round_}.py").write_text(APP.replace("audit", f"edited{round_}"))
            truth = json.loads(render_json(scan(config)))
        runs = [start(kind, root) for kind in kinds]
        for kind, proc in zip(kinds, runs):
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert "Traceback" not in err and "warning" not in err, err
            if kind == "scan":
                assert stable(json.loads(out)) == stable(truth)
        warm = scan(Config(root=root, packs=(DEMO_PACK,), builtin_packs=()))
        assert warm.stats["cache"] == "result" and warm.stats["warnings"] == []
        assert stable(json.loads(render_json(warm))) == stable(truth)
    assert not list((root / ".planeshift_cache").rglob("*.tmp"))


def test_a_cache_another_planeshift_version_wrote_is_ignored(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    root = tree(tmp_path)
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=())
    for module in (caches, packs):
        monkeypatch.setattr(module, "code_version", lambda: "0.0.9+other")
    caches.code_tag.cache_clear()
    other = scan(config)
    theirs = {p.name for p in (root / ".planeshift_cache").glob("facts-*")}
    monkeypatch.undo()
    caches.code_tag.cache_clear()
    mine = scan(config)  # the same tree: only the code differs
    assert other.stats["cache"] == "cold" and theirs
    assert mine.stats["cache"] == "cold" and mine.stats["cache_hits"] == 0
    assert not theirs & {p.name for p in (root / ".planeshift_cache").glob("facts-*")}  # pruned
    assert scan(config).stats["cache"] == "result"  # its own cache, it does answer from


def test_two_installs_of_one_commit_share_the_cache_and_an_edited_one_does_not(
        tmp_path: Path) -> None:
    """Two installs of the same code (the pre-commit hook's environment and the user's venv),
    their files written at different times, answer from each other's cache, alternately; the
    same version number with its code edited since (an editable install, a checkout updated
    between releases) does not answer from the cache the old code wrote, which is pruned."""
    installs = [tmp_path / "install-a", tmp_path / "install-b"]
    for install in installs:
        shutil.copytree(SRC / "planeshift", install / "planeshift",
                        ignore=shutil.ignore_patterns("__pycache__"))
    for path in (installs[0] / "planeshift").rglob("*.py"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # other mtimes, the same bytes
    root = tree(tmp_path / "tree")
    args = ["scan", str(root), "--format", "json", *PACK_FLAGS]

    def stats(install: Path) -> dict:
        run = process(args, cwd=root, env={"PYTHONPATH": str(install)})
        assert run.code == 0, run.stderr
        return json.loads(run.stdout)["stats"]

    assert stats(installs[0])["cache"] == "cold"
    assert [stats(i)["cache"] for i in (installs[1], installs[0])] == ["result", "result"]
    theirs = {p.name for p in (root / ".planeshift_cache").glob("facts-*")}
    module = installs[1] / "planeshift" / "rules" / "classify.py"
    before = module.stat()
    text = module.read_bytes()
    assert text.startswith(b'"""')  # one byte of its docstring: the size and version stay
    module.write_bytes(text[:3] + text[3:4].swapcase() + text[4:])
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))  # and so does the mtime
    assert module.stat().st_size == before.st_size and module.read_bytes() != text
    edited = stats(installs[1])
    assert edited["cache"] == "cold" and edited["cache_hits"] == 0
    assert theirs and not theirs & {p.name for p in (root / ".planeshift_cache").glob("facts-*")}


def test_the_code_digest_is_of_content_not_of_modification_times(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        shutil.copytree(SRC / "planeshift", folder, ignore=shutil.ignore_patterns("__pycache__"))
    os.utime(second / "api.py", ns=(5, 5))
    assert tree_digest(first) == tree_digest(second)
    data = (second / "api.py").read_bytes()
    (second / "api.py").write_bytes(data.replace(b"def scan(", b"def scaN(", 1))
    assert tree_digest(first) != tree_digest(second)
    (second / "api.py").write_bytes(data)
    (second / "api_renamed.py").write_bytes((second / "api.py").read_bytes())
    (second / "api.py").unlink()
    assert tree_digest(first) != tree_digest(second)  # the path is part of the content


# A scan in a child whose file-size limit cuts every cache write past LIMIT bytes half way (as a
# full disk or a process killed mid-write would): the demo pack's entry, the large file's facts,
# the result, the link.
CUT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from planeshift.cli import main
sys.exit(main(sys.argv[2:]))
"""
LIMIT = 4000


def test_a_cache_write_cut_off_half_way_leaves_no_half_entry(tmp_path: Path) -> None:
    """A reader sees a whole entry or none: a write that fails half way leaves nothing, neither
    a partial entry under the name a reader opens nor its temporary file."""
    big = "".join(f"def step{i}(x, y=1):\n    return x + y\n\n\n" for i in range(400))
    root = project(tmp_path, {"big.py": big + APP})
    args = ["scan", str(root), "--format", "json", *PACK_FLAGS]
    run = process(["-c", CUT, str(LIMIT), *args], cwd=root, module=False)
    assert run.code == 0 and "Traceback" not in run.stderr, run.stderr
    cache = root / ".planeshift_cache"
    entries = [p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert "File too large" in run.stderr  # the cache's warnings: writes were cut
    assert not [p for p in entries if p.name.endswith(".tmp")]
    for path in entries:
        marshal.loads(path.read_bytes()[DIGEST if path.suffix == ".facts" else 0:])  # whole
