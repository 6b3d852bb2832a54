"""Which planeshift code is running: its version and a digest of its own modules, for cache salts."""

from __future__ import annotations

import functools
import hashlib
import os
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
    """A digest of the relative path and the bytes of every ``*.py`` under *root*, in the order
    of their path parts (``sorted(root.rglob("*.py"))``'s, read without pathlib's globbing)."""
    found: list[tuple[tuple[str, ...], str]] = []
    _python_files(str(root), (), found)
    found.sort()
    digest = hashlib.sha256()
    for parts, path in found:
        with open(path, "rb") as f:
            data = f.read()
        digest.update(f"{'/'.join(parts)}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _python_files(folder: str, parts: tuple[str, ...],
                  out: list[tuple[tuple[str, ...], str]]) -> None:
    """(path parts under the root, path) of the files named ``*.py``, as ``rglob`` finds them:
    hidden ones too, not under a symbolic link to a folder."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".py") and entry.is_file():
                out.append(((*parts, entry.name), entry.path))
            elif entry.is_dir(follow_symlinks=False):
                _python_files(entry.path, (*parts, entry.name), out)
