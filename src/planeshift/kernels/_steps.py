"""What happens to one registration inside a stage: predicate, call, classification, returned awaitable."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from ._calls import ThreadState, close_unawaited, is_returned_awaitable, run_in_thread
from ._runner import Slot
from ._vocab import (
    HandlerCancellation,
    HandlerClassification,
    OutcomeStatus as S,
    PredicateFailure as PF,
    ReturnedAwaitableDisposition as RAD,
    SyncHandlerMode,
)
from .errors import ReturnedAwaitableRejected
from .policy import DispatchPhase, DispatchStagePolicy

__all__ = ["PhaseSteps"]

logger = logging.getLogger(__name__)


def _emitter_cancelling() -> bool:
    # A cancel *requested* on the running task comes from outside (emitter, deadline, sibling
    # policy); a CancelledError raised while none is pending was raised by the handler itself.
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class PhaseSteps:
    """The per-registration steps of one phase for one signal."""

    def __init__(self, phase: DispatchPhase, signal: Any) -> None:
        self.phase = phase
        self.signal = signal
        self.by_declaration = phase.handler_classification is HandlerClassification.BY_DECLARATION

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
        if policy is PF.NO_MATCH:
            slot.matched = False
            return
        if policy is PF.ISOLATE:
            logger.warning("predicate of %r failed; registration skipped", slot.reg.name, exc_info=exc)
            slot.settle(S.SKIPPED, error=exc)
            return
        slot.settle(S.FAILED, error=exc)
        slot.abort = policy is PF.PROPAGATE

    def _cancelled(self, slot: Slot, exc: BaseException, stage: DispatchStagePolicy) -> None:
        slot.handler_cancelled = True
        slot.settle(S.CANCELLED, error=exc)
        slot.abort = stage.handler_cancellation is HandlerCancellation.PROPAGATE

    def dispose(self, slot: Slot, value: Any) -> bool:
        """Settle a handler's returned value; True when the caller must await it now."""
        disposition = self.phase.returned_awaitable
        if disposition is RAD.DISCARD_UNAWAITED:
            # Deprecated compatibility: the awaitable never runs. Detected for the report only,
            # whatever the classifier, since nothing is awaited under this disposition anyway.
            if inspect.isawaitable(value):
                close_unawaited(value)
                slot.settle(S.DISCARDED)
            else:
                slot.settle(S.RETURNED, value)
            return False
        if not is_returned_awaitable(value, self.phase.returned_value_classifier):
            slot.settle(S.RETURNED, value)
            return False
        if disposition is RAD.REJECT:
            close_unawaited(value)
            slot.settle(
                S.REJECTED,
                error=ReturnedAwaitableRejected(
                    f"handler {slot.reg.name!r} returned an awaitable ({type(value).__name__}) under REJECT"
                ),
            )
            return False
        if disposition is RAD.GATHER_AFTER_INVOCATIONS:
            slot.awaitable = value
            return False
        return True

    async def invoke(self, slot: Slot) -> None:
        """Invocation stage of the async entry."""
        reg = slot.reg
        try:
            if not self.match(slot):
                return
            if self.by_declaration and reg.declared_async:
                slot.settle(S.RETURNED, await reg.handler(self.signal))
                return
            if self.by_declaration and self.phase.sync_handlers is SyncHandlerMode.OFFLOAD:
                slot.thread = ThreadState()
                value = await run_in_thread(reg.handler, self.signal, slot.thread)
            else:
                value = reg.handler(self.signal)
            if self.dispose(slot, value):
                slot.settle(S.RETURNED, await value)
        except asyncio.CancelledError as exc:
            if _emitter_cancelling():
                raise
            self._cancelled(slot, exc, self.phase.invocation)
        except Exception as exc:
            slot.settle(S.FAILED, error=exc)

    async def await_returned(self, slot: Slot) -> None:
        """Returned-awaitables stage: await one awaitable a handler returned during invocation."""
        awaitable, slot.awaitable = slot.awaitable, None
        stage = self.phase.returned_awaitables
        assert isinstance(
            stage, DispatchStagePolicy
        )  # guaranteed by gather-requires-returned-awaitables-stage
        try:
            slot.settle(S.RETURNED, await awaitable)
        except asyncio.CancelledError as exc:
            if _emitter_cancelling():
                raise
            self._cancelled(slot, exc, stage)
        except Exception as exc:
            slot.settle(S.FAILED, error=exc)

    def invoke_sync(self, slot: Slot) -> None:
        """Invocation from the sync entry: nothing can be awaited, so returned awaitables are disposed."""
        try:
            if self.match(slot):
                # A declared-async handler (admitted by SyncEntryPolicy.ALLOW) yields its coroutine,
                # which DISCARD_UNAWAITED or REJECT then disposes of like any returned awaitable.
                self.dispose(slot, slot.reg.handler(self.signal))
        except asyncio.CancelledError as exc:
            self._cancelled(slot, exc, self.phase.invocation)
        except Exception as exc:
            slot.settle(S.FAILED, error=exc)
