"""One object that answers what is known already about a tree, and keeps what a scan learnt.

With the cache off it knows nothing and keeps nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...config import Config
from ...packs.model import Pack
from ...types import FileError, ScanResult
from ..discover import SourceFile
from ..extract.facts import FileFacts
from ..extract.pool import Extracted
from ..extract.sites import Vocabulary
from .caches import FactCache, ResultCache, prune_other_code, salt
from .snapshot import Snapshot, SnapshotStore
from .sources import Source, StatIndex, read_sources

if TYPE_CHECKING:
    from ..link.linker import Linked


def cache_folder(config: Config) -> Path:
    if config.cache_dir is not None:
        return config.cache_dir
    root = config.root if config.root.is_dir() else config.root.parent
    return root / ".planeshift_cache"


def cache_escapes(config: Config) -> str | None:
    """Why the default cache folder cannot be used: a ``.planeshift_cache`` that is a symbolic
    link out of the tree (a checked-out repository could plant one to make a scan write, and
    prune, elsewhere). A folder given with --cache-dir or ``cache-dir`` is the user's choice."""
    if config.cache_dir is not None or not config.use_cache:
        return None
    folder = cache_folder(config)
    try:
        real = folder.resolve()
    except (OSError, RuntimeError) as exc:  # a link loop
        return f"cache disabled: {folder} cannot be resolved ({exc})"
    if not real.is_relative_to(folder.parent.resolve()):
        return f"cache disabled: {folder} leads outside the tree (to {real})"
    return None


class Store:
    """The caches of one scan configuration (root and packs)."""

    def __init__(self, config: Config, packs: tuple[Pack, ...], vocab: Vocabulary) -> None:
        self.enabled = config.use_cache
        self.max_bytes = config.max_file_bytes
        self.unread: tuple[str, ...] = ()  # the files and folders not read, in the result keys
        self.folder = cache_folder(config)
        self.packs = packs
        # the packs by content: a built-in pack's path names the install, not what it says
        self.base = (config.root.as_posix(), repr(tuple(replace(p, path="") for p in packs)))
        self.vocab = vocab
        self.warnings: list[str] = []
        self._results = ResultCache(self.folder) if self.enabled else None
        self._keys: list[str] = []  # the result keys of this scan's tree: bytes, then facts
        self._snapshots = SnapshotStore(self.folder, ResultCache.key(*self.base,
                                                                     vocab.fingerprint()))
        self._last: Snapshot | None = None

    # -- what is known ------------------------------------------------------------------------
    def read(self, files: Sequence[SourceFile]) -> tuple[list[Source], list[FileError]]:
        """Every file with its content key; the stat index spares reading unchanged ones."""
        index = StatIndex(self.folder) if self.enabled else None
        sources, errors = read_sources(files, index, self.max_bytes)
        if index is not None:
            self.warn(index.warning)
            self.warn(index.save())
        return sources, errors

    def result(self, sources: Sequence[Source], unread: Sequence[FileError] = ()
               ) -> ScanResult | None:
        """The result of this very tree (every file's bytes as last scanned, and the same files
        and folders that could not be read)."""
        self.unread = tuple(sorted(f"!{e.file}:{e.message}" for e in unread))
        return self._known(*sorted(f"{s.file.rel}:{s.key}" for s in sources))

    def result_of_facts(self, sources: Sequence[Source], digests: list[str]) -> ScanResult | None:
        """The result of a tree whose facts are unchanged (an edit to comments or layout)."""
        return self._known(*sorted(f"{s.file.rel}:{d}" for s, d in zip(sources, digests)))

    def _known(self, *parts: str) -> ScanResult | None:
        self._keys.append(ResultCache.key(*self.base, *parts, *self.unread))
        if self._results is None:
            return None
        found = self._results.get(self._keys[-1])
        if found is not None and len(self._keys) > 1:
            self.warn(self._results.put(self._keys, found))  # answer the new bytes directly next time
        return found

    def facts(self, vocab: Vocabulary) -> FactCache | None:
        """Per-file facts under *vocab* (a wider vocabulary is a namespace of its own)."""
        return FactCache(self.folder, salt(vocab.fingerprint())) if self.enabled else None

    def last_link(self) -> Snapshot | None:
        """The last link of this tree under these packs, if one was kept and still decodes."""
        if self.enabled and self._last is None:
            self._last = self._snapshots.load(self.packs)
        return self._last

    def known_digests(self) -> dict[str, str]:
        """Content key -> facts digest of every file the last link knew."""
        last = self.last_link()
        return {key: digest for key, digest in last.files.values()} if last else {}

    def old_facts(self, key: str) -> FileFacts | None:
        """A file's facts as the last link knew them (by content key), to diff an edit against."""
        cache = self.facts(self.vocab)
        return cache.get(key) if cache is not None else None

    # -- keeping ------------------------------------------------------------------------------
    def keep(self, result: ScanResult, linked: Linked, extracted: Extracted, layer: str) -> None:
        """Remember this scan's result (under every key it was asked by) and its link; a relink
        extends the key table its reused units index."""
        if self._results is None:
            return
        prune_other_code(self.folder)
        last = self._last
        table = last.table if last is not None and layer == "incremental" else ()
        rows = last.rows if last is not None else None
        self.warn(self._snapshots.save(Snapshot.of(
            self._snapshots.key, linked, extracted.sources, extracted.digests(), self.vocab, table,
            rows)))
        self.warn(self._results.put(self._keys, result))

    def warn(self, warning: str | None) -> None:
        if warning:
            self.warnings.append(warning)
