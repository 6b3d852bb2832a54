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
            gc.enable()


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Everything alive now is left out of cyclic collections inside (the extracted facts, the
    packs, the imported modules, while the link and the checks run over them)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
