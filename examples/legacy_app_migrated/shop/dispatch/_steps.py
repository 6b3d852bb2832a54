# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/_steps.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""What happens to one registration inside a stage: predicate, call, classification,
returned awaitable."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any

from ._calls import (
    Offload,
    ThreadState,
    close_unawaited,
    is_returned_awaitable,
    run_in_thread,
)
from ._compat import emitter_cancelling
from ._hooks import NO_HOOKS, OwnerHooks
from ._runner import Slot
from ._vocab import (
    DispatchConcurrency,
    DispatchFailure,
    ErrorSurface,
    HandlerCancellation,
    HandlerClassification,
    OutcomeStatus,
    PredicateFailure,
    ReturnedAwaitableDisposition,
    SyncHandlerMode,
)
from .errors import ReturnedAwaitableRejectedError
from .phases import DispatchPhase, DispatchStagePolicy

__all__ = ["PhaseSteps", "emitter_cancelling", "settled", "settled_sync"]


async def settled(pending: Any) -> None:
    """Await what an owner's ``failed`` hook returned, if it is awaitable (inside the
    except)."""
    if inspect.isawaitable(pending):
        await pending


def settled_sync(pending: Any) -> None:
    if inspect.isawaitable(pending):
        close_unawaited(pending)
        raise TypeError("an owner's failed hook cannot be awaited from the sync entry")


