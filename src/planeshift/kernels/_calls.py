"""Call-site mechanics shared by the kernels: declaration checks, classifiers, and
thread offload."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from ._vocab import ReturnedValueClassifier

__all__ = [
    "ThreadState",
    "close_unawaited",
    "handler_name",
    "is_declared_async",
    "is_returned_awaitable",
    "Offload",
    "run_in_thread",
]


def is_declared_async(handler: Callable[..., Any]) -> bool:
    """True for a coroutine function, seeing through functools.partial (as lionagi's
    is_coro_func)."""
    while isinstance(handler, functools.partial):
        handler = handler.func
    return inspect.iscoroutinefunction(handler)


def handler_name(handler: Callable[..., Any]) -> str:
    inner: Any = handler
    while isinstance(inner, functools.partial):
        inner = inner.func
    qualname = getattr(inner, "__qualname__", None)
    return str(qualname or getattr(inner, "__name__", None) or repr(inner))


def is_returned_awaitable(value: object, classifier: ReturnedValueClassifier) -> bool:
    """Apply the ADR's returned-value classifier; NOT_INSPECTED never reports an
    awaitable."""
    if classifier is ReturnedValueClassifier.INSPECT_AWAITABLE:
        return inspect.isawaitable(value)
    if classifier is ReturnedValueClassifier.ASYNCIO_COROUTINE_ONLY:
        return asyncio.iscoroutine(value)
    return False


def close_unawaited(value: object) -> None:
    """Close a coroutine that will never be awaited; closing an unstarted coroutine runs
    none of its body.

    Without this the interpreter warns "coroutine ... was never awaited" at garbage
    collection, far from the dispatcher that made the choice. Other awaitables are left
    as they are.
    """
    if inspect.iscoroutine(value):
        value.close()


class ThreadState:
    """Whether an offloaded sync handler's thread has finished; read when a deadline
    abandons it."""

    __slots__ = ("finished",)

    def __init__(self) -> None:
        self.finished = threading.Event()


Offload = Callable[[Callable[[], Any]], Awaitable[Any]]
"""An owner's own way to run a sync handler in a worker thread: called with the handler
bound to its arguments, awaited for its result; e.g. ``lambda fn:
anyio.to_thread.run_sync(fn, abandon_on_cancel=True)`` keeps anyio's worker threads, its
thread limiter and ``anyio.from_thread`` inside handlers."""


async def run_in_thread(
    fn: Callable[..., Any],
    state: ThreadState,
    *args: Any,
    offload: Offload | None = None,
    **kwargs: Any,
) -> Any:
    """Run `fn(*args, **kwargs)` in a worker thread and await its result; cancelling the
    await abandons the thread. With *offload* (the owner's), that runs it; else a daemon
    thread of its own: rather than the loop's default executor, since asyncio.run()
    joins that executor at shutdown, which would turn an abandoned handler back into a
    blocking one.
    """
    if offload is not None:

        def bound() -> Any:
            try:
                return fn(*args, **kwargs)
            finally:
                state.finished.set()

        return await offload(bound)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, payload: Any) -> None:
        if future.done():  # the awaiting task gave up (deadline or cancellation)
            return
        if ok:
            future.set_result(payload)
        else:
            future.set_exception(payload)

    def target() -> None:
        ok, payload = True, None
        try:
            payload = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the awaiting task, which classifies it
            ok, payload = False, exc
        state.finished.set()
        try:
            loop.call_soon_threadsafe(settle, ok, payload)
        except RuntimeError:
            # The loop closed after the emitter returned at its deadline; by contract
            # this result is unobservable (reported abandoned_unknown), so there is no
            # one to tell.
            return

    context = contextvars.copy_context()
    threading.Thread(
        target=context.run,
        args=(target,),
        daemon=True,
        name=f"offload:{handler_name(fn)}",
    ).start()
    return await future
