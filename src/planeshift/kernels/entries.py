"""fan_out: the kernel's loop over an owner's own entries, behind an existing façade
(ADR-0120 Phase 1).

A façade such as lionagi's TerminalCallbackRegistry keeps what is its own (its
registration records, entity filters and overrides, counters, the exceptions it raises)
and hands the kernel the entries it selected for one emission, with the *step* it runs
for each one. The kernel owns the mechanics the policy names: the order, sequential or
concurrent execution, what a failure does to the other entries, the error surface, the
shared deadline, cancellation, and how each handler is called (``call``: classification
by declaration or by returned value, thread offload, returned-awaitable disposition).

    report = await fan_out(policy, entries, lambda entry, call: call(entry.handler, signal))

``step(entry, call)`` returns an awaitable; whatever it raises is that entry's handler
failure, whatever it returns is the entry's value in the report (registration order: the
order of *entries*, also for concurrent execution). ``call(handler, *args, **kwargs)``
calls one handler as the policy's phase says and returns its value. The policy has one
``selector="all"`` phase.

*entries* that are a collection (a list, a tuple) are taken when the fan-out starts; an
iterator (a generator) is consumed as a sequential stage runs, one entry before each step,
as a ``for`` loop over it would: an entry computed from what an earlier handler did sees it,
and one that raises while it is computed leaves the fan-out there.

Under GATHER_AFTER_INVOCATIONS (SessionObserver's composite profile) ``call`` hands back
the awaitable a handler returned, as the handler returned it, and keeps it; once every
entry was invoked, the kept awaitables are awaited together, by the owner's own ``gather``
when it hands one, else by the kernel's gather stage under the phase's
``returned_awaitables`` policy. The report's ``invocation_values`` and ``gathered_values``
are the two lists such a loop returns. If the invocation stage raises, the awaitables kept
so far are left as the handlers returned them, never awaited, as the loop left them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from ._calls import (
    Offload,
    ThreadState,
    close_unawaited,
    handler_name,
    is_declared_async,
    is_returned_awaitable,
    run_in_thread,
)
from ._hooks import OwnerHooks
from ._runner import Slot, phase_deadline, runner_for, stops_stage
from ._steps import PhaseSteps
from ._surface import finish_stage, gather_stage
from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    DispatchConcurrency,
    OutcomeStatus,
    ReturnedAwaitableDisposition,
    SyncHandlerMode,
    UnsetType,
)
from .errors import DeadlineExceededError, PolicyError, ReturnedAwaitableRejectedError
from .policy import DispatchPolicy
from .report import DispatchReport, Registration

__all__ = ["Call", "Step", "fan_out"]

_logger = logging.getLogger(__name__)
_GATHER = ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS
# a slot whose stage ended before or while it ran: the later entries are not taken
_ENDED = (
    OutcomeStatus.NOT_STARTED,
    OutcomeStatus.TIMED_OUT,
    OutcomeStatus.ABANDONED_UNKNOWN,
)

Call = Callable[..., Awaitable[Any]]
Step = Callable[[Any, Call], Awaitable[Any]]


def entry_slots(
    entries: Iterable[Any],
    step: Any,
    name: Callable[[Any], str | None] | None,
) -> list[Slot]:
    """One slot an entry, in order, each run by the owner's *step* and named by *name* (else
    the handler's qualified name for a callable entry, else its place)."""
    return list(_slots_of(entries, step, name))


def _slots_of(
    entries: Iterable[Any],
    step: Any,
    name: Callable[[Any], str | None] | None,
) -> Iterator[Slot]:
    token = object()
    for index, entry in enumerate(entries):
        label = name(entry) if name is not None else None
        if label is None:
            label = handler_name(entry) if callable(entry) else f"entry[{index}]"
        reg = Registration(
            name=label,
            handler=cast(Any, step),
            predicate=None,
            declared_async=False,
            seq=index,
            owner=token,
        )
        yield Slot(reg=reg, phase=0, entry=entry)


def _taken(
    entries: Iterable[Any],
    slots: list[Slot],
    make: Callable[[Iterable[Any]], Iterator[Slot]],
    completion: CompletionTiming,
) -> Iterable[Slot]:
    """The slots the stage runs, each appended to *slots* as it is made: a sequential stage
    over an iterator takes its next entry only when the one before it is done, and none
    after the stage stopped (a failure, a stop signal, the deadline)."""
    if iter(entries) is not entries:  # a collection: taken now
        slots.extend(make(entries))
        return slots
    return _lazily(make(entries), slots, completion)


