"""Shared helpers for the kernel tests: a coroutine runner and valid baseline policies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")


def run(awaitable: Awaitable[T]) -> T:
    """Run one test coroutine on a fresh event loop (pytest-asyncio is deliberately not used)."""

    async def main() -> T:
        return await awaitable

    return asyncio.run(main())


def phase(k: ModuleType, **overrides: Any) -> Any:
    """A valid baseline phase (sequential, inline, by return value) with fields overridden."""
    fields: dict[str, Any] = dict(
        selector="all",
        concurrency=k.DispatchConcurrency.SEQUENTIAL,
        sync_handlers=k.SyncHandlerMode.INLINE,
        handler_classification=k.HandlerClassification.BY_RETURN_VALUE,
        returned_value_classifier=k.ReturnedValueClassifier.INSPECT_AWAITABLE,
        returned_awaitable=k.ReturnedAwaitableDisposition.AWAIT_IN_INVOCATION,
        sync_entry=k.SyncEntryPolicy.UNAVAILABLE,
        predicate_failure=k.PredicateFailure.COLLECT_AS_HANDLER_FAILURE,
        invocation=stage(k),
    )
    fields.update(overrides)
    return k.DispatchPhase(**fields)


def stage(k: ModuleType, **overrides: Any) -> Any:
    """A valid baseline stage: collect everything and return it in the report."""
    fields: dict[str, Any] = dict(
        failure=k.DispatchFailure.COLLECT,
        completion=k.CompletionTiming.AWAIT_ALL,
        error_surface=k.ErrorSurface.RETURN_REPORT,
        handler_cancellation=k.HandlerCancellation.COLLECT,
    )
    fields.update(overrides)
    return k.DispatchStagePolicy(**fields)


def policy(k: ModuleType, **overrides: Any) -> Any:
    return k.DispatchPolicy(phases=(phase(k, **overrides),))
