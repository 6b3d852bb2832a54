"""Where the lionagi 0.36.0 corpus comes from, with nothing outside this repository.

The test extra pins ``lionagi==0.36.0`` (its runtime dependencies are needed anyway to import
and characterize it), so the corpus is normally the installed package: its ``lionagi/`` folder
equals the sdist's. Without it installed (a benchmark run from another environment), the sdist
is downloaded once with pip into the git-ignored ``.corpus/`` and its sha256 checked against the
pin below. Nothing here imports lionagi.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

VERSION = "0.36.0"
SDIST_SHA256 = "4009a43514cc4e456ab016c9f650bbc0ef0b47e3316972cc602dc3dd7a0226a6"
REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".corpus"
INSTALL = "python -m pip install -e '.[test]'"


class CorpusUnavailable(RuntimeError):
    """The corpus can be neither found installed nor fetched; the message names the fix."""


def installed_package() -> Path | None:
    """The installed lionagi 0.36.0's package folder (found from its metadata, not imported)."""
    try:
        dist = metadata.distribution("lionagi")
    except metadata.PackageNotFoundError:
        return None
    if dist.version != VERSION:
        return None
    folder = Path(str(dist.locate_file("lionagi")))
    return folder if (folder / "__init__.py").is_file() else None


def sdist_package() -> Path:
    """The sdist's ``lionagi/`` folder under ``.corpus/``: downloaded and checked once."""
    tree = CACHE / f"lionagi-{VERSION}"
    if (tree / "lionagi" / "__init__.py").is_file():
        return tree / "lionagi"
    archive = CACHE / f"lionagi-{VERSION}.tar.gz"
    if not archive.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
             ":all:", f"lionagi=={VERSION}", "-d", str(CACHE)],
            capture_output=True, text=True, timeout=600, check=False,
        )
        if done.returncode != 0 or not archive.is_file():
            raise CorpusUnavailable(
                f"cannot download lionagi {VERSION} from the package index; run `{INSTALL}` "
                f"with the index reachable, or deselect with -m 'not corpus' "
                f"({done.stderr.strip().splitlines()[-1:] or ['no output']})")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        archive.unlink()
        raise CorpusUnavailable(f"{archive} has sha256 {digest}, expected {SDIST_SHA256}; removed it")
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return tree / "lionagi"


def lionagi_package() -> Path:
    """lionagi 0.36.0's ``lionagi/`` package folder: installed, else the pinned sdist."""
    return installed_package() or sdist_package()


if __name__ == "__main__":  # `python tests/corpus/source.py` prints the folder
    print(lionagi_package())