def _lazily(
    made: Iterator[Slot],
    slots: list[Slot],
    completion: CompletionTiming,
) -> Iterator[Slot]:
    for slot in made:
        slots.append(slot)
        yield slot
        if stops_stage(slot, completion) or slot.status in _ENDED:
            return


def _check(policy: DispatchPolicy) -> None:
    if not isinstance(policy, DispatchPolicy):
        raise TypeError(f"policy must be a DispatchPolicy, got {type(policy).__name__}")
    bad = []
    if len(policy.phases) != 1 or policy.phases[0].selector != "all":
        bad.append(("fan-out-single-phase", "fan_out runs one selector='all' phase"))
    elif policy.phases[0].invocation.completion is CompletionTiming.DETACH_BOUNDED:
        bad.append(
            (
                "fan-out-no-detach",
                "fan_out cannot DETACH_BOUNDED: use FanoutDispatcher",
            ),
        )
    if bad:
        raise PolicyError(bad)


def _stop_signals(
    policy: DispatchPolicy, stop: type[BaseException] | tuple[type[BaseException], ...]
) -> tuple[type[BaseException], ...]:
    stops = stop if isinstance(stop, tuple) else (stop,)
    for kind in stops:
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise TypeError(f"stop must be exception classes, got {kind!r}")
        if issubclass(kind, asyncio.CancelledError):
            raise TypeError(
                f"stop cannot be a cancellation ({kind.__name__}): a cancellation is "
                "the handler cancellation axis's, never a stop signal"
            )
    if stops and policy.phases[0].concurrency is not DispatchConcurrency.SEQUENTIAL:
        raise PolicyError(
            [
                (
                    "fan-out-stop-requires-sequential",
                    "a stop signal stops the entries after it: a sequential policy only",
                )
            ]
        )
    return stops


