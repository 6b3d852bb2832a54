"""TerminalCallback profile: concurrent, offloaded sync handlers, isolated failures, one shared deadline."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from .helpers import run, run_virtual


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Lets an abandoned worker thread finish once the test is over."""
    event = threading.Event()
    yield event
    event.set()


def _dispatcher(k: ModuleType, budget: float = 0.1) -> Any:
    return k.FanoutDispatcher(k.DispatchPolicy.terminal_callback(deadline_seconds=budget))


def test_shared_deadline_returns_on_time_and_abandons_the_offloaded_thread(
    kernels: ModuleType, release: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    finished_late: list[str] = []

    def blocking(signal: object) -> None:
        release.wait(5)
        finished_late.append("thread")

    async def slow(signal: object) -> None:
        await asyncio.sleep(5)

    async def quick(signal: object) -> str:
        return "done"

    dispatcher = _dispatcher(kernels)
    for handler, name in ((blocking, "blocking"), (slow, "slow"), (quick, "quick")):
        dispatcher.subscribe(handler, name=name)

    caplog.set_level(logging.DEBUG)
    report, elapsed = run_virtual(lambda: dispatcher.emit("envelope"))
    assert elapsed == pytest.approx(0.1)  # one budget for the whole fan-out, not one per handler
    status = kernels.OutcomeStatus
    assert [(o.name, o.status) for o in report.outcomes] == [
        ("blocking", status.ABANDONED_UNKNOWN),
        ("slow", status.TIMED_OUT),
        ("quick", status.RETURNED),
    ]
    assert report.deadline_expired
    assert finished_late == []  # the thread is still running: nothing can be claimed about it
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # SILENT_STOP: no timeout log


def test_sync_handlers_are_offloaded_and_declared_async_ones_are_not(kernels: ModuleType) -> None:
    seen: dict[str, bool] = {}

    def sync_handler(signal: object) -> None:
        seen["sync_on_main"] = threading.current_thread() is threading.main_thread()

    async def async_handler(tag: str, signal: object) -> None:
        seen[f"{tag}_on_main"] = threading.current_thread() is threading.main_thread()

    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(sync_handler)
    dispatcher.subscribe(functools.partial(async_handler, "partial"))  # declaration seen through partial
    run(dispatcher.emit("envelope"))
    assert seen == {"sync_on_main": False, "partial_on_main": True}


def test_awaitable_returned_by_an_offloaded_handler_is_awaited(kernels: ModuleType) -> None:
    async def later() -> str:
        return "awaited"

    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(lambda s: later())
    assert run(dispatcher.emit("envelope")).values == ("awaited",)


def test_ordinary_failures_are_logged_and_isolated(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(signal: object) -> None:
        raise RuntimeError("disk full")

    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(broken, name="broken")
    dispatcher.subscribe(lambda s: "ok", name="fine")
    report = run(dispatcher.emit("envelope"))
    assert [o.status for o in report.outcomes] == [
        kernels.OutcomeStatus.FAILED,
        kernels.OutcomeStatus.RETURNED,
    ]
    assert isinstance(report.outcomes[0].error, RuntimeError)
    logged = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(logged) == 1 and "broken" in logged[0].getMessage() and logged[0].exc_info


def test_handler_cancellation_propagates_and_is_not_logged(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    async def gives_up(signal: object) -> None:
        raise asyncio.CancelledError("stop")

    async def sibling(signal: object) -> None:
        await asyncio.sleep(5)

    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(gives_up)
    dispatcher.subscribe(sibling)

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await dispatcher.emit("envelope")

    _, elapsed = run_virtual(main)
    assert elapsed == 0  # the sibling was cancelled at once, not awaited to its end
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_emitter_cancellation_propagates_and_cancels_handlers(kernels: ModuleType) -> None:
    cancelled: list[str] = []

    async def waits(signal: object) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append("handler")
            raise

    dispatcher = _dispatcher(kernels, 5.0)
    dispatcher.subscribe(waits)

    async def main() -> None:
        task = asyncio.create_task(dispatcher.emit("envelope"))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert cancelled == ["handler"]


def test_predicate_failure_propagates(kernels: ModuleType) -> None:
    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(lambda s: None, predicate=lambda s: s["missing"])
    with pytest.raises(TypeError):
        run(dispatcher.emit("envelope"))


async def _broken(signal: object) -> None:
    raise RuntimeError("disk full")


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_failure_is_logged_even_when_a_siblings_cancellation_ends_the_stage(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """ADR-0120 D2 (TerminalCallback): "Ordinary exceptions are logged; handler cancellation and
    emitter cancellation are not logged as ordinary errors."
    """

    async def gives_up(signal: object) -> None:
        await asyncio.sleep(0.02)  # fails after its sibling has already failed
        raise asyncio.CancelledError("stop")

    dispatcher = _dispatcher(kernels, 1.0)
    dispatcher.subscribe(_broken, name="broken")
    dispatcher.subscribe(gives_up, name="gives_up")

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await dispatcher.emit("envelope")

    run(main())
    logged = _warnings(caplog)
    assert len(logged) == 1 and "broken" in logged[0].getMessage()
    assert logged[0].exc_info and isinstance(logged[0].exc_info[1], RuntimeError)


def test_failure_is_logged_even_when_the_emitters_cancellation_ends_the_stage(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """ADR-0120 D2 (TerminalCallback): "Ordinary exceptions are logged; handler cancellation and
    emitter cancellation are not logged as ordinary errors."
    """

    async def waits(signal: object) -> None:
        await asyncio.sleep(5)

    dispatcher = _dispatcher(kernels, 5.0)
    dispatcher.subscribe(_broken, name="broken")
    dispatcher.subscribe(waits, name="waits")

    async def main() -> None:
        task = asyncio.create_task(dispatcher.emit("envelope"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    logged = _warnings(caplog)
    assert len(logged) == 1 and "broken" in logged[0].getMessage()


def test_failures_are_logged_at_warning_on_the_owners_logger(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    """ADR-0120 D2 (TerminalCallback): "Ordinary exceptions are logged". lionagi 0.36.0 logs each one
    at WARNING on its module logger; a migrated registry keeps that logger.
    """
    owner = logging.getLogger("lionagi.state.lifecycle.callbacks")
    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.terminal_callback(), logger=owner)
    dispatcher.subscribe(_broken, name="broken")
    run(dispatcher.emit("envelope"))
    assert [(r.name, r.levelno) for r in _warnings(caplog)] == [(owner.name, logging.WARNING)]
