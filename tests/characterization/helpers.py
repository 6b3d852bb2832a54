"""Helpers shared by the lionagi 0.36.0 characterization tests: loop runner, probes, awaitables."""

from __future__ import annotations

import asyncio
import inspect
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

if sys.version_info >= (3, 11):
    import builtins

    BaseExceptionGroup = builtins.BaseExceptionGroup
    ExceptionGroup = builtins.ExceptionGroup
else:  # before 3.11 lionagi and anyio raise the groups of the exceptiongroup backport
    from exceptiongroup import BaseExceptionGroup as BaseExceptionGroup
    from exceptiongroup import ExceptionGroup as ExceptionGroup

T = TypeVar("T")

# A regression that deadlocks (a concurrent loop turned sequential, a lost wake-up) fails the
# test after this many seconds instead of hanging the run: a guard against a hang, far above
# anything a loaded machine takes, never a measure of speed.
GUARD_SECONDS = 60.0


def run(awaitable: Awaitable[T]) -> T:
    """Run one test coroutine on a fresh asyncio loop, under the deadlock guard."""

    async def main() -> T:
        return await asyncio.wait_for(awaitable, GUARD_SECONDS)

    return asyncio.run(main())


@dataclass
class Outcome:
    """What awaiting something produced: its value, or the exception it raised."""

    value: Any = None
    error: BaseException | None = None


async def outcome(awaitable: Awaitable[Any]) -> Outcome:
    """Await *awaitable* and capture how it ended, so a test can assert on the exception itself."""
    try:
        return Outcome(value=await awaitable)
    except BaseException as exc:  # noqa: BLE001 -- the ending is what the test asserts on
        return Outcome(error=exc)


async def cancel_when_entered(awaitable: Awaitable[Any], entered: asyncio.Event) -> Outcome:
    """Run *awaitable* as a task, cancel that task once *entered* is set, and return its outcome."""
    task = asyncio.ensure_future(awaitable)
    await entered.wait()
    task.cancel()
    return await outcome(task)


async def record(trace: list[str], label: str, value: Any = None) -> Any:
    """A coroutine body that appends *label* to *trace* when it runs, then returns *value*."""
    trace.append(label)
    return value


class ProbeAwaitable:
    """An awaitable object that is not a coroutine; it records when it is awaited."""

    def __init__(self, trace: list[str], label: str, value: Any = None) -> None:
        self.trace = trace
        self.label = label
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        self.trace.append(self.label)
        yield from asyncio.sleep(0).__await__()
        return self.value


def assert_never_started(coro: Coroutine[Any, Any, Any]) -> None:
    """The coroutine was created but its body never ran; closed here so no warning follows."""
    state = inspect.getcoroutinestate(coro)
    coro.close()
    assert state == inspect.CORO_CREATED


def messages(caplog: pytest.LogCaptureFixture, logger: str) -> list[tuple[str, str]]:
    """(level name, rendered message) of every record *logger* emitted, in order."""
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == logger]


def lionagi_messages(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    """(logger, level name, message) of every record any lionagi logger emitted, in order."""
    return [(r.name, r.levelname, r.getMessage())
            for r in caplog.records if r.name.startswith("lionagi")]


def exc_infos(caplog: pytest.LogCaptureFixture, logger: str) -> list[BaseException | None]:
    """The exception attached to each record *logger* emitted, in order (None without one)."""
    return [r.exc_info[1] if r.exc_info else None for r in caplog.records if r.name == logger]


def loop_thread_probe(trace: list[str], label: str) -> Callable[..., None]:
    """A sync handler that records whether it ran on the thread that created it (the loop's)."""
    home = threading.get_ident()

    def handler(*_args: Any, **_kwargs: Any) -> None:
        where = "loop thread" if threading.get_ident() == home else "worker thread"
        trace.append(f"{label} on {where}")

    return handler


class Barrier:
    """``asyncio.Barrier(parties).wait()`` (3.11+) for the suite on 3.10: every party waits
    until the last one arrives."""

    def __init__(self, parties: int) -> None:
        self.parties, self.arrived = parties, 0
        self.released = asyncio.Event()

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived >= self.parties:
            self.released.set()
        await self.released.wait()


async def rendezvous(barrier: Barrier, trace: list[str], label: str) -> str:
    """Wait until every party arrived: completes only when the handlers run concurrently."""
    trace.append(f"{label} waiting")
    await barrier.wait()
    trace.append(f"{label} released")
    return label
