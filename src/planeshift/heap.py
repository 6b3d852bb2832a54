"""The cyclic garbage collector, held back where a scan allocates millions of objects that hold
no reference cycles (syntax trees, facts, the link's tables). Reference counting frees them;
without this the collector traverses the whole heap again and again while they are made (about
a fifth of a cold scan of lionagi, the same peak memory)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside (one file's parse and walk); the collector's state after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            promote()
            gc.enable()


def promote() -> None:
    """Move every tracked object to the oldest generation (inside :func:`heap_frozen`, to the
    frozen ones) without traversing any. Left young, what a paused stretch made (every file's
    facts, say) would be traversed by the first collection after it, the whole heap of them at
    once: a fifth of a second on lionagi's facts, for no garbage. They are collected, if ever they
    become garbage, with the oldest generation."""
    frozen = gc.get_freeze_count()
    gc.freeze()
    if not frozen:
        gc.unfreeze()


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Everything alive now is left out of cyclic collections inside (the extracted facts, the
    packs, the imported modules, while the link and the checks run over them)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
