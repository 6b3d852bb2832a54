"""Reading the files the OS hands over: regular files only, never blocking.

Every file planeshift reads (sources, settings files, the lint baseline, ignore files, packs,
pyproject.toml, CODEOWNERS, its own cache) goes through :func:`read_bytes`. A FIFO, a device or a
socket at that path is refused with :class:`NotRegularFile` (an ``OSError``, so callers that
report an unreadable file report this one the same way) instead of being opened for reading: a
FIFO with no writer would block the run for ever, a device could stream without end. The path is
checked with ``stat`` (links followed), then opened with ``O_NONBLOCK`` and checked again on the
open descriptor, so a file swapped for a FIFO in between cannot block the read either.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tokenize
from pathlib import Path

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class NotRegularFile(OSError):
    """The path is a FIFO, a device or a socket: not read (a folder is IsADirectoryError)."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", str(path))


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_regular(st: os.stat_result, path: str | os.PathLike[str]) -> None:
    if stat.S_ISDIR(st.st_mode):  # as the OS says it (`Is a directory`), an OSError all the same
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, kind_of(st.st_mode))


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file at *path*; NotRegularFile (an OSError) for anything else,
    without ever waiting on it."""
    check_regular(os.stat(path), path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        check_regular(st, path)
        chunks = []
        while True:
            chunk = os.read(fd, max(st.st_size + 1, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], encoding: str = "utf-8",
              errors: str = "strict") -> str:
    """:func:`read_bytes` decoded (UnicodeDecodeError with ``errors="strict"``)."""
    return read_bytes(path).decode(encoding, errors)


def decode_source(data: bytes, rel: str) -> str:
    """*data* decoded as Python reads a source file (a BOM dropped, a coding cookie obeyed),
    settings files as UTF-8 with an optional BOM; what cannot be decoded is replaced (for
    reading, never for writing back)."""
    encoding = "utf-8-sig"
    if rel.endswith(".py"):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:  # a bad coding cookie: the scan lists the file; read what can be
            encoding = "utf-8-sig"
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:  # an unknown codec in the cookie
        return data.decode("utf-8-sig", errors="replace")


def same_file_key(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file *path* leads to, or None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
