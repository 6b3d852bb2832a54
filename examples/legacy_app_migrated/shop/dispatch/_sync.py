# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/_sync.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""The sync entry of a FanoutDispatcher: a snapshot taken before the owner's
mutation, then an emission that awaits nothing."""

from __future__ import annotations

import logging
import threading
from typing import Any

from ._runner import Slot
from ._signal import check_signal
from ._steps import PhaseSteps
from ._surface import finish_stage
from ._vocab import CompletionTiming, OutcomeStatus, SyncEntryPolicy
from .errors import SnapshotError, SyncEntryError
from .phases import DispatchPhase
from .policy import DispatchPolicy
from .report import DispatchReport, DispatchSnapshot, Registration

__all__ = ["EmitState", "SyncEntry", "emit_report", "selects"]


class EmitState:
    """The slots of one emit across all its phases, and whether any phase's deadline
    expired."""

    __slots__ = ("expired", "slots")

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self.expired = False


def selects(phase: DispatchPhase, reg: Registration) -> bool:
    if phase.selector == "all":
        return True
    return reg.declared_async == (phase.selector == "declared_async")


def emit_report(state: EmitState) -> DispatchReport:
    """The report of one emit: every matched slot, always in registration order."""
    # Always registration order, whatever preserve_registration_order says: the ADR
    # makes even concurrent execution report "in deterministic registration order".
    matched = [s for s in state.slots if s.matched or s.status is not None]
    matched.sort(key=lambda s: s.reg.seq)
    return DispatchReport(
        outcomes=tuple(s.outcome() for s in matched),
        deadline_expired=state.expired,
    )


class SyncEntry:
    """FanoutDispatcher's sync entry (``preflight_sync``, ``emit_sync``)."""

    policy: DispatchPolicy
    signal_type: Any
    logger: logging.Logger
    offload: Any
    _lock: threading.Lock
    _registrations: list[Registration]
    _revision: int
    _token: object

    def preflight_sync(self) -> DispatchSnapshot:
        """Take the registration snapshot a synchronous owner needs, before its domain
        mutation."""
        if not self.policy.has_sync_entry:
            raise SyncEntryError(
                "this dispatch policy has no sync entry (sync_entry=UNAVAILABLE); use emit()",
            )
        with self._lock:
            regs, revision = tuple(self._registrations), self._revision
        for phase in self.policy.phases:
            rejects = SyncEntryPolicy.REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT
            if phase.sync_entry is not rejects:
                continue
            for reg in regs:
                if selects(phase, reg) and reg.declared_async:
                    refused = f"declared-async handler {reg.name!r}"
                    raise SyncEntryError(
                        f"{refused} cannot run from the sync entry; use the async entry",
                    )
        return DispatchSnapshot(
            owner=self._token,
            revision=revision,
            registrations=regs,
        )

    def emit_sync(
        self,
        signal: Any,
        *,
        snapshot: DispatchSnapshot,
    ) -> DispatchReport:
        if not self.policy.has_sync_entry:
            raise SyncEntryError(
                "this dispatch policy has no sync entry (sync_entry=UNAVAILABLE); use emit()",
            )
        ours = isinstance(snapshot, DispatchSnapshot) and snapshot.owner is self._token
        if not ours:
            raise SnapshotError("the snapshot was taken from another dispatcher")
        if snapshot.revision != self._revision:
            raise SnapshotError(
                f"the snapshot is from registration revision {snapshot.revision},"
                f" now {self._revision}; preflight again",
            )
        check_signal(self.signal_type, signal)
        state = EmitState()
        for index, phase in enumerate(self.policy.phases):
            steps = PhaseSteps(phase, signal, self.logger, offload=self.offload)
            selected = [r for r in snapshot.registrations if selects(phase, r)]
            phase_slots = [Slot(reg=r, phase=index) for r in selected]
            state.slots.extend(phase_slots)
            stopped = False
            # sync-entry-requires-sequential-inline guarantees this shape
            for slot in phase_slots:
                if stopped:
                    slot.settle(OutcomeStatus.NOT_STARTED)
                    continue
                steps.invoke_sync(slot)
                awaits_all = phase.invocation.completion is CompletionTiming.AWAIT_ALL
                stopped = slot.abort or (not awaits_all and slot.triggers_stop)
            finish_stage(
                phase_slots,
                phase.invocation,
                gather_stage=False,
                label="invocation",
            )
        return emit_report(state)