class _EntrySteps(PhaseSteps):
    """PhaseSteps whose invocation runs the owner's step for the slot's entry."""

    def __init__(
        self,
        policy: DispatchPolicy,
        step: Step,
        log: logging.Logger,
        hooks: OwnerHooks,
        offload: Offload | None,
    ) -> None:
        super().__init__(policy.phases[0], None, log, hooks, offload)
        self.step = step

    def call_for(self, slot: Slot) -> Call:
        phase = self.phase

        async def call(handler: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            if self.by_declaration and is_declared_async(handler):
                # As FanoutDispatcher: a declared coroutine function's own result is not
                # inspected.
                return await handler(*args, **kwargs)
            if self.by_declaration and phase.sync_handlers is SyncHandlerMode.OFFLOAD:
                slot.thread = ThreadState()
                value = await run_in_thread(
                    handler,
                    slot.thread,
                    *args,
                    offload=self.offload,
                    **kwargs,
                )
            else:
                value = handler(*args, **kwargs)
            return await self.returned(slot, value)

        return call

    async def returned(self, slot: Slot, value: Any) -> Any:
        """The returned-awaitable disposition of one handler's returned value."""
        disposition = self.phase.returned_awaitable
        if disposition is ReturnedAwaitableDisposition.DISCARD_UNAWAITED:
            # Never run; handed back to the owner's step as the call returned it,
            # neither closed nor awaited, exactly as the loop it replaces left it (a
            # characterization pins it).
            return value
        if not is_returned_awaitable(value, self.phase.returned_value_classifier):
            return value
        if disposition is ReturnedAwaitableDisposition.REJECT:
            close_unawaited(value)
            kind = type(value).__name__
            raise ReturnedAwaitableRejectedError(
                f"handler {slot.reg.name!r} returned an awaitable ({kind}) under REJECT",
            )
        if disposition is _GATHER:  # kept for the gather stage, handed back as it is
            if slot.awaitable is not None:
                raise TypeError("a step calls one handler when it gathers")
            slot.awaitable, slot.gathered = value, True
            return value
        return await value

    async def invoke(self, slot: Slot) -> None:
        # the step's failure is the entry's, settled as the policy says
        await self.invoking(slot, self._run_step(slot))

    async def _run_step(self, slot: Slot) -> None:
        slot.settle(
            OutcomeStatus.RETURNED,
            await self.step(slot.entry, self.call_for(slot)),
        )


async def fan_out(
    policy: DispatchPolicy,
    entries: Iterable[Any],
    step: Step,
    *,
    logger: logging.Logger | None = None,
    failed: Callable[[Any, BaseException], Any] | None = None,
    group: Callable[[list[BaseException]], BaseException] | None = None,
    translated: Callable[[BaseException], BaseException] | None = None,
    name: Callable[[Any], str | None] | None = None,
    offload: Offload | None = None,
    stop: type[BaseException] | tuple[type[BaseException], ...] = (),
    gather: Callable[..., Awaitable[Sequence[Any]]] | None = None,
) -> DispatchReport:
    """Run *step* for each of *entries* (a collection taken now, an iterator as the
    stage runs) under *policy*; see the module.

    *failed*, *group* and *translated* are the owner's (``OwnerHooks``); *logger*
    receives the records the kernel writes itself; *name* names an entry in the report
    (default: the handler's qualified name for a callable entry, else ``entry[i]``);
    *offload* is the owner's way to run a sync handler in a worker thread (``Offload``;
    default: a daemon thread per call). *stop* is the owner's stop signal, an exception
    class or a tuple of them (a loop's ``except StopHook: break``): an entry raising one
    is STOPPED and the rest do not start, with nothing logged, recorded or raised; a
    sequential policy only (``fan-out-stop-requires-sequential``). *gather* is the owner's
    way to await the awaitables a GATHER_AFTER_INVOCATIONS policy keeps
    (``gather(*awaitables)`` returns their results in order, or raises as the owner's own
    gather does); default: the kernel's gather stage.
    """
    _check(policy)
    stops = _stop_signals(policy, stop)
    if logger is not None and not isinstance(logger, logging.Logger):
        raise TypeError(f"logger must be a logging.Logger, got {type(logger).__name__}")
    phase = policy.phases[0]
    if gather is not None:
        _check_gather(phase)
    hooks = OwnerHooks(
        failed=failed,
        group=group,
        translated=translated,
        stop=stops,
    )
    steps = _EntrySteps(
        policy,
        step,
        logger if logger is not None else _logger,
        hooks,
        offload,
    )
    deadline = phase_deadline(phase)
    run = runner_for(phase)
    completion = phase.invocation.completion
    slots: list[Slot] = []
    sequential = phase.concurrency is DispatchConcurrency.SEQUENTIAL
    source = _taken(
        entries if sequential else list(entries),
        slots,
        lambda items: _slots_of(items, step, name),
        completion,
    )
    expired = await run(source, steps.invoke, completion, deadline)
    # raising here leaves the awaitables kept so far unawaited, as the loop left them
    finish_stage(
        slots,
        phase.invocation,
        gather_stage=False,
        label="invocation",
        hooks=hooks,
    )
    pending = [s for s in slots if s.awaitable is not None]
    if pending and expired:
        for slot in pending:
            slot.awaitable = None
            slot.settle(OutcomeStatus.NOT_STARTED)
    elif pending:
        expired = await _gather_stage(phase, steps, pending, deadline, gather, hooks)
    report = DispatchReport(
        outcomes=tuple(s.outcome() for s in slots),
        deadline_expired=expired,
    )
    if expired:
        message = f"dispatch deadline of {phase.deadline_seconds}s expired"
        if phase.deadline_disposition is DeadlineDisposition.RAISE:
            raise DeadlineExceededError(message, report)
        if phase.deadline_disposition is DeadlineDisposition.LOG_AND_STOP:
            steps.log.warning("%s; unfinished handlers were stopped", message)
    return report


def _check_gather(phase: Any) -> None:
    """The owner's *gather* replaces the gather stage of a GATHER_AFTER_INVOCATIONS policy
    that has no deadline (the owner's gather runs outside the kernel's deadline)."""
    if phase.returned_awaitable is not _GATHER:
        raise TypeError("gather is for a GATHER_AFTER_INVOCATIONS policy")
    if not isinstance(phase.deadline_seconds, UnsetType):
        raise TypeError("the owner's gather runs under no deadline")


async def _gather_stage(
    phase: Any,
    steps: _EntrySteps,
    pending: list[Slot],
    deadline: float | None,
    gather: Callable[..., Awaitable[Sequence[Any]]] | None,
    hooks: OwnerHooks,
) -> bool:
    """Await the awaitables the handlers returned, together: by the owner's *gather*, whose
    results are the entries' values, else under the phase's returned-awaitables stage.
    True when the shared deadline expired."""
    if gather is not None:
        results = list(await gather(*(s.awaitable for s in pending)))
        if len(results) != len(pending):
            counts = f"{len(results)} results for {len(pending)}"
            raise TypeError(f"the owner's gather returned {counts} awaitables")
        for slot, value in zip(pending, results, strict=True):
            slot.awaitable = None
            slot.settle(OutcomeStatus.RETURNED, value)
        return False
    stage = phase.returned_awaitables
    return await gather_stage(pending, stage, steps.await_returned, deadline, hooks)
