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


def axes(**overrides: Any) -> dict[str, Any]:
    """Every axis of a valid sequential, inline, by-return-value phase that isolates failures and
    logs them (``DispatchPolicy.from_axes`` keywords), with *overrides*."""
    fields: dict[str, Any] = {
        "concurrency": "sequential", "failure": "isolate", "completion": "await_all",
        "error_surface": "log_only", "sync_handlers": "inline", "handler_classification": "by_return_value",
        "returned_value_classifier": "inspect_awaitable", "returned_awaitable": "await_in_invocation",
        "sync_entry": "unavailable", "handler_cancellation": "propagate", "predicate_failure": "propagate",
    }
    fields.update(overrides)
    return fields


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


class _VirtualSelector:
    """Wraps a loop's selector: when the loop would sleep until its next timer, the virtual clock
    jumps there at once; ready I/O (a worker thread's wake-up) is still polled for real."""

    def __init__(self, selector: Any, loop: VirtualClockLoop) -> None:
        self._selector = selector
        self._loop = loop

    def select(self, timeout: float | None = None) -> Any:
        events = self._selector.select(0)
        if events or timeout == 0:
            return events
        if timeout is None:  # no timer left: only another thread can wake the loop
            return self._selector.select(GUARD_SECONDS)
        self._loop.advance(timeout)
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._selector, name)


GUARD_SECONDS = 60.0


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose ``time()`` is virtual: sleeps and deadlines take no real time, so a test
    asserts the exact schedule (this handler returned at 0.06, the deadline struck at 0.1) on any
    machine, however loaded, instead of bounding seconds of wall clock."""

    def __init__(self) -> None:
        super().__init__()
        self._virtual_now = 0.0
        self._selector = _VirtualSelector(self._selector, self)  # type: ignore[has-type]

    def time(self) -> float:
        return self._virtual_now

    def advance(self, seconds: float) -> None:
        self._virtual_now += seconds


def run_virtual(awaitable_factory: Any) -> tuple[Any, float]:
    """Run ``awaitable_factory()`` on a fresh virtual-clock loop; return its result and the virtual
    seconds it took (the kernels read only ``loop.time()``, so their deadlines follow this clock)."""
    loop = VirtualClockLoop()
    asyncio.set_event_loop(loop)
    try:

        async def main() -> tuple[Any, float]:
            start = loop.time()
            result = await awaitable_factory()
            return result, loop.time() - start

        return loop.run_until_complete(main())
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
