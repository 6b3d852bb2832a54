# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/fanout.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""FanoutDispatcher: Signal fan-out to subscribers under an explicit, validated
DispatchPolicy."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from ._calls import Offload, close_unawaited, handler_name
from ._runner import Slot, phase_deadline, runner_for
from ._signal import check_signal, check_signal_type
from ._steps import PhaseSteps
from ._surface import finish_stage, gather_stage
from ._sync import EmitState, SyncEntry, emit_report, selects
from ._table import HandlerTable
from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    OutcomeStatus,
    UnsetType,
)
from .errors import DeadlineExceededError
from .phases import DispatchPhase
from .policy import DispatchPolicy
from .report import DispatchReport, Registration

__all__ = ["FanoutDispatcher"]

_logger = logging.getLogger(__name__)
SignalT = TypeVar("SignalT")


def _shadow(slot: Slot) -> Slot:
    """A copy of *slot* for a detached gather, carrying its returned awaitable."""
    return Slot(reg=slot.reg, phase=slot.phase, awaitable=slot.awaitable)


class FanoutDispatcher(HandlerTable, SyncEntry, Generic[SignalT]):
    """Deliver one immutable signal to every matching subscriber as the policy declares.

    `signal_type`, when given, is validated before dispatch and a mismatch raises
    ValueError (the Broadcaster profile's pre-dispatch event-type check, so that profile
    is refused without one). `logger` receives every log record the dispatcher writes
    (isolated failures, deadlines, abandoned awaitables); a migrated owner passes its
    own so its log routing is unchanged. `offload`, when given, runs offloaded sync
    handlers (the owner's worker threads, e.g. anyio's; see `Offload`).
    """

    def __init__(
        self,
        policy: DispatchPolicy,
        *,
        signal_type: type | tuple[type, ...] | None = None,
        logger: logging.Logger | None = None,
        offload: Offload | None = None,
    ) -> None:
        if not isinstance(policy, DispatchPolicy):
            raise TypeError(
                f"policy must be a DispatchPolicy, got {type(policy).__name__}",
            )
        if logger is not None and not isinstance(logger, logging.Logger):
            raise TypeError(
                f"logger must be a logging.Logger, got {type(logger).__name__}",
            )
        check_signal_type(policy, signal_type)
        self.policy = policy
        self.signal_type = signal_type
        self.logger = logger if logger is not None else _logger
        self.offload = offload
        self._registrations: list[Registration] = []
        self._revision = 0
        self._seq = 0
        # registration may come from other threads (Broadcaster does)
        self._lock = threading.Lock()
        # identifies this dispatcher inside snapshots and registrations
        self._token = object()
        self._detached: set[asyncio.Task[None]] = set()

    # -- registration ------------------------------------------------------------------

    @property
    def revision(self) -> int:
        return self._revision

    @property
    def registrations(self) -> tuple[Registration, ...]:
        return tuple(self._registrations)

    def subscribe(
        self,
        handler: Callable[[SignalT], Any],
        *,
        name: str | None = None,
        predicate: Callable[[SignalT], Any] | None = None,
    ) -> Registration:
        if not callable(handler):
            raise TypeError(f"handler must be callable, got {handler!r}")
        if predicate is not None and not callable(predicate):
            raise TypeError(f"predicate must be callable, got {predicate!r}")
        return self._register(
            handler,
            name if name is not None else handler_name(handler),
            predicate,
        )

    def unsubscribe(self, registration: Registration) -> bool:
        """Remove one registration; False when it is not (or no longer) registered."""
        with self._lock:
            for index, reg in enumerate(self._registrations):
                if reg is registration:
                    del self._registrations[index]
                    self._revision += 1
                    return True
        return False

    # -- async entry -------------------------------------------------------------------

    async def emit(self, signal: SignalT) -> DispatchReport:
        check_signal(self.signal_type, signal)
        # a registration made during this emit waits for the next one
        regs = self.registrations
        state = EmitState()
        for index, phase in enumerate(self.policy.phases):
            phase_slots = [Slot(reg=r, phase=index) for r in regs if selects(phase, r)]
            state.slots.extend(phase_slots)
            await self._run_phase(phase, phase_slots, signal, state)
        return emit_report(state)

    async def wait_detached(self) -> None:
        """Wait for every DETACH_BOUNDED phase still running (each is bounded by its
        deadline)."""
        while self._detached:
            await asyncio.wait(set(self._detached))

    async def _run_phase(
        self,
        phase: DispatchPhase,
        slots: list[Slot],
        signal: Any,
        state: EmitState,
    ) -> None:
        loop = asyncio.get_running_loop()
        deadline = phase_deadline(phase, loop)
        if phase.invocation.completion is CompletionTiming.DETACH_BOUNDED:
            # The background run works on its own slots; this emit reports the phase as
            # detached.
            shadow = [Slot(reg=s.reg, phase=s.phase) for s in slots]
            for slot in slots:
                slot.settle(OutcomeStatus.DETACHED)
            self._detach(self._phase_body(phase, shadow, signal, EmitState(), deadline))
            return
        await self._phase_body(phase, slots, signal, state, deadline)

    async def _phase_body(
        self,
        phase: DispatchPhase,
        slots: list[Slot],
        signal: Any,
        state: EmitState,
        deadline: float | None,
    ) -> None:
        steps = PhaseSteps(phase, signal, self.logger, offload=self.offload)
        run = runner_for(phase)
        expired = await run(slots, steps.invoke, phase.invocation.completion, deadline)
        pending = [s for s in slots if s.awaitable is not None]
        try:
            finish_stage(
                slots,
                phase.invocation,
                gather_stage=False,
                label="invocation",
            )
        except BaseException:
            self._abandon(
                pending,
                OutcomeStatus.DISCARDED,
                "the invocation stage failed",
            )
            raise
        second = phase.returned_awaitables
        if pending and expired:
            # the deadline disposition speaks
            self._abandon(pending, OutcomeStatus.NOT_STARTED, None)
        elif pending and not isinstance(second, UnsetType):
            if second.completion is CompletionTiming.DETACH_BOUNDED:
                shadow = [_shadow(s) for s in pending]
                for slot in pending:
                    slot.awaitable = None
                    slot.settle(OutcomeStatus.DETACHED)
                self._detach(self._gather_detached(phase, steps, shadow, deadline))
                return
            awaited = steps.await_returned
            expired = await gather_stage(pending, second, awaited, deadline)
        if expired:
            self._deadline_expired(phase, state)

    async def _gather_detached(
        self,
        phase: DispatchPhase,
        steps: PhaseSteps,
        shadow: list[Slot],
        deadline: float | None,
    ) -> None:
        stage = phase.returned_awaitables
        if isinstance(
            stage,
            UnsetType,
        ):  # the caller only detaches an existing second stage
            raise RuntimeError("detached gather without a returned-awaitables stage")
        expired = await gather_stage(shadow, stage, steps.await_returned, deadline)
        if expired:
            self._deadline_expired(phase, EmitState())

    def _detach(self, body: Any) -> None:
        task = asyncio.get_running_loop().create_task(body)
        self._detached.add(
            task,
        )  # a strong reference, or the loop may drop the task mid-flight
        task.add_done_callback(self._detached_done)

    def _detached_done(self, task: asyncio.Task[None]) -> None:
        self._detached.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.logger.error(
                "detached dispatch phase failed",
                exc_info=task.exception(),
            )

    def _abandon(
        self,
        pending: Sequence[Slot],
        status: OutcomeStatus,
        why: str | None,
    ) -> None:
        # SessionObserver compatibility: awaitables returned before a failure are never
        # awaited; the warning is the diagnostic the ADR asks the facade to emit until
        # migration removes it.
        for slot in pending:
            close_unawaited(slot.awaitable)
            slot.awaitable = None
            slot.settle(status)
        if pending and why is not None:
            self.logger.warning(
                "%d returned awaitable(s) abandoned unawaited because %s",
                len(pending),
                why,
            )

    def _deadline_expired(self, phase: DispatchPhase, state: EmitState) -> None:
        state.expired = True
        disposition = phase.deadline_disposition
        message = f"dispatch deadline of {phase.deadline_seconds}s expired"
        if disposition is DeadlineDisposition.RAISE:
            raise DeadlineExceededError(message, emit_report(state))
        if disposition is DeadlineDisposition.LOG_AND_STOP:
            self.logger.warning("%s; unfinished handlers were stopped", message)
        # SILENT_STOP (no timeout log, as TerminalCallback) and RETURN_REPORT: the
        # report carries it.
