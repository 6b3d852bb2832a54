"""One scan cache shared by the CLI tests of every run, in place of ``--no-cache``.

A test project that uses lionagi makes a scan read lionagi's installed source as context
(about 3.5 s of extraction each time with no cache, 0.15 s from a warm cache). The caches are
keyed by content and never lie (docs/guarantees.md), so the tests share one folder: the
git-ignored ``.planeshift_cache/tests`` of this checkout, which concurrent test workers may use at
once like any two runs. Tests of the cache itself keep their own folders.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / ".planeshift_cache" / "tests"


def cache_flags() -> tuple[str, str]:
    return ("--cache-dir", str(FOLDER))
