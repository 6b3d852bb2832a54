"""Bytes outside the change are the original bytes, whatever the encoding (issue 19, item 2): a
rewrite is spliced into the file's bytes; where it cannot be spliced safely, or the new bytes
would not read back as the rewritten text, nothing is written and the file says why."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from planeshift.codemods.support.writer import SourceFile, WriteError, decode_source

from .helpers import APP, PACK_FLAGS, invoke, project

REWRITTEN = b"as_subscriber(Subscription("


def write(root: Path, data: bytes, monkeypatch: pytest.MonkeyPatch) -> bytes:
    project(root, {"app.py": data})
    done = invoke(root, "migrate", "--root", str(root), "--write", "--no-cache", *PACK_FLAGS,
                  monkeypatch=monkeypatch)
    assert done.code == 0, done.stdout + done.stderr
    return (root / "app.py").read_bytes()


@pytest.mark.parametrize(("encoding", "line", "respelled"), [
    # '+AOk-' and '+AOk' both spell é in UTF-7; the codec writes the second
    ("utf-7", "x = 'é'  # é\n", (b"'+AOk'", b"'+AOk-'")),
    # a redundant shift back to ASCII, as some editors write one
    ("iso-2022-jp", "x = '日本'\n", (b"x = '", b"x = '\x1b(B")),
    # cp932 spells NEC's and IBM's copies of a character in other bytes; the codec writes one
    ("cp932", "x = '\u2252'\n", (b"\x81\xe0", b"\x87\x90")),
])
def test_lines_the_rewrite_does_not_touch_keep_their_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str, line: str,
        respelled: tuple[bytes, bytes]) -> None:
    text = f"# -*- coding: {encoding} -*-\n{line}{APP}"
    data = text.encode(encoding).replace(*respelled)
    assert data != text.encode(encoding) and data.decode(encoding) == text
    after = write(tmp_path, data, monkeypatch)
    assert REWRITTEN in after
    kept = data.split(b"\n")[1]
    assert kept in after.split(b"\n"), (kept, after)
    assert after.startswith(data.split(b"\n")[0] + b"\n")
    compile(after, "app.py", "exec", dont_inherit=True)


def source(data: bytes, rel: str = "app.py") -> SourceFile:
    return decode_source(data, rel)


def test_a_change_that_cannot_be_spliced_into_utf7_is_refused() -> None:
    """'é' then a base64 letter: spliced after '+AOk' the letter would extend the run."""
    file = source(b"# coding: utf-7\nx = '+AOk'\n")
    with pytest.raises(WriteError, match="cannot be spliced|would not read back"):
        file.encode(file.text.replace("é'", "éa'"))


def test_a_shift_state_carried_over_a_newline_is_refused() -> None:
    """ISO-2022-JP: the second line starts still shifted into JIS X 0208; a splice that assumed
    ASCII there would change the text, so the new bytes are read back and refused."""
    file = source(b"# coding: iso-2022-jp\nx = '''\x1b$B$\"\n$\"\x1b(B'''\n")
    assert file.text.endswith("x = '''\u3042\n\u3042'''\n")
    with pytest.raises(WriteError, match="would not read back"):
        file.encode(file.text.replace("\u3042'''", "\u3042a'''"))


def test_a_coding_cookie_moved_out_of_reach_is_refused() -> None:
    """A rewrite that pushes the cookie below line 2 would have Python read the bytes as
    UTF-8."""
    file = source("# coding: latin-1\nx = 'é'\n".encode("latin-1"))
    with pytest.raises(WriteError, match="would not read back"):
        file.encode("import a\nimport b\n" + file.text)


def test_the_bom_and_the_encoding_are_kept() -> None:
    file = source(codecs.BOM_UTF8 + "x = 'é'\r\ny = 1\r\n".encode())
    assert file.encode(file.text.replace("y = 1", "y = 2")) == \
        codecs.BOM_UTF8 + "x = 'é'\r\ny = 2\r\n".encode()


def test_a_migration_that_cannot_be_written_is_an_error_in_a_dry_run_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check runs when the new text is made: --check and the diff see the refusal."""
    from planeshift.codemods.support import writer

    def refuse(old: str, data: bytes, new: str, encoding: str) -> bytes:
        raise WriteError("no splice here")

    monkeypatch.setattr(writer, "splice", refuse)
    project(tmp_path)
    before = (tmp_path / "app.py").read_bytes()
    done = invoke(tmp_path, "migrate", "--root", str(tmp_path), "--check", "--format", "json",
                  "--no-cache", *PACK_FLAGS, monkeypatch=monkeypatch)
    assert done.code == 1
    report = done.json()
    assert report["files"] == []
    assert any("no splice here" in n["reason"] for n in report["not_migrated"]), report
    assert (tmp_path / "app.py").read_bytes() == before