class PhaseSteps:
    """The per-registration steps of one phase for one signal; `log` is the dispatcher's
    logger, `hooks` the owner's failure record and exceptions (an owner façade's; none
    by default)."""

    def __init__(
        self,
        phase: DispatchPhase,
        signal: Any,
        log: logging.Logger,
        hooks: OwnerHooks = NO_HOOKS,
        offload: Offload | None = None,
    ) -> None:
        self.phase = phase
        self.offload = offload
        self.signal = signal
        self.log = log
        self.hooks = hooks
        classification = phase.handler_classification
        self.by_declaration = classification is HandlerClassification.BY_DECLARATION
        # A sequential stage that catches BaseException also collects a cancellation
        # delivered to the emitter while a handler is awaited: it arrives as that
        # handler's exception, and lionagi's a_add_message collects it and runs the
        # later callbacks before re-raising it. (Concurrent children only ever see the
        # kernel's own cancellations, which must not be collected.)
        sequential = phase.concurrency is DispatchConcurrency.SEQUENTIAL
        catches = phase.invocation.catches_base_exception
        self.drains_outside_cancel = catches and sequential

    def match(self, slot: Slot) -> bool:
        predicate = slot.reg.predicate
        if predicate is None:
            return True
        try:
            matched = bool(predicate(self.signal))
        except Exception as exc:
            self._predicate_failed(slot, exc)
            return False
        slot.matched = matched
        return matched

    def _predicate_failed(self, slot: Slot, exc: Exception) -> None:
        policy = self.phase.predicate_failure
        if policy is PredicateFailure.NO_MATCH:
            slot.matched = False
            return
        if policy is PredicateFailure.ISOLATE:
            self.log.warning(
                "predicate of %r failed; registration skipped",
                slot.reg.name,
                exc_info=exc,
            )
            slot.settle(OutcomeStatus.SKIPPED, error=exc)
            return
        if policy is PredicateFailure.PROPAGATE:
            slot.settle(OutcomeStatus.FAILED, error=exc)
            slot.abort = True  # it leaves emit, so it is not an isolated failure to log
            return
        close_unawaited(self._failed(slot, exc, self.phase.invocation))

    def _failed(
        self,
        slot: Slot,
        exc: BaseException,
        stage: DispatchStagePolicy,
        status: OutcomeStatus = OutcomeStatus.FAILED,
    ) -> Any:
        """Settle a failure; returns what the owner's ``failed`` hook returned (the
        caller awaits an awaitable, inside its except clause)."""
        slot.settle(status, error=exc)
        if self.hooks.failed is not None:
            return self.hooks.failed(
                slot.entry if slot.entry is not None else slot.reg.handler,
                exc,
            )
        if stage.error_surface is ErrorSurface.LOG_ONLY:
            # Logged where it happens, not when the stage ends: a sibling's or the
            # emitter's cancellation can end the stage first, and must not swallow the
            # record of the failure.
            invocation = stage is self.phase.invocation
            label = "invocation" if invocation else "returned awaitables"
            self.log.warning(
                "%s: handler %r failed",
                label,
                slot.reg.name,
                exc_info=exc,
            )
        return None

    def _collected(
        self,
        slot: Slot,
        exc: BaseException,
        stage: DispatchStagePolicy,
    ) -> tuple[bool, Any]:
        """Collect a KeyboardInterrupt, SystemExit or the like if the stage catches
        BaseException (or isolate it, under ISOLATE_BASE_EXCEPTIONS).

        Otherwise it leaves at once (the caller re-raises); collected, finish_stage
        re-raises it after the drain. The second value is the owner hook's result, as
        for ``_failed``.
        """
        if stage.failure is DispatchFailure.ISOLATE_BASE_EXCEPTIONS:
            return True, self._failed(slot, exc, stage)
        # under TRANSLATE a BaseException that does not end the process is collected and
        # raised translated after the drain, as a handler's cancellation is
        translated = (
            stage.handler_cancellation is HandlerCancellation.TRANSLATE
            and stage.failure is DispatchFailure.COLLECT
            and not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit))
        )
        if not (stage.catches_base_exception or translated):
            return False, None
        slot.settle(OutcomeStatus.FAILED, error=exc)
        if self.hooks.failed is not None:
            return True, self.hooks.failed(
                slot.entry if slot.entry is not None else slot.reg.handler,
                exc,
            )
        return True, None

    def _cancelled(
        self,
        slot: Slot,
        exc: BaseException,
        stage: DispatchStagePolicy,
    ) -> None:
        slot.handler_cancelled = True
        slot.settle(OutcomeStatus.CANCELLED, error=exc)
        slot.abort = stage.handler_cancellation is HandlerCancellation.PROPAGATE
        siblings = HandlerCancellation.CANCEL_SIBLINGS_AND_RETURN
        slot.stop_siblings = stage.handler_cancellation is siblings

    def dispose(self, slot: Slot, value: Any) -> bool:
        """Settle a handler's returned value; True when the caller must await it now."""
        disposition = self.phase.returned_awaitable
        if disposition is ReturnedAwaitableDisposition.DISCARD_UNAWAITED:
            # Deprecated compatibility: the awaitable never runs. Detected for the
            # report only, whatever the classifier, since nothing is awaited under this
            # disposition anyway.
            if inspect.isawaitable(value):
                close_unawaited(value)
                slot.settle(OutcomeStatus.DISCARDED)
            else:
                slot.settle(OutcomeStatus.RETURNED, value)
            return False
        if not is_returned_awaitable(value, self.phase.returned_value_classifier):
            slot.settle(OutcomeStatus.RETURNED, value)
            return False
        if disposition is ReturnedAwaitableDisposition.REJECT:
            close_unawaited(value)
            kind = type(value).__name__
            rejected = ReturnedAwaitableRejectedError(
                f"handler {slot.reg.name!r} returned an awaitable ({kind}) under REJECT",
            )
            close_unawaited(
                self._failed(
                    slot,
                    rejected,
                    self.phase.invocation,
                    OutcomeStatus.REJECTED,
                ),
            )
            return False
        if disposition is ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS:
            slot.awaitable, slot.gathered = value, True
            return False
        return True

    async def invoke(self, slot: Slot) -> None:
        """Invocation stage of the async entry."""
        await self.invoking(slot, self._call_handler(slot))

    async def _call_handler(self, slot: Slot) -> None:
        reg = slot.reg
        if not self.match(slot):
            return
        if self.by_declaration and reg.declared_async:
            slot.settle(OutcomeStatus.RETURNED, await reg.handler(self.signal))
            return
        if self.by_declaration and self.phase.sync_handlers is SyncHandlerMode.OFFLOAD:
            slot.thread = ThreadState()
            value = await run_in_thread(
                reg.handler,
                slot.thread,
                self.signal,
                offload=self.offload,
            )
        else:
            value = reg.handler(self.signal)
        if self.dispose(slot, value):
            slot.settle(OutcomeStatus.RETURNED, await value)

    async def invoking(self, slot: Slot, invocation: Awaitable[None]) -> None:
        """Await one slot's *invocation*; its failure or cancellation is settled as the
        invocation stage's policy says (raised on, recorded, or collected)."""
        try:
            await invocation
        # the owner's stop signal, before any other clause (none: ())
        except self.hooks.stop as exc:
            slot.settle(OutcomeStatus.STOPPED, error=exc)
        except asyncio.CancelledError as exc:
            if emitter_cancelling(exc) and not self.drains_outside_cancel:
                raise
            self._cancelled(slot, exc, self.phase.invocation)
        except Exception as exc:
            await settled(self._failed(slot, exc, self.phase.invocation))
        except BaseException as exc:
            caught, pending = self._collected(slot, exc, self.phase.invocation)
            if not caught:
                raise
            await settled(pending)

    async def await_returned(self, slot: Slot) -> None:
        """Returned-awaitables stage: await one awaitable a handler returned during
        invocation."""
        awaitable, slot.awaitable = slot.awaitable, None
        stage = self.phase.returned_awaitables
        if not isinstance(stage, DispatchStagePolicy):
            # gather-requires-returned-awaitables-stage guarantees the stage
            raise RuntimeError("a returned awaitable to gather without a gather stage")
        try:
            slot.settle(OutcomeStatus.RETURNED, await awaitable)
        except asyncio.CancelledError as exc:
            if emitter_cancelling(exc):
                raise
            self._cancelled(slot, exc, stage)
        except Exception as exc:
            await settled(self._failed(slot, exc, stage))
        except BaseException as exc:
            caught, pending = self._collected(slot, exc, stage)
            if not caught:
                raise
            await settled(pending)

    def invoke_sync(self, slot: Slot) -> None:
        """Invocation from the sync entry: nothing can be awaited, so returned
        awaitables are disposed."""
        try:
            if self.match(slot):
                # A declared-async handler (admitted by SyncEntryPolicy.ALLOW) yields
                # its coroutine, which DISCARD_UNAWAITED or REJECT then disposes of like
                # any returned awaitable.
                self.dispose(slot, slot.reg.handler(self.signal))
        except asyncio.CancelledError as exc:
            self._cancelled(slot, exc, self.phase.invocation)
        except Exception as exc:
            settled_sync(self._failed(slot, exc, self.phase.invocation))
        except BaseException as exc:
            caught, pending = self._collected(slot, exc, self.phase.invocation)
            if not caught:
                raise
            settled_sync(pending)
