"""Golden-file comparison; ``PLANESHIFT_UPDATE_GOLDEN=1`` rewrites the files instead of comparing."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PLANESHIFT_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8", newline="\n")
        return
    assert path.is_file(), f"no golden file {path}; run with PLANESHIFT_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{name} differs from its golden file; if intended, regenerate it"
