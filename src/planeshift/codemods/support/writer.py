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

from ... import fsio
from ...atomic import write_atomic


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
        """The bytes to write for *text*: the original bytes wherever the text is unchanged and
        the new text's encoding only in the changed spans (:func:`splice`), checked to decode
        back to exactly *text* the way it will be read (the coding cookie found again in the
        new bytes); WriteError says why not."""
        if text == self.text:
            return self.data
        body = splice(self.text, self.data[len(codecs.BOM_UTF8):] if self.bom else self.data,
                      text, self.encoding)
        data = codecs.BOM_UTF8 + body if self.bom else body
        try:
            again = decode_source(data, self.rel)
        except ValueError as exc:
            raise WriteError(f"the new bytes would not read back: {exc}") from exc
        if again.text != text or again.encoding != self.encoding or again.bom != self.bom:
            raise WriteError("the new bytes would not read back as the rewritten text "
                             f"(as {again.encoding}{' with a BOM' if again.bom else ''}); "
                             "nothing is written")
        return data


# codecs whose bytes for a character depend on what came before (a shift state, a base64 run, a
# byte-order mark): text re-encoded whole may be spelled in other bytes than the original's
_STATEFUL = frozenset({"utf-7", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
                       "utf-32-be", "hz", "iso2022_kr"})


def splice(old: str, data: bytes, new: str, encoding: str) -> bytes:
    """*data* (which decodes to *old*) with only the spans where *new* differs from *old*
    replaced by their encoding; WriteError when that cannot be done safely.

    A stateless codec whose encoding of *old* gives *data* back byte for byte spells every
    character alone and always alike, so encoding *new* whole is that splice. Otherwise
    (a stateful codec, or bytes in another valid spelling than the codec writes) the changed
    spans are found line by line, narrowed to the characters that differ, and only those are
    encoded between the original bytes around them."""
    name = codecs.lookup(encoding).name
    try:
        if name not in _STATEFUL and not name.startswith("iso2022") and old.encode(encoding) == data:
            return new.encode(encoding)
        pieces: list[bytes] = []
        lines = _Lines(old, data, encoding)
        at = 0  # bytes of data already placed
        for start, end, replacement in changed_spans(old, new):
            first, last = lines.byte_offsets(start, end)
            first = max(first, at)
            pieces += [data[at:first], replacement.encode(encoding)]
            at = max(last, first)
        pieces.append(data[at:])
        return b"".join(pieces)
    except UnicodeEncodeError as exc:
        raise WriteError(f"the new text cannot be encoded as {encoding}: {exc}") from exc


def changed_spans(old: str, new: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement): the spans of *old* (character offsets) that become
    *replacement* in *new*, in order; the lines that differ, narrowed to the characters that
    do."""
    from .linediff import opcodes

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    a_at = [0]
    for line in a:
        a_at.append(a_at[-1] + len(line))
    b_at = [0]
    for line in b:
        b_at.append(b_at[-1] + len(line))
    spans: list[tuple[int, int, str]] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        was, now = old[a_at[i1]:a_at[i2]], new[b_at[j1]:b_at[j2]]
        head = 0
        while head < min(len(was), len(now)) and was[head] == now[head]:
            head += 1
        tail = 0
        while tail < min(len(was), len(now)) - head and was[-1 - tail] == now[-1 - tail]:
            tail += 1
        spans.append((a_at[i1] + head, a_at[i2] - tail, now[head:len(now) - tail]))
    return spans


class _Lines:
    """Character offsets of a text mapped to byte offsets of its bytes, through the newlines
    both hold (a codec whose byte 0x0A is only ever a newline, as Python requires of source)."""

    def __init__(self, text: str, data: bytes, encoding: str) -> None:
        if text.count("\n") != data.count(b"\n"):
            raise WriteError(f"its bytes in {encoding} do not hold one newline byte per "
                             "newline, so the change cannot be spliced into them; nothing is "
                             "written")
        self.text, self.data, self.encoding = text, data, encoding
        self.chars = [0]  # where each line starts, in characters and in bytes
        self.bytes = [0]
        at = text.find("\n")
        while at != -1:
            self.chars.append(at + 1)
            at = text.find("\n", at + 1)
        at = data.find(b"\n")
        while at != -1:
            self.bytes.append(at + 1)
            at = data.find(b"\n", at + 1)

    def byte_offsets(self, start: int, end: int) -> tuple[int, int]:
        """Where the original bytes before *start* end (after any bytes that only close a shift
        state), and where those from *end* on begin (with the bytes that open theirs)."""
        return self._offset(start, last=True), self._offset(end, last=False)

    def _offset(self, char: int, last: bool) -> int:
        import bisect

        row = bisect.bisect_right(self.chars, char) - 1
        col = char - self.chars[row]
        base = self.bytes[row]
        stop = self.bytes[row + 1] if row + 1 < len(self.bytes) else len(self.data)
        if col == 0 and not last:
            return base
        decoder = codecs.getincrementaldecoder(self.encoding)()
        count, found = 0, -1
        for i in range(base, stop):
            count += len(decoder.decode(self.data[i:i + 1]))
            if count == col and not last:
                return i + 1
            if count == col:
                found = i + 1
            elif count > col:
                break
        if found == -1 and col == 0:
            return base
        if found == -1:
            raise WriteError(f"no byte boundary in {self.encoding} at line {row + 1}, column "
                             f"{col + 1}; the change cannot be spliced in; nothing is written")
        return found


def read_source(path: Path, rel: str) -> SourceFile:
    """Raises OSError, or ValueError when the bytes cannot be decoded."""
    data = fsio.read_bytes(path)
    return decode_source(data, rel, path)


def decode_source(data: bytes, rel: str, path: Path | None = None) -> SourceFile:
    """*data* decoded as planeshift reads *rel*; ValueError when it cannot be."""
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
    return SourceFile(path or Path(rel), rel, data, text, encoding, bom)


def check_python(text: str, rel: str, whole: str | None = None) -> None:
    """Raise WriteError unless *text* parses and compiles. *text* may be the part of the file
    *whole* that was rewritten: the error then names what the whole file gives, at its lines."""
    try:
        compile(text, rel, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        said = _in_whole(whole, rel) if whole is not None and whole is not text else None
        raise WriteError(f"the rewritten file does not compile: {said or exc}") from exc


def _in_whole(whole: str, rel: str) -> SyntaxError | ValueError | None:
    """What compiling the whole file says, at its own lines (None if it compiles)."""
    try:
        compile(whole, rel, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return exc
    return None


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
