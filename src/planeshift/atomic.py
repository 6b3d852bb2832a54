"""Atomic file writes: a temporary file in the same folder, renamed into place, so a reader (or
a concurrent scan) sees the old file or the new one, never half of one.

Own, rather than ``tempfile``: every scan writes a few cache files, and ``tempfile`` costs more
to import (~10 ms with ``shutil`` and ``random``) than the writes themselves.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

_names = itertools.count()


def write_atomic(path: Path, data: bytes, mode: int | None = None, fsync: bool = False) -> None:
    """Write *data* to *path* atomically; *mode* sets the permissions (else 0o666 less the
    umask). Raises OSError, leaving no temporary file behind."""
    for _ in range(3):
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{next(_names)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:  # left by a crashed run that had this pid
            continue
    else:
        raise FileExistsError(f"cannot create a temporary file beside {path}")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if fsync:
                out.flush()
                os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
