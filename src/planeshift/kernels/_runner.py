"""Per-emit bookkeeping and the sequential / concurrent stage loops under one shared
deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from ._calls import ThreadState
from ._compat import cancel, deadline_at
from ._vocab import CompletionTiming, DispatchConcurrency, OutcomeStatus, UnsetType
from .report import HandlerOutcome, Registration

__all__ = [
    "Slot",
    "Step",
    "phase_deadline",
    "run_concurrent",
    "run_sequential",
    "runner_for",
    "settle_deadline",
    "stops_stage",
]

_TRIGGERS = (OutcomeStatus.FAILED, OutcomeStatus.REJECTED)


@dataclass(slots=True, eq=False)
class Slot:
    """Mutable state of one registration during one emit; frozen into a HandlerOutcome
    at the end."""

    reg: Registration
    phase: int
    status: OutcomeStatus | None = None
    value: Any = None
    error: BaseException | None = None
    matched: bool = True
    awaitable: Any = None  # a returned awaitable waiting for the gather stage
    # its value is what the gather stage awaited (not what the invocation returned)
    gathered: bool = False
    # error is a cancellation raised out of the handler's call: its own, or (in a
    # sequential stage that catches BaseException) the emitter's or deadline's as it
    # reached the awaited handler
    handler_cancelled: bool = False
    # error must leave emit now (propagated cancellation or predicate error)
    abort: bool = False
    # a handler cancellation under CANCEL_SIBLINGS_AND_RETURN ends the stage
    stop_siblings: bool = False
    entry: Any = None  # fan_out: the owner's entry this slot runs its step for
    thread: ThreadState | None = None
    # why the kernel cancelled it: "deadline", "sibling", "emitter"
    kernel_cancel: str | None = None

    def settle(
        self,
        status: OutcomeStatus,
        value: Any = None,
        error: BaseException | None = None,
    ) -> None:
        self.status, self.value, self.error = status, value, error

    @property
    def triggers_stop(self) -> bool:
        return self.abort or self.handler_cancelled or self.status in _TRIGGERS

    def outcome(self) -> HandlerOutcome:
        return HandlerOutcome(
            name=self.reg.name,
            status=self.status or OutcomeStatus.NOT_STARTED,
            value=self.value,
            error=self.error,
            phase=self.phase,
            registration=self.reg,
            gathered=self.gathered,
        )


Step = Callable[[Slot], Coroutine[Any, Any, None]]


def phase_deadline(
    phase: Any,
    loop: asyncio.AbstractEventLoop | None = None,
) -> float | None:
    """The loop time at which *phase*'s shared deadline expires; None without one (then
    no asyncio loop is asked for: a sequential stage runs under any event loop anyio
    drives, trio's included)."""
    seconds = phase.deadline_seconds
    if isinstance(seconds, UnsetType):
        return None
    return (loop or asyncio.get_running_loop()).time() + seconds


def runner_for(phase: Any) -> Callable[..., Coroutine[Any, Any, bool]]:
    """The stage loop *phase*'s concurrency names: run_concurrent or run_sequential."""
    if phase.concurrency is DispatchConcurrency.CONCURRENT:
        return run_concurrent
    return run_sequential


def settle_deadline(slot: Slot) -> None:
    """A slot still running when the shared deadline expired."""
    thread = slot.thread
    if thread is not None and not thread.finished.is_set():
        # The worker thread cannot be stopped; nothing can be claimed about its teardown
        # or result.
        slot.settle(OutcomeStatus.ABANDONED_UNKNOWN)
    else:
        slot.settle(OutcomeStatus.TIMED_OUT)


def stops_stage(slot: Slot, completion: CompletionTiming) -> bool:
    """Does *slot*'s ending stop a sequential stage (the later slots do not start)?"""
    if slot.abort or slot.stop_siblings or slot.status is OutcomeStatus.STOPPED:
        return True
    stopping = (
        CompletionTiming.STOP_ON_FAILURE,
        CompletionTiming.CANCEL_REMAINING_ON_FAILURE,
    )
    return completion in stopping and slot.triggers_stop


async def run_sequential(
    slots: Iterable[Slot],
    step: Step,
    completion: CompletionTiming,
    deadline: float | None,
) -> bool:
    """Run slots one after another in registration order; return whether the deadline
    expired. Without a deadline nothing of asyncio's is used (anyio's trio backend)."""
    stopped = expired = False
    for slot in slots:
        due = deadline is not None and asyncio.get_running_loop().time() >= deadline
        if not (stopped or expired) and due:
            expired = True
        if stopped or expired:
            slot.settle(OutcomeStatus.NOT_STARTED)
            continue
        if deadline is None:
            await step(slot)
            stopped = stops_stage(slot, completion)
            continue
        try:
            async with deadline_at(deadline) as scope:
                await step(slot)
        except TimeoutError:
            if not scope.expired():
                raise
            expired = True
            settle_deadline(slot)
            continue
        if scope.expired() and slot.handler_cancelled:
            # A stage that catches BaseException collected the deadline's own
            # cancellation as the handler's; it is a timeout all the same, never a
            # cancellation to re-raise.
            slot.handler_cancelled = False
            expired = True
            settle_deadline(slot)
            continue
        stopped = stops_stage(slot, completion)
    return expired


async def run_concurrent(
    slots: Iterable[Slot],
    step: Step,
    completion: CompletionTiming,
    deadline: float | None,
) -> bool:
    """Run slots as sibling tasks under one shared deadline; True when it expired."""
    loop = asyncio.get_running_loop()
    tasks: dict[asyncio.Task[None], Slot] = {}
    for slot in slots:
        tasks[loop.create_task(step(slot))] = slot
    pending = set(tasks)
    expired = False
    try:
        while pending:
            timeout = None if deadline is None else max(0.0, deadline - loop.time())
            done, pending = await asyncio.wait(
                pending,
                timeout=timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not done:
                expired = True
                await _cancel(pending, tasks, "deadline")
                break
            if pending and any(stops_stage(tasks[t], completion) for t in done):
                await _cancel(pending, tasks, "sibling")
                break
    except asyncio.CancelledError:
        # The emitter itself was cancelled: children must not outlive it.
        await _cancel({t for t in tasks if not t.done()}, tasks, "emitter")
        raise
    for task, slot in tasks.items():
        _settle_task(task, slot)
    return expired


async def _cancel(
    pending: set[asyncio.Task[None]],
    tasks: dict[asyncio.Task[None], Slot],
    reason: str,
) -> None:
    for task in pending:
        tasks[task].kernel_cancel = reason
        cancel(task)
    if pending:
        await asyncio.wait(pending)


def _settle_task(task: asyncio.Task[None], slot: Slot) -> None:
    if not task.cancelled():
        error = task.exception()
        if error is not None:
            # only non-ordinary BaseExceptions get here; steps record everything else
            raise error
        if slot.status is not None or not slot.matched or slot.awaitable is not None:
            return
    if slot.kernel_cancel == "deadline":
        settle_deadline(slot)
    else:
        slot.settle(OutcomeStatus.CANCELLED)
