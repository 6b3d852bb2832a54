# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/report.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""Registrations, sync-entry snapshots and the per-emit report of a fan-out
dispatcher."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._vocab import OutcomeStatus

__all__ = ["DispatchReport", "DispatchSnapshot", "HandlerOutcome", "Registration"]

Handler = Callable[[Any], Any]
Predicate = Callable[[Any], Any]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Registration:
    """One subscription; identity-compared, so two subscriptions of one handler stay
    distinct."""

    name: str
    handler: Handler
    predicate: Predicate | None
    declared_async: bool
    seq: int
    owner: object


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DispatchSnapshot:
    """The immutable registration set a synchronous owner saw in preflight_sync()."""

    owner: object
    revision: int
    registrations: tuple[Registration, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandlerOutcome:
    """What became of one matched registration: status, returned value and/or error."""

    name: str
    status: OutcomeStatus
    value: Any = None
    error: BaseException | None = None
    phase: int = 0
    registration: Registration | None = None
    # the handler returned an awaitable the gather stage awaited (GATHER_AFTER_INVOCATIONS):
    # value / error are the awaitable's
    gathered: bool = False

    @property
    def ok(self) -> bool:
        return self.status in (
            OutcomeStatus.RETURNED,
            OutcomeStatus.DISCARDED,
            OutcomeStatus.DETACHED,
            OutcomeStatus.STOPPED,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchReport:
    """Every matched registration's outcome, always in registration order (also for
    concurrent phases)."""

    outcomes: tuple[HandlerOutcome, ...] = ()
    deadline_expired: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outcomes)

    @property
    def values(self) -> tuple[Any, ...]:
        returned = [o for o in self.outcomes if o.status is OutcomeStatus.RETURNED]
        return tuple(o.value for o in returned)

    @property
    def invocation_values(self) -> tuple[Any, ...]:
        """What the handlers returned when invoked, in order, leaving out the awaitables a
        gather stage awaited: a legacy loop's ``sync_results``."""
        returned = OutcomeStatus.RETURNED
        invoked = [o for o in self.outcomes if not o.gathered]
        return tuple(o.value for o in invoked if o.status is returned)

    @property
    def gathered_values(self) -> tuple[Any, ...]:
        """What each awaitable a gather stage awaited gave, in order: its result, or the
        cancellation or error it ended with where that did not leave the emit (a legacy
        ``gather``'s result list, which holds a cancelled awaitable's cancellation)."""
        gathered = [o for o in self.outcomes if o.gathered]
        returned = OutcomeStatus.RETURNED
        return tuple(o.value if o.status is returned else o.error for o in gathered)

    @property
    def failures(self) -> tuple[HandlerOutcome, ...]:
        bad = (OutcomeStatus.FAILED, OutcomeStatus.REJECTED)
        return tuple(o for o in self.outcomes if o.status in bad)

    @property
    def cancellations(self) -> tuple[HandlerOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is OutcomeStatus.CANCELLED)

    def by_status(self, status: OutcomeStatus) -> tuple[HandlerOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is status)

    def status_of(self, name: str) -> OutcomeStatus:
        for outcome in self.outcomes:
            if outcome.name == name:
                return outcome.status
        raise KeyError(name)
