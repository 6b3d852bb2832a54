# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/profiles.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""The ADR-0120 D2 named compatibility profiles' phases, spelled out field by field as
the ADR pins them; ``DispatchPolicy.scheduler()`` and its siblings build the policies
from them."""

from __future__ import annotations

from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    DispatchConcurrency,
    DispatchFailure,
    ErrorSurface,
    HandlerClassification,
    PredicateFailure,
    ReturnedAwaitableDisposition,
    ReturnedValueClassifier,
    SyncEntryPolicy,
    SyncHandlerMode,
)
from ._vocab import (
    HandlerCancellation as HCan,
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


def _stage(
    failure: DispatchFailure,
    completion: CompletionTiming,
    surface: ErrorSurface,
    cancellation: HCan,
) -> DispatchStagePolicy:
    return DispatchStagePolicy(
        failure=failure,
        completion=completion,
        error_surface=surface,
        handler_cancellation=cancellation,
    )


def scheduler() -> tuple[DispatchPhase, ...]:
    """SchedulerSignalBus: concurrent gather, failures raised as one group, cancellation
    translated."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DispatchConcurrency.CONCURRENT,
            sync_handlers=SyncHandlerMode.INLINE,
            handler_classification=HandlerClassification.BY_RETURN_VALUE,
            returned_value_classifier=ReturnedValueClassifier.INSPECT_AWAITABLE,
            returned_awaitable=ReturnedAwaitableDisposition.AWAIT_IN_INVOCATION,
            sync_entry=SyncEntryPolicy.UNAVAILABLE,
            predicate_failure=PredicateFailure.COLLECT_AS_HANDLER_FAILURE,
            invocation=_stage(
                DispatchFailure.COLLECT,
                CompletionTiming.AWAIT_ALL,
                ErrorSurface.RAISE_GROUP,
                HCan.TRANSLATE,
            ),
        ),
    )


def terminal_callback(*, deadline_seconds: float = 10.0) -> tuple[DispatchPhase, ...]:
    """TerminalCallbackRegistry: concurrent, sync offloaded, isolated and logged, one
    shared deadline.

    The default budget is lionagi's HANDLER_BUDGET_SECONDS (10.0); the ADR pins "a
    shared finite budget".
    """
    return (
        DispatchPhase(
            selector="all",
            concurrency=DispatchConcurrency.CONCURRENT,
            sync_handlers=SyncHandlerMode.OFFLOAD,
            handler_classification=HandlerClassification.BY_DECLARATION,
            returned_value_classifier=ReturnedValueClassifier.INSPECT_AWAITABLE,
            returned_awaitable=ReturnedAwaitableDisposition.AWAIT_IN_INVOCATION,
            sync_entry=SyncEntryPolicy.UNAVAILABLE,
            predicate_failure=PredicateFailure.PROPAGATE,
            invocation=_stage(
                DispatchFailure.ISOLATE,
                CompletionTiming.AWAIT_ALL,
                ErrorSurface.LOG_ONLY,
                HCan.PROPAGATE,
            ),
            deadline_disposition=DeadlineDisposition.SILENT_STOP,
            deadline_seconds=deadline_seconds,
        ),
    )


def session_observer() -> tuple[DispatchPhase, ...]:
    """SessionObserver: sequential sync invocation, then returned awaitables gathered
    concurrently."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DispatchConcurrency.SEQUENTIAL,
            sync_handlers=SyncHandlerMode.INLINE,
            handler_classification=HandlerClassification.BY_RETURN_VALUE,
            returned_value_classifier=ReturnedValueClassifier.INSPECT_AWAITABLE,
            returned_awaitable=ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS,
            sync_entry=SyncEntryPolicy.UNAVAILABLE,
            # The ADR leaves this one field of the composite implicit; a raising filter
            # stops the sequential invocation exactly like a raising handler does today
            # (observer.py _match).
            predicate_failure=PredicateFailure.PROPAGATE,
            invocation=_stage(
                DispatchFailure.PROPAGATE,
                CompletionTiming.STOP_ON_FAILURE,
                ErrorSurface.RAISE_FIRST,
                HCan.PROPAGATE,
            ),
            returned_awaitables=_stage(
                DispatchFailure.COLLECT,
                CompletionTiming.CANCEL_REMAINING_ON_FAILURE,
                ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP,
                HCan.COLLECT,
            ),
        ),
    )


def broadcaster() -> tuple[DispatchPhase, ...]:
    """Broadcaster: sequential, isolated and logged; only asyncio coroutines are
    awaited."""
    return (
        DispatchPhase(
            selector="all",
            concurrency=DispatchConcurrency.SEQUENTIAL,
            sync_handlers=SyncHandlerMode.INLINE,
            handler_classification=HandlerClassification.BY_RETURN_VALUE,
            returned_value_classifier=ReturnedValueClassifier.ASYNCIO_COROUTINE_ONLY,
            returned_awaitable=ReturnedAwaitableDisposition.AWAIT_IN_INVOCATION,
            sync_entry=SyncEntryPolicy.UNAVAILABLE,
            # Broadcaster has no filters; a predicate given to its dispatcher fails like
            # a callback.
            predicate_failure=PredicateFailure.ISOLATE,
            invocation=_stage(
                DispatchFailure.ISOLATE,
                CompletionTiming.AWAIT_ALL,
                ErrorSurface.LOG_ONLY,
                HCan.PROPAGATE,
            ),
        ),
    )


def _message_manager(sync_entry: SyncEntryPolicy) -> tuple[DispatchPhase, ...]:
    return (
        DispatchPhase(
            selector="all",
            concurrency=DispatchConcurrency.SEQUENTIAL,
            sync_handlers=SyncHandlerMode.INLINE,
            handler_classification=HandlerClassification.BY_DECLARATION,
            returned_value_classifier=ReturnedValueClassifier.NOT_INSPECTED,
            returned_awaitable=ReturnedAwaitableDisposition.DISCARD_UNAWAITED,
            sync_entry=sync_entry,
            # Callbacks have no filters; a given predicate's error is collected like a
            # callback's.
            predicate_failure=PredicateFailure.COLLECT_AS_HANDLER_FAILURE,
            invocation=_stage(
                DispatchFailure.COLLECT,
                CompletionTiming.AWAIT_ALL,
                ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP,
                HCan.COLLECT,
            ),
        ),
    )


def message_manager_sync() -> tuple[DispatchPhase, ...]:
    """MessageManager.add_message: declared-async callbacks refused in preflight, before
    mutation."""
    return _message_manager(SyncEntryPolicy.REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT)


def message_manager_async() -> tuple[DispatchPhase, ...]:
    """MessageManager.a_add_message: declared coroutine functions awaited inline; no
    sync entry."""
    return _message_manager(SyncEntryPolicy.UNAVAILABLE)
