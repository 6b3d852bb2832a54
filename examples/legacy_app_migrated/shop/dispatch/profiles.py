# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/profiles.py (planeshift 0.1.0) by `planeshift kernels vendor`.
# Do not edit: re-run that command to update this copy.
"""The ADR-0120 D2 named compatibility profiles' phases, spelled out field by field as the ADR pins them;
``DispatchPolicy.scheduler()`` and its siblings build the policies from them."""

from __future__ import annotations

from ._vocab import (
    CompletionTiming as CT,
)
from ._vocab import (
    DeadlineDisposition,
)
from ._vocab import (
    DispatchConcurrency as DC,
)
from ._vocab import (
    DispatchFailure as DF,
)
from ._vocab import (
    ErrorSurface as ES,
)
from ._vocab import (
    HandlerCancellation as HCan,
)
from ._vocab import (
    HandlerClassification as HC,
)
from ._vocab import (
    PredicateFailure as PF,
)
from ._vocab import (
    ReturnedAwaitableDisposition as RAD,
)
from ._vocab import (
    ReturnedValueClassifier as RVC,
)
from ._vocab import (
    SyncEntryPolicy as SE,
)
from ._vocab import (
    SyncHandlerMode as SH,
)
from .phases import DispatchPhase, DispatchStagePolicy

__all__ = [
    "broadcaster",
    "message_manager_async",
    "message_manager_sync",
    "scheduler",
    "session_observer",
    "terminal_callback",
]


def _stage(failure: DF, completion: CT, surface: ES, cancellation: HCan) -> DispatchStagePolicy:
    return DispatchStagePolicy(
        failure=failure, completion=completion, error_surface=surface, handler_cancellation=cancellation
    )


def scheduler() -> tuple[DispatchPhase, ...]:
    """SchedulerSignalBus: concurrent gather, failures raised as one group, cancellation translated."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DC.CONCURRENT,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            predicate_failure=PF.COLLECT_AS_HANDLER_FAILURE,
            invocation=_stage(DF.COLLECT, CT.AWAIT_ALL, ES.RAISE_GROUP, HCan.TRANSLATE),
        ),
    )


def terminal_callback(*, deadline_seconds: float = 10.0) -> tuple[DispatchPhase, ...]:
    """TerminalCallbackRegistry: concurrent, sync offloaded, isolated and logged, one shared deadline.

    The default budget is lionagi's HANDLER_BUDGET_SECONDS (10.0); the ADR pins "a shared finite budget".
    """
    return (
        DispatchPhase(
            selector="all",
            concurrency=DC.CONCURRENT,
            sync_handlers=SH.OFFLOAD,
            handler_classification=HC.BY_DECLARATION,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            predicate_failure=PF.PROPAGATE,
            invocation=_stage(DF.ISOLATE, CT.AWAIT_ALL, ES.LOG_ONLY, HCan.PROPAGATE),
            deadline_disposition=DeadlineDisposition.SILENT_STOP,
            deadline_seconds=deadline_seconds,
        ),
    )


def session_observer() -> tuple[DispatchPhase, ...]:
    """SessionObserver: sequential sync invocation, then returned awaitables gathered concurrently."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DC.SEQUENTIAL,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.GATHER_AFTER_INVOCATIONS,
            sync_entry=SE.UNAVAILABLE,
            # The ADR leaves this one field of the composite implicit; a raising filter stops the
            # sequential invocation exactly like a raising handler does today (observer.py _match).
            predicate_failure=PF.PROPAGATE,
            invocation=_stage(DF.PROPAGATE, CT.STOP_ON_FAILURE, ES.RAISE_FIRST, HCan.PROPAGATE),
            returned_awaitables=_stage(
                DF.COLLECT, CT.CANCEL_REMAINING_ON_FAILURE, ES.UNWRAP_SINGLE_ELSE_GROUP, HCan.COLLECT
            ),
        ),
    )


def broadcaster() -> tuple[DispatchPhase, ...]:
    """Broadcaster: sequential, isolated and logged; only asyncio coroutines are awaited."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DC.SEQUENTIAL,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.ASYNCIO_COROUTINE_ONLY,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            # Broadcaster has no filters; a predicate given to its dispatcher fails like a callback.
            predicate_failure=PF.ISOLATE,
            invocation=_stage(DF.ISOLATE, CT.AWAIT_ALL, ES.LOG_ONLY, HCan.PROPAGATE),
        ),
    )


def _message_manager(sync_entry: SE) -> tuple[DispatchPhase, ...]:
    return (
        DispatchPhase(
            selector="all",
            concurrency=DC.SEQUENTIAL,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_DECLARATION,
            returned_value_classifier=RVC.NOT_INSPECTED,
            returned_awaitable=RAD.DISCARD_UNAWAITED,
            sync_entry=sync_entry,
            # Callbacks have no filters; a given predicate's error is collected like a callback's.
            predicate_failure=PF.COLLECT_AS_HANDLER_FAILURE,
            invocation=_stage(DF.COLLECT, CT.AWAIT_ALL, ES.UNWRAP_SINGLE_ELSE_GROUP, HCan.COLLECT),
        ),
    )


def message_manager_sync() -> tuple[DispatchPhase, ...]:
    """MessageManager.add_message: declared-async callbacks refused in preflight, before mutation."""
    return _message_manager(SE.REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT)


def message_manager_async() -> tuple[DispatchPhase, ...]:
    """MessageManager.a_add_message: declared coroutine functions awaited inline; no sync entry."""
    return _message_manager(SE.UNAVAILABLE)
