"""The one writer: what it writes re-parses and compiles, keeps encoding, BOM, line endings and
permissions, is atomic, refuses a file changed on disk, and leaves untouched files alone."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

from planeshift.codemods import MigrateOptions, migrate
from planeshift.config import Config

from .helpers import dedent, run

APP = """
from demo.bus import EventBus


def audit(**payload):  # keeps its comment
    print("audit", payload)


bus = EventBus()
bus.subscribe(audit)   # odd spacing stays
"""


def tree(tmp_path: Path, data: bytes, name: str = "app.py") -> Path:
    write_tree(tmp_path, {**DEMO_FILES, name: data})
    return tmp_path / name


def test_crlf_stays_crlf_in_rewritten_and_added_lines(tmp_path: Path) -> None:
    path = tree(tmp_path, dedent(APP).replace("\n", "\r\n").encode())
    run(tmp_path, ("registration",))
    data = path.read_bytes()
    assert b"as_subscriber(Subscription(" in data
    assert data.count(b"\r\n") == data.count(b"\n")  # no bare LF, imports included
    assert b"bus.subscribe(\r\n    as_subscriber(" in data and b"  # odd spacing stays\r\n" in data


def test_a_bom_and_a_pep_263_encoding_are_kept(tmp_path: Path) -> None:
    body = "# -*- coding: latin-1 -*-\n" + dedent(APP).replace('"audit"', '"audité"')
    path = tree(tmp_path, body.encode("latin-1"))
    run(tmp_path, ("registration",))
    text = path.read_bytes().decode("latin-1")
    assert '"audité"' in text and "as_subscriber(" in text
    bom = tree(tmp_path / "b", codecs.BOM_UTF8 + dedent(APP).encode())
    run(tmp_path / "b", ("registration",))
    assert bom.read_bytes().startswith(codecs.BOM_UTF8 + b"from planeshift.kernels.adapters")


def test_permissions_are_kept_and_a_symlink_inside_the_project_is_written_through(
        tmp_path: Path) -> None:
    write_tree(tmp_path, DEMO_FILES)
    target = tmp_path / "elsewhere" / "real_app.txt"  # not a .py: scanned through the link only
    target.parent.mkdir()
    target.write_text(dedent(APP))
    os.chmod(target, 0o640)
    (tmp_path / "app.py").symlink_to(target)
    result = run(tmp_path, ("registration",))
    assert result.changes and not result.failed
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert (tmp_path / "app.py").is_symlink()
    assert "as_subscriber(" in target.read_text()
    assert not list(target.parent.glob(".*.tmp"))


def test_a_symlink_out_of_the_project_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "real_app.py"
    target.parent.mkdir()
    target.write_text(dedent(APP))
    before = target.read_bytes()
    write_tree(tmp_path / "proj", DEMO_FILES)
    (tmp_path / "proj" / "app.py").symlink_to(target)
    result = run(tmp_path / "proj", ("registration",))
    assert result.failed and not result.migrated
    (entry,) = [n for n in result.not_migrated if n.error]
    assert "symbolic link out of the project" in entry.reason and entry.file == "app.py"
    assert target.read_bytes() == before and (tmp_path / "proj" / "app.py").is_symlink()


def test_a_file_changed_on_disk_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    path = tree(tmp_path, dedent(APP).encode())
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1)

    def meddle(done: int, total: int) -> None:  # after the rewrite, before the write
        path.write_text(path.read_text() + "# edited meanwhile\n")

    result = migrate(config, MigrateOptions(select=("registration",), write=True), meddle)
    assert result.failed and not result.migrated
    (entry,) = [n for n in result.not_migrated if n.error]
    assert "changed on disk" in entry.reason
    assert path.read_text().endswith("# edited meanwhile\n")
    assert "as_subscriber" not in path.read_text()


def test_a_rewrite_that_would_not_compile_is_not_written(tmp_path: Path) -> None:
    pack = tmp_path / "bad.yaml"
    pack.write_text(DEMO_PACK.read_text().replace(
        'subscriber: "as_subscriber(Subscription(name={name}, policy={policy}, '
        'handler={handler}))"',
        'subscriber: "as_subscriber(Subscription(name={name}, name={policy}, '
        'handler={handler}))"'))
    path = tree(tmp_path / "t", dedent(APP).encode())
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False)
    before = path.read_bytes()
    result = migrate(config, MigrateOptions(select=("registration",), write=True))
    assert result.failed and result.changes == ()
    assert any("does not compile" in n.reason for n in result.not_migrated)
    assert path.read_bytes() == before


def test_a_dry_run_writes_nothing_and_a_file_with_nothing_to_migrate_is_not_parsed(
        tmp_path: Path) -> None:
    path = tree(tmp_path, dedent(APP).encode())
    (tmp_path / "other.py").write_text("import os\n\nprint(os.sep)\n")
    before = path.read_bytes()
    result = run(tmp_path, write=False)
    assert path.read_bytes() == before
    (change,) = result.changes
    assert change.file == "app.py" and not change.written
    assert change.diff.startswith("--- a/app.py\n+++ b/app.py\n")
    assert result.stats["files_parsed"] == 1


@pytest.mark.parametrize("broken", [b"def f(:\n", b"\xff\xfe not text"])
def test_a_file_the_scan_cannot_read_is_reported_and_left_alone(tmp_path: Path,
                                                                broken: bytes) -> None:
    tree(tmp_path, dedent(APP).encode())
    (tmp_path / "broken.py").write_bytes(broken)
    result = run(tmp_path)
    assert [e.file for e in result.errors] == ["broken.py"]
    assert (tmp_path / "broken.py").read_bytes() == broken
    assert result.failed  # what it registers is unknown: the run says so with its exit code
    assert [c.file for c in result.changes] == ["app.py"]  # the rest of the run completes


def test_forked_workers_give_the_same_result_as_one_process(tmp_path: Path) -> None:
    apps = {f"pkg/app{i}.py": dedent(APP) for i in range(6)}
    results = []
    for jobs in (1, 2):
        root = tmp_path / f"jobs{jobs}"
        write_tree(root, {**DEMO_FILES, **apps})
        config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False,
                        jobs=jobs)
        results.append(migrate(config, MigrateOptions(write=True)))
    one, two = results
    assert [(c.file, c.after) for c in one.changes] == [(c.file, c.after) for c in two.changes]
    assert one.migrated == two.migrated and len(one.changes) == 6
