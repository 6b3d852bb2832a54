"""Bad input, for scan, lint, migrate and characterize alike: each bad file is one line naming the file and the
cause (in the JSON ``errors`` and on stderr, never a traceback), the rest of the run completes,
and the exit code says what happened. Odd but valid files (a BOM, a declared encoding, CRLF,
mixed or CR line endings, form feeds, tabs) are analysed, and migrated with their bytes kept."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from .helpers import APP, Run, command, errors_of, invoke, process, project

DEEP_PARENS = "from demo.bus import EventBus\nEventBus().subscribe(" + "(" * 5000 + "print" \
    + ")" * 5000 + ")\n"
DEEP_UNARY = "from demo.bus import EventBus\nx = " + "-" * 100_000 + "1\n"  # parser: MemoryError
DEEP_AST = DEEP_UNARY.replace("-" * 100_000, "-" * 3000)  # parser: RecursionError
DEEP_WALK = DEEP_UNARY.replace("-" * 100_000, "-" * 1000)  # parses; planeshift's own walk does not

# file -> (its bytes, what its one error line must say)
BAD: dict[str, tuple[bytes, str]] = {
    "syntax.py": (b"from demo.bus import EventBus\nEventBus().subscribe(print\n",
                  "syntax error (line 2)"),
    "python2.py": (b"from demo.bus import EventBus\nprint 'hello'\nEventBus().subscribe(f)\n",
                   "syntax error (line 2): Missing parentheses"),
    "bad_utf8.py": (b"from demo.bus import EventBus\nname = '\xff'\n", "can't decode byte 0xff"),
    "bad_cookie.py": (b"# -*- coding: no-such-codec -*-\nx = 1\n", "unknown encoding: no-such-codec"),
    "bom_and_cookie.py": (codecs.BOM_UTF8 + b"# -*- coding: latin-1 -*-\nx = 1\n",
                          "a UTF-8 BOM, but a coding declaration of another encoding"),
    "nul.py": (b"from demo.bus import EventBus\nx = 1\x00\n", "null bytes"),
    "deep_parens.py": (DEEP_PARENS.encode(), "too many nested parentheses"),
    "deep_unary.py": (DEEP_UNARY.encode(), "nesting too deep"),
    "deep_ast.py": (DEEP_AST.encode(), "cannot parse: nesting too deep"),
    "deep_walk.py": (DEEP_WALK.encode(), "cannot analyse: nesting too deep"),
    "huge.py": (b"", "over the 5.0 MB limit (max-file-size)"),  # written below: 10 MB
    "loop_a.py": (b"", "Too many levels of symbolic links"),  # loop_a -> loop_b -> loop_a
    "dangling.py": (b"", "cannot read: No such file or directory"),  # -> nowhere.py
    "fifo.py": (b"", "cannot read: not a regular file (a FIFO)"),  # reading it would block for ever
}

# odd but valid: each registers audit on line 9, as APP does
ODD: dict[str, bytes] = {
    "bom.py": codecs.BOM_UTF8 + APP.encode(),
    "latin1.py": ("# -*- coding: latin-1 -*-\n" + APP.replace("\n\n\ndef", "\ncafé = 1\ndef", 1)
                  ).encode("latin-1"),
    "crlf.py": APP.replace("\n", "\r\n").encode(),
    "mixed.py": APP.replace("\n", "\r\n", 4).encode(),
    "formfeed.py": APP.replace("\n\n\ndef", "\n\x0c\n\ndef").encode(),
    "tabs.py": APP.replace("    print", "\tprint").encode(),
}


def bad_tree(root: Path) -> Path:
    project(root, {k: v for k, (v, _) in BAD.items() if v} | ODD)
    with open(root / "huge.py", "wb") as out:  # a generated table: valid, 10 MB, not read
        out.write(b"TABLE = [\n")
        out.write(b"    ('0123456789abcdef0123456789abcdef', 1, 2.0, None),\n" * 190_000)
        out.write(b"]\n")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("nowhere.py", root / "dangling.py")
    os.mkfifo(root / "fifo.py")
    (root / "pkg").mkdir()
    os.symlink("..", root / "pkg" / "up")  # a folder loop: never entered
    return root


KINDS = ("scan", "lint", "migrate", "characterize")


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_is_never_opened(tmp_path: Path, kind: str) -> None:
    """A read of a FIFO blocks until something writes to it: opened, it would hang the run for
    ever. Run as a child with a time limit, so that is a failure here, not a hung suite (this
    test comes first, before the bad tree below, which holds a FIFO too)."""
    root = project(tmp_path)
    os.mkfifo(root / "fifo.py")
    extra = ("--write",) if kind == "migrate" else ()
    run = process(command(kind, root, *extra), cwd=root, timeout=30)
    run.assert_clean_stderr()
    assert run.code == (0 if kind == "characterize" else 1)  # (characterize: the module written)
    assert errors_of(run.json()) == {"fifo.py": "cannot read: not a regular file (a FIFO)"}
    assert "fifo.py: cannot be analysed: cannot read: not a regular file (a FIFO)" in run.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Run, Path]]:
    """scan, lint, migrate --write and characterize, each on its own copy of the bad tree,
    once."""
    out = {}
    for kind in KINDS:
        root = bad_tree(tmp_path_factory.mktemp(kind))
        extra = ("--write",) if kind == "migrate" else ()
        with pytest.MonkeyPatch.context() as patch:
            out[kind] = invoke(root, *command(kind, root, *extra), monkeypatch=patch), root
    return out


EXPECTED = {name: cause for name, (_, cause) in BAD.items()} | {"loop_b.py": BAD["loop_a.py"][1]}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_file_is_one_line_naming_it_and_its_cause(runs, kind: str, name: str) -> None:
    run, _ = runs[kind]
    assert EXPECTED[name] in errors_of(run.json())[name]
    lines = [line for line in run.stderr.splitlines() if line.startswith(f"{name}: ")]
    assert len(lines) == 1 and EXPECTED[name] in lines[0], run.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_the_run_completes_says_so_by_its_exit_code_and_prints_no_traceback(runs, kind: str
                                                                           ) -> None:
    run, root = runs[kind]
    run.assert_clean_stderr()
    if kind == "characterize":  # the module is written: the files it could not read are listed
        assert run.code == 0 and (root.parent / f"{root.name}_characterization.py").is_file()
    else:
        assert run.code == 1  # completed, with files it could not analyse
    assert set(errors_of(run.json())) == set(EXPECTED)  # nothing else, nothing under pkg/up


def test_scan_analyses_every_odd_but_valid_file_at_the_right_place(runs) -> None:
    run, _ = runs["scan"]
    found = {(r["file"], r["line"], r["col"]) for r in run.json()["registrations"]}
    for name in [*ODD, "app.py"]:
        assert (name, 9, 0) in found, (name, sorted(found))


def test_migrate_rewrites_odd_files_keeping_encoding_bom_and_line_endings(runs) -> None:
    run, root = runs["migrate"]
    written = {f["file"] for f in run.json()["files"] if f["written"]}
    assert written == {*ODD, "app.py"}
    for name, before in ODD.items():
        after = (root / name).read_bytes()
        assert b"as_subscriber(Subscription(" in after
        assert after.startswith(codecs.BOM_UTF8) == before.startswith(codecs.BOM_UTF8)
        compile(after, name, "exec", dont_inherit=True)
        if name == "crlf.py":  # every line, the added import's too
            assert b"\n" not in after.replace(b"\r\n", b"") and b"\r" not in after.replace(
                b"\r\n", b"")
    assert "café".encode("latin-1") in (root / "latin1.py").read_bytes()
    assert b"\n\x0c\n" in (root / "formfeed.py").read_bytes()
    assert b"\tprint" in (root / "tabs.py").read_bytes()


@pytest.mark.parametrize(("text", "why"), [
    (APP.replace("bus.subscribe", "\x0cbus.subscribe"),
     "(a form feed at the start of a statement)"),
    (APP.replace("\n", "\r"), "(CR line endings)"),  # LibCST drops the final CR
])
def test_migrate_never_loses_a_byte_libcst_would_not_reproduce(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, why: str) -> None:
    """The scan reads these files; LibCST 1.x would not write back the statement holding the
    registration as it was. The file is left as it is, listed with the reason; nothing failed
    and nothing is left that planeshift could do, so --write and then --check exit 0."""
    before = text.encode()
    root = project(tmp_path, {"odd.py": before})
    scan = invoke(root, *command("scan", root), monkeypatch=monkeypatch)
    assert ("odd.py", 9) in {(r["file"], r["line"]) for r in scan.json()["registrations"]}
    run = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    assert run.code == 0 and (root / "odd.py").read_bytes() == before
    (entry,) = [n for n in run.json()["not_migrated"] if n["file"] == "odd.py"]
    assert not entry["error"] and f"byte for byte {why}" in entry["reason"]
    check = invoke(root, *command("migrate", root, "--check"), monkeypatch=monkeypatch)
    assert check.code == 0, check.stdout


def test_a_form_feed_outside_the_rewritten_statements_does_not_stop_the_rewrite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the statements holding registrations (and the import block) go through LibCST: a
    form feed starting another statement's line, which LibCST would drop, is kept as it is."""
    before = APP.replace("bus = ", "\x0cbus = ").encode()
    root = project(tmp_path, {"odd.py": before})
    run = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    assert run.code == 0, run.stdout
    after = (root / "odd.py").read_bytes()
    assert b"\n\x0cbus = EventBus()\n" in after and b"as_subscriber(" in after
    assert [m["file"] for m in run.json()["migrated"]].count("odd.py") == 1
    check = invoke(root, *command("migrate", root, "--check"), monkeypatch=monkeypatch)
    assert check.code == 0, check.stdout


def test_migrate_leaves_every_bad_file_byte_identical_and_a_rerun_changes_nothing(
        runs, monkeypatch: pytest.MonkeyPatch) -> None:
    _, root = runs["migrate"]
    for name, (data, _) in BAD.items():
        if data:
            assert (root / name).read_bytes() == data, name
    again = invoke(root, *command("migrate", root, "--write"), monkeypatch=monkeypatch)
    assert again.json()["files"] == [] and again.code == 1  # the bad files still cannot be read
