"""Exceptions the kernels raise on their own account (never a handler's own error)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .report import DispatchReport

__all__ = [
    "DeadlineExceededError",
    "HandlerCancelled",
    "PolicyError",
    "ReturnedAwaitableRejectedError",
    "SnapshotError",
    "SyncEntryError",
]


class PolicyError(ValueError):
    """A dispatch policy or interceptor plan that the ADR's combination rules refuse.

    `rules` holds the stable ids of every violated rule; the message starts each with
    `[id]`.
    """

    def __init__(self, violations: list[tuple[str, str]]) -> None:
        self.rules: tuple[str, ...] = tuple(rule for rule, _ in violations)
        super().__init__("; ".join(f"[{rule}] {text}" for rule, text in violations))


class SyncEntryError(RuntimeError):
    """The sync entry is unavailable, or preflight refused a registration before any
    owner effect."""


class SnapshotError(RuntimeError):
    """A snapshot from another dispatcher, or from an older registration revision."""


class DeadlineExceededError(TimeoutError):
    """The shared deadline expired under DeadlineDisposition.RAISE; `report` says who
    finished."""

    def __init__(self, message: str, report: DispatchReport) -> None:
        super().__init__(message)
        self.report = report


class HandlerCancelled(asyncio.CancelledError):
    """A cancellation raised by a handler, translated so it is distinct from emitter
    cancellation.

    It stays a CancelledError on purpose: a translated cancellation is never an ordinary
    error.
    """


class ReturnedAwaitableRejectedError(TypeError):
    """A handler returned an awaitable under ReturnedAwaitableDisposition.REJECT."""
