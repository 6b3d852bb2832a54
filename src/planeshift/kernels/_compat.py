"""What the kernels use from Python 3.11 that 3.10 lacks, in one form for both (a
vendoring target may declare ``requires-python >= 3.10``).

On 3.11 and later every name here is the standard library's own, so nothing changes
there. On 3.10: the exception groups come from the ``exceptiongroup`` backport (anyio
depends on it there); ``deadline_at`` is a ``loop.call_at`` timer that cancels the task
and turns that cancellation into ``TimeoutError``; and ``cancelling`` counts the
cancellations the kernels themselves requested (``cancel``, ``deadline_at``) plus one
that an anyio cancel scope delivered, since 3.10's tasks keep no count of their own.

Known 3.10 limit: a cancellation of the emitting task that neither the kernels nor an
anyio cancel scope requested (a bare ``task.cancel()`` from outside while a sequential
stage awaits an inline handler) cannot be told from one the handler raised itself, so
the stage settles it as its ``handler_cancellation`` says; and one requested in the very
loop iteration the deadline fires merges into the deadline's (as with 3.10's own
``asyncio.wait_for``).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

__all__ = [
    "BaseExceptionGroup",
    "ExceptionGroup",
    "cancel",
    "cancelling",
    "deadline_at",
    "emitter_cancelling",
]

if sys.version_info >= (3, 11):
    import builtins

    BaseExceptionGroup = builtins.BaseExceptionGroup
    ExceptionGroup = builtins.ExceptionGroup

    def cancel(task: asyncio.Task[Any]) -> None:
        task.cancel()

    def cancelling(task: asyncio.Task[Any]) -> int:
        return task.cancelling()

    def emitter_cancelling(exc: BaseException) -> bool:
        # A cancel *requested* on the running task comes from outside (emitter,
        # deadline, sibling policy); a CancelledError raised while none is pending was
        # raised by the handler itself.
        task = asyncio.current_task()
        return task is not None and task.cancelling() > 0

    deadline_at = asyncio.timeout_at

else:  # Python 3.10
    import weakref

    from exceptiongroup import BaseExceptionGroup, ExceptionGroup

    _Requested = weakref.WeakKeyDictionary[asyncio.Task[Any], int]
    _requested: _Requested = weakref.WeakKeyDictionary()
    _DEADLINE = "dispatch kernel deadline"
    # the message every anyio cancel scope delivers
    _ANYIO = "Cancelled via cancel scope "

    def _cancel(task: asyncio.Task[Any], message: str | None) -> None:
        if task.cancel(message):
            _requested[task] = _requested.get(task, 0) + 1

    def cancel(task: asyncio.Task[Any]) -> None:
        """``task.cancel()``, counted so ``cancelling(task)`` sees it."""
        _cancel(task, None)

    def _uncancel(task: asyncio.Task[Any]) -> int:
        left = max(0, _requested.get(task, 0) - 1)
        _requested[task] = left
        return left

    def cancelling(task: asyncio.Task[Any]) -> int:
        return _requested.get(task, 0)

    def _carries(exc: BaseException | None, prefix: str) -> bool:
        # a framework may catch a CancelledError and raise a new one: look down its
        # context too
        while exc is not None:
            cancelled = isinstance(exc, asyncio.CancelledError) and exc.args
            if cancelled and str(exc.args[0]).startswith(prefix):
                return True
            exc = exc.__context__
        return False

    def emitter_cancelling(exc: BaseException) -> bool:
        task = asyncio.current_task()
        if task is None:
            return False
        return cancelling(task) > 0 or _carries(exc, _ANYIO)

    class _Deadline:
        """``asyncio.timeout_at`` for 3.10: ``expired()``, and ``TimeoutError`` out of
        ``async with`` when the deadline's own cancellation ends the body; any other
        cancellation leaves as it came."""

        def __init__(self, when: float | None) -> None:
            self._when = when
            self._task: asyncio.Task[Any] | None = None
            self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
            self._fired = False
            self._before = 0

        def expired(self) -> bool:
            return self._fired

        async def __aenter__(self) -> _Deadline:
            task = asyncio.current_task()
            if task is None:
                raise RuntimeError("deadline_at() must be used inside a task")
            self._task, self._before = task, cancelling(task)
            if self._when is not None:
                loop = asyncio.get_running_loop()
                if self._when <= loop.time():
                    self._timer = loop.call_soon(self._expire)
                else:
                    self._timer = loop.call_at(self._when, self._expire)
            return self

        def _expire(self) -> None:
            if self._task is None:  # the timer is only armed inside __aenter__
                return
            self._fired = True
            _cancel(self._task, _DEADLINE)

        async def __aexit__(
            self,
            exc_type: type[BaseException] | None,
            exc: BaseException | None,
            tb: Any,
        ) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not self._fired or self._task is None:
                return
            # Ours only when no other cancellation was requested meanwhile and the one
            # leaving the body is the deadline's own (an outer one would carry no or
            # another message).
            if (
                _uncancel(self._task) <= self._before
                and exc_type is asyncio.CancelledError
                and _carries(exc, _DEADLINE)
            ):
                raise TimeoutError from exc

    def deadline_at(when: float | None) -> _Deadline:
        return _Deadline(when)
