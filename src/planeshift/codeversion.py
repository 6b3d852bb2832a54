"""Which planeshift code is running: its version and a digest of its own modules, for cache salts."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from . import __version__


@functools.cache
def code_version() -> str:
    """planeshift's version and a digest of its own modules' paths and bytes: an editable
    install or a checkout updated between releases must not answer from caches that older code
    wrote, while two installs of one commit (the pre-commit hook's environment and the user's
    venv) share them. The key is the content, never a modification time (about 200 files,
    1.8 MB: a few milliseconds to read and hash, once a process)."""
    return f"{__version__}+{tree_digest(Path(__file__).resolve().parent)[:12]}"


def tree_digest(root: Path) -> str:
    """A digest of the relative path and the bytes of every ``*.py`` under *root*."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()
