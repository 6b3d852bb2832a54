"""SessionObserver profile: sequential invocation, then only the returned awaitables are gathered."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
from types import ModuleType
from typing import Any

import pytest

from .helpers import run, run_virtual


def _dispatcher(k: ModuleType, **handlers: Any) -> Any:
    dispatcher = k.FanoutDispatcher(k.DispatchPolicy.session_observer())
    for name, handler in handlers.items():
        dispatcher.subscribe(handler, name=name)
    return dispatcher


def test_invocations_are_sequential_then_awaitables_gathered_concurrently(kernels: ModuleType) -> None:
    events: list[str] = []

    async def work(tag: str, delay: float) -> str:
        events.append(f"start {tag}")
        await asyncio.sleep(delay)
        events.append(f"end {tag}")
        return tag

    def invoke(tag: str, delay: float) -> Any:
        def handler(signal: object) -> Any:
            events.append(f"call {tag}")
            return work(tag, delay)

        return handler

    dispatcher = _dispatcher(
        kernels, a=invoke("a", 0.04), sync=lambda s: events.append("call sync") or "s", b=invoke("b", 0.01)
    )
    report = run(dispatcher.emit("sig"))
    # Every invocation happens before any returned awaitable starts; b (shorter) finishes first.
    assert events == ["call a", "call sync", "call b", "start a", "start b", "end b", "end a"]
    assert report.names == ("a", "sync", "b")
    assert report.values == ("a", "s", "b")


def test_invocation_error_stops_before_the_gather_and_abandons_earlier_awaitables(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []

    async def never() -> None:
        ran.append("awaitable ran")

    def broken(signal: object) -> None:
        raise KeyError("filter blew up")

    dispatcher = _dispatcher(
        kernels, first=lambda s: never(), broken=broken, later=lambda s: ran.append("later")
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyError):
            run(dispatcher.emit("sig"))
        gc.collect()
    assert ran == []  # neither the earlier awaitable nor the later handler ran
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert any(
        "abandoned unawaited" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
    )


def test_one_cancelled_awaitable_cancels_its_sibling_and_is_returned_not_raised(kernels: ModuleType) -> None:
    sibling_cancelled: list[bool] = []

    async def cancels() -> None:
        await asyncio.sleep(0.01)
        raise asyncio.CancelledError("one cancelled")

    async def sibling() -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            sibling_cancelled.append(True)
            raise

    dispatcher = _dispatcher(kernels, cancelled=lambda s: cancels(), sibling=lambda s: sibling())
    report = run(dispatcher.emit("sig"))
    status = kernels.OutcomeStatus
    assert [(o.name, o.status) for o in report.outcomes] == [
        ("cancelled", status.CANCELLED),
        ("sibling", status.CANCELLED),
    ]
    assert isinstance(report.outcomes[0].error, asyncio.CancelledError)  # the cancellation object itself
    assert report.outcomes[1].error is None  # cancelled by the kernel, not by its own handler
    assert sibling_cancelled == [True]
    assert report.failures == ()


def test_one_gathered_failure_is_unwrapped_and_cancels_siblings(kernels: ModuleType) -> None:
    async def fails() -> None:
        await asyncio.sleep(0.01)
        raise ValueError("gathered")

    async def slow() -> None:
        await asyncio.sleep(5)

    async def main() -> None:
        with pytest.raises(ValueError, match="gathered"):
            await _dispatcher(kernels, fails=lambda s: fails(), slow=lambda s: slow()).emit("sig")

    _, elapsed = run_virtual(main)
    assert elapsed == pytest.approx(0.01)  # the slow sibling was cancelled when the failure came


def test_simultaneous_gathered_failures_raise_a_group(kernels: ModuleType) -> None:
    async def fails(tag: str) -> None:
        raise ValueError(tag)

    dispatcher = _dispatcher(kernels, a=lambda s: fails("a"), b=lambda s: fails("b"))
    with pytest.raises(ExceptionGroup) as caught:
        run(dispatcher.emit("sig"))
    assert [str(e) for e in caught.value.exceptions] == ["a", "b"]


def test_cancellation_raised_during_invocation_propagates(kernels: ModuleType) -> None:
    def cancels(signal: object) -> None:
        raise asyncio.CancelledError("sync cancel")

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError, match="sync cancel"):
            await _dispatcher(kernels, c=cancels, after=lambda s: 1 / 0).emit("sig")

    run(main())


def test_sync_entry_is_unavailable(kernels: ModuleType) -> None:
    with pytest.raises(kernels.SyncEntryError):
        _dispatcher(kernels).preflight_sync()
