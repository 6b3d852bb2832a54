"""Results memoised with what computing them read, so a reuse records the same reads.

Every unit of linking records the index entries its lookups touched (``index.Deps``), which is
what lets an incremental link tell which units an edit reaches. A memoised result must carry
its reads along: a unit that reuses it read those entries too, just earlier.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from .index import Deps

T = TypeVar("T")
_NOTHING = object()


class Memo(Generic[T]):
    """key -> (result, reads). ``placeholder`` is answered while a key is being computed (a
    cycle guard); ``keep`` decides after computing whether the result may be memoised."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.table: dict[Hashable, tuple[T, frozenset]] = {}

    def __contains__(self, key: Hashable) -> bool:
        return key in self.table

    def reuse(self, key: Hashable) -> T:
        """A memoised result; its reads count for the frame reusing it."""
        result, read = self.table[key]
        self.deps.add(read)
        return result

    def get(self, key: Hashable, compute: Callable[[], T], placeholder: object = _NOTHING,
            keep: Callable[[], bool] | None = None) -> T:
        if key in self.table:
            return self.reuse(key)
        if placeholder is not _NOTHING:
            self.table[key] = (placeholder, frozenset())  # type: ignore[assignment]
        self.deps.push()
        try:
            result = compute()
        except BaseException:
            self.table.pop(key, None)
            raise
        finally:
            read = self.deps.pop()
        if keep is None or keep():
            self.table[key] = (result, read)
        else:
            self.table.pop(key, None)
        return result
