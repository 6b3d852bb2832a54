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
    if _frozen:  # known without gc.get_freeze_count(), which walks the whole frozen heap
        gc.freeze()
        return
    frozen = gc.get_freeze_count()  # a caller's own freeze is kept
    gc.freeze()
    if not frozen:
        gc.unfreeze()


_exit_follows = False
_frozen = False  # inside heap_frozen, or after it when the exit follows: the heap stays frozen


# the youngest generation's threshold in a one-shot process: the stock 700 allocations start a
# collection hundreds of times while modules, packs and cached facts are loaded, none of them
# garbage (about a twentieth of an incremental scan of lionagi); cycles are still collected
_ONE_SHOT_THRESHOLD = 100_000


def exit_follows_command() -> None:
    """This process ends when its command does (the console script, not a library caller nor a
    test's in-process run): what a :func:`heap_frozen` stretch made stays frozen after it, and
    the youngest generation is collected after 100,000 allocations instead of 700."""
    global _exit_follows
    _exit_follows = True
    gc.set_threshold(_ONE_SHOT_THRESHOLD, *gc.get_threshold()[1:])


@contextmanager
def heap_frozen() -> Iterator[None]:
    """Everything alive now is left out of cyclic collections inside (the extracted facts, the
    packs, the imported modules, while the link and the checks run over them).

    After it, the heap is unfrozen again, and the first collection of the oldest generation
    frees what the stretch left in reference cycles (the link's index and its tables hold each
    other, and with them every file's facts: a third of a second on lionagi's). In a process
    the command's end also ends (:func:`exit_follows_command`) that collection would only free
    memory the exit frees anyway, so everything is frozen instead: the rest of the command
    (rendering the report, a migration's rewrites) collects only what it makes itself.
    """
    global _frozen
    was, _frozen = _frozen, True
    gc.freeze()
    try:
        yield
    finally:
        _frozen = was or _exit_follows
        if _frozen:
            gc.freeze()
        else:
            gc.unfreeze()
