"""The one writer every codemod's result goes through: read exactly, check, write atomically.

A file is decoded as Python decodes it (a UTF-8 BOM, a PEP 263 coding cookie) or, for settings
files, as UTF-8 with an optional BOM; line endings are left in the text (nothing translates
CRLF), so an edit that reuses the module's newline keeps them. Before a Python file is written,
its new text must parse and ``compile()``; it is encoded back with the same encoding and BOM,
written atomically (a temporary file, flushed to disk, renamed over it) with the same
permissions, and not at all when its bytes changed on disk since they were read or when it is a
symbolic link that leads out of the project.
"""

from __future__ import annotations

import codecs
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

from .. import fsio
from ..atomic import write_atomic


class WriteError(Exception):
    """The file was not written; the message says why."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path  # the file itself (a symlink inside the project is written through to its target)
    rel: str
    data: bytes
    text: str
    encoding: str  # the codec the text was decoded with, without the BOM
    bom: bool

    def encode(self, text: str) -> bytes:
        try:
            body = text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise WriteError(f"the new text cannot be encoded as {self.encoding}: {exc}") from exc
        return codecs.BOM_UTF8 + body if self.bom else body


def read_source(path: Path, rel: str) -> SourceFile:
    """Raises OSError, or ValueError when the bytes cannot be decoded."""
    data = fsio.read_bytes(path)
    bom = data.startswith(codecs.BOM_UTF8)
    encoding = "utf-8"
    if rel.endswith(".py"):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            raise ValueError(f"bad coding declaration: {exc}") from exc
        encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    body = data[len(codecs.BOM_UTF8):] if bom else data
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise ValueError(f"cannot decode as {encoding}: {exc}") from exc
    return SourceFile(path, rel, data, text, encoding, bom)


def check_python(text: str, rel: str) -> None:
    """Raise WriteError unless *text* parses and compiles."""
    try:
        compile(text, rel, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise WriteError(f"the rewritten file does not compile: {exc}") from exc


def write_source(source: SourceFile, text: str, root: Path | None = None) -> None:
    """Write *text* over *source*'s file, unless the file changed since it was read, or (with
    *root*) it is reached through a symbolic link that leads out of *root*."""
    data = source.encode(text)
    target = source.path.resolve()
    if root is not None and not target.is_relative_to(root.resolve()):
        raise WriteError(f"it is a symbolic link out of the project (to {target}); planeshift "
                         "does not write through it")
    try:
        current = fsio.read_bytes(target)
    except OSError as exc:
        raise WriteError(f"cannot read it again before writing: {exc.strerror or exc}") from exc
    if current != source.data:
        raise WriteError("it changed on disk since it was read; run migrate again")
    st = os.stat(target)
    if st.st_nlink > 1:  # the new file would replace this name only, splitting the links
        raise WriteError(f"it has {st.st_nlink} hard links, which replacing it would split; "
                         "planeshift writes only a file with one")
    mode = st.st_mode & 0o7777
    try:
        write_atomic(target, data, mode=mode, fsync=True)  # durable before it replaces the old
    except OSError as exc:
        raise WriteError(f"cannot write it: {exc.strerror or exc}") from exc
