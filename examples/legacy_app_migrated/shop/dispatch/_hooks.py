# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/_hooks.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""What an owner façade keeps of its own around the kernel's loop: its failure record
and the exceptions it raises (ADR-0120 Phase 1, "kernels behind existing façades")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._compat import BaseExceptionGroup

__all__ = ["NO_HOOKS", "OwnerHooks"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnerHooks:
    """The owner's side of a failure: each hook is optional and defaults to the kernel's
    own.

    - ``failed(entry, error)`` runs inside the kernel's ``except`` clause for every
      handler failure a stage catches (so ``logging``'s ``exc_info=True`` sees it),
      before the stage disposes of it as its policy says; under LOG_ONLY it *is* the
      record (the kernel writes none of its own). An awaitable it returns is awaited
      there (async entry only). ``entry`` is what the owner handed the kernel: a
      handler, or its own registration record.
    - ``group(errors)`` builds the exception group a raising surface raises
      (RAISE_GROUP, UNWRAP_SINGLE_ELSE_GROUP with several errors, the cause of a
      TRANSLATE): the owner's own class and message.
    - ``translated(cancellation)`` builds what TRANSLATE raises for a handler's
      cancellation (the first one, in registration order): the owner's own
      CancelledError subclass.
    - ``stop`` are the owner's stop signals (a loop's ``except StopHook: break``): an
      entry that raises one of them ends a sequential stage quietly, before any other
      clause sees it: the entry is STOPPED, the later ones do not start, nothing is
      logged, recorded or raised.
    """

    failed: Callable[[Any, BaseException], Any] | None = None
    group: Callable[[list[BaseException]], BaseException] | None = None
    translated: Callable[[BaseException], BaseException] | None = None
    stop: tuple[type[BaseException], ...] = ()

    def make_group(
        self,
        message: str,
        errors: Sequence[BaseException],
    ) -> BaseException:
        if self.group is not None:
            return self.group(list(errors))
        return BaseExceptionGroup(message, list(errors))


NO_HOOKS = OwnerHooks()
