"""Which planeshift code is running: its version and a digest of its own modules, for cache salts."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from . import __version__


@functools.cache
def code_version() -> str:
    """planeshift's version and a digest of its own modules' sizes and mtimes: an editable
    install or a checkout updated between releases must not answer from caches that older code
    wrote (60 stats, well under a millisecond)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}|{st.st_size}|{st.st_mtime_ns}\0".encode())
    return f"{__version__}+{digest.hexdigest()[:12]}"
