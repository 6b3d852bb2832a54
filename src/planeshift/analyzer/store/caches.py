"""The caches in the cache folder: per-file facts by content hash, and whole-scan results.

Entries are marshal rows (never pickle: the cache lives in the scanned tree). A fact entry is
keyed by the file's bytes, its path and module name, inside a namespace named by planeshift's
code (its version and a digest of its modules) and the packs' vocabulary, so changing either
starts a fresh namespace; namespaces other code wrote are pruned. Writes go to a temporary file
and are renamed into place, so concurrent runs never see half an entry; an entry that does not
load is ignored and rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from pathlib import Path

from ... import fsio
from ...atomic import write_atomic
from ...codeversion import code_version
from ...types import ScanResult
from ..extract.facts import FileFacts
from .codec import FORMAT, UNDECODABLE, decode, encode, loads


@functools.cache
def code_tag() -> str:
    """Eight hex digits naming the cache format and planeshift's code (see code_version)."""
    return hashlib.sha256(f"{FORMAT}|{code_version()}".encode()).hexdigest()[:8]


def salt(*parts: str) -> str:
    """A fact-cache namespace: the code's tag, then a digest of *parts* (the vocabulary)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return f"{code_tag()}-{digest.hexdigest()[:16]}"


def prune_other_code(folder: Path) -> None:
    """Remove fact namespaces older code wrote: nothing this code runs can read them, and each
    upgrade would otherwise leave a copy of every file's facts behind."""
    try:
        stale = [p for p in folder.glob("facts-*") if not p.name.startswith(f"facts-{code_tag()}-")]
    except OSError:
        return
    if stale:
        import shutil  # here: a scan that finds nothing to prune does not pay the import

        for namespace in stale:
            shutil.rmtree(namespace, ignore_errors=True)


def entry_key(data: bytes, rel: str, module: str, is_package: bool) -> str:
    digest = hashlib.sha256(data)
    digest.update(f"\0{rel}\0{module}\0{int(is_package)}".encode())
    return digest.hexdigest()


class FactCache:
    def __init__(self, folder: Path, namespace: str) -> None:
        self.folder = folder / f"facts-{namespace}"
        self.warning: str | None = None
        self._writable = True
        self._made: set[str] = set()  # subfolders this process made or found (a mkdir a file)

    def get_bytes(self, key: str) -> bytes | None:
        """The entry's bytes, undecoded (a corrupt entry is found, and rebuilt, at decode)."""
        try:
            return fsio.read_bytes(self.folder / key[:2] / f"{key}.facts")
        except OSError:
            return None

    def get(self, key: str) -> FileFacts | None:
        raw = self.get_bytes(key)
        if raw is None:
            return None
        try:
            return loads(raw)
        except UNDECODABLE:
            return None  # corrupt or foreign entry: rebuilt and overwritten by this run

    def put_bytes(self, key: str, blob: bytes) -> None:
        if not self._writable:
            return
        folder = self.folder / key[:2]
        try:
            if key[:2] not in self._made:
                folder.mkdir(parents=True, exist_ok=True)
                if not self._made:
                    _ensure_gitignore(self.folder.parent)
                self._made.add(key[:2])
            write_atomic(folder / f"{key}.facts", blob)
        except OSError as exc:
            self._writable = False
            self.warning = f"cache disabled, cannot write {self.folder}: {exc.strerror or exc}"


class ResultCache:
    """Whole-scan results keyed by every file's content key: a scan of an unchanged tree."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "results"

    @staticmethod
    def key(*parts: str) -> str:
        digest = hashlib.sha256(f"{FORMAT}|{code_version()}".encode())
        for part in parts:
            digest.update(b"\0")
            digest.update(part.encode())
        return digest.hexdigest()

    def get(self, key: str) -> ScanResult | None:
        try:
            version, row = marshal.loads(fsio.read_bytes(self.folder / f"{key}.result"))
            if version != FORMAT:
                return None
            return decode(ScanResult, row)
        except (OSError, ValueError, TypeError, EOFError, IndexError):
            return None  # absent or corrupt: the scan runs and rewrites it

    def put(self, keys: list[str], result: ScanResult) -> str | None:
        """Store *result* under each key (the tree's bytes, its facts); returns a warning instead
        of raising when the folder is unwritable."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _ensure_gitignore(self.folder.parent)
            for old in self.folder.glob("*.result"):
                old.unlink(missing_ok=True)  # the latest state of the tree is enough
            blob = marshal.dumps((FORMAT, encode(result)))
            for key in keys:
                write_atomic(self.folder / f"{key}.result", blob)
        except OSError as exc:
            return f"result cache not written to {self.folder}: {exc.strerror or exc}"
        return None


def _ensure_gitignore(folder: Path) -> None:
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("# created by planeshift\n*\n", encoding="utf-8")


