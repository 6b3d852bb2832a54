"""The files of a scan with their content keys; a stat index spares reading unchanged ones."""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Sequence
from pathlib import Path

from ... import fsio
from ...atomic import write_atomic
from ...types import FileError
from ..discover import SourceFile
from .caches import entry_key
from .codec import FORMAT


class Source:
    """A discovered file with its content key; its bytes are read when first needed (a file the
    stat index vouches for is not read at all unless its facts must be extracted again).

    A late read that fails, or finds other bytes than the key names (the file was deleted or
    changed during the scan), sets ``problem``: the file is then reported, not extracted, and
    nothing is cached under a key its facts would not match."""

    __slots__ = ("_data", "file", "key", "problem")

    def __init__(self, file: SourceFile, data: bytes | None, key: str) -> None:
        self.file, self.key, self._data = file, key, data
        self.problem: str | None = None

    @property
    def data(self) -> bytes:
        if self._data is None:
            src = self.file
            try:
                self._data = fsio.read_bytes(src.path)
            except OSError as exc:
                self._data = b""
                self.problem = f"cannot read: {exc.strerror or exc}"
            else:
                if entry_key(self._data, src.rel, src.module, src.is_package) != self.key:
                    self.problem = "it changed during the scan; scan again"
        return self._data


class StatIndex:
    """``rel -> (inode, size, mtime_ns, ctime_ns, module, is_package, content key)``, kept in the
    cache folder: a file whose stat is unchanged is neither read nor hashed again (git's index
    does the same). A file modified less than two seconds before it was read is not vouched for,
    since a second write within the file system's timestamp granularity could leave its stat
    unchanged; ctime and the inode change whenever a tool rewrites or replaces a file."""

    RACY_NS = 2_000_000_000

    def __init__(self, folder: Path) -> None:
        self.path = folder / "stat-index"
        self.entries: dict[str, tuple] = {}
        self.dirty = False
        self.warning: str | None = None
        try:
            version, entries = marshal.loads(fsio.read_bytes(self.path))
        except FileNotFoundError:
            return  # a first scan: every file is read and hashed
        except (OSError, ValueError, TypeError, EOFError) as exc:
            self.warning = f"stat index {self.path} not read ({exc}); every file is read again"
            return
        if version == FORMAT and isinstance(entries, dict):
            self.entries = entries  # (another format's index is simply replaced)

    def save(self) -> str | None:
        """Write the index if it changed; a warning instead of an error when it cannot be."""
        if not self.dirty:
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, marshal.dumps((FORMAT, self.entries)))
        except OSError as exc:
            return f"stat index not written to {self.path}: {exc.strerror or exc}"
        return None


def read_sources(files: Sequence[SourceFile], index: StatIndex | None = None,
                 max_bytes: int = 0) -> tuple[list[Source], list[FileError]]:
    """Every file's content key (reading and hashing it unless *index* vouches for it); an
    unreadable file, one that is not a regular file (a FIFO would block the read for ever) and
    one over *max_bytes* (0: no limit) become errors, not exceptions."""
    out: list[Source] = []
    errors: list[FileError] = []
    now = time.time_ns()
    for src in files:
        try:
            st = os.stat(src.path)
            fsio.check_regular(st, src.path)  # a FIFO would block the read for ever
            if max_bytes and st.st_size > max_bytes:
                errors.append(FileError(src.rel, f"not read: {_size(st.st_size)}, over the "
                                        f"{_size(max_bytes)} limit (max-file-size)"))
                continue
            known = index.entries.get(src.rel) if index is not None else None
            sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, src.module,
                   src.is_package)
            if _vouches(known, sig):
                out.append(Source(src, None, known[6]))  # type: ignore[index]
                continue
            data = fsio.read_bytes(src.path)
        except OSError as exc:
            errors.append(FileError(src.rel, f"cannot read: {exc.strerror or exc}"))
            continue
        key = entry_key(data, src.rel, src.module, src.is_package)
        out.append(Source(src, data, key))
        if index is not None and now - max(st.st_mtime_ns, st.st_ctime_ns) > StatIndex.RACY_NS:
            index.entries[src.rel] = (*sig, key)
            index.dirty = True
    if index is not None:
        present = {s.rel for s in files}
        for rel in [r for r in index.entries if r not in present]:
            del index.entries[rel]
            index.dirty = True
    return out, errors


def _vouches(known: object, sig: tuple) -> bool:
    """An index entry of the right shape (a damaged index is read as no index) with this stat."""
    return (isinstance(known, tuple) and len(known) == 7 and known[:6] == sig
            and isinstance(known[6], str) and len(known[6]) == 64)


def _size(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB" if count >= 100_000 else f"{count} bytes"
