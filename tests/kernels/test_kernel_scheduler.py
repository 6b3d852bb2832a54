"""Scheduler profile fixtures: zero / one / many failures, cancellation, cancellation plus failures."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest

from .helpers import run, run_virtual


def _dispatcher(k: ModuleType, *handlers: Any) -> Any:
    dispatcher = k.FanoutDispatcher(k.DispatchPolicy.scheduler())
    for index, handler in enumerate(handlers):
        dispatcher.subscribe(handler, name=f"h{index}")
    return dispatcher


def _boom(message: str) -> Any:
    def handler(signal: object) -> None:
        raise ValueError(message)

    return handler


async def _cancel_self(signal: object) -> None:
    await asyncio.sleep(0)
    raise asyncio.CancelledError("handler gave up")


def test_zero_failures_reports_values_in_registration_order_despite_concurrency(kernels: ModuleType) -> None:
    async def slow(signal: object) -> str:
        await asyncio.sleep(0.03)
        return "slow"

    def returns_coroutine(signal: object) -> Any:
        return slow(signal)  # by return value: an awaitable result is awaited in the invocation

    report = run(_dispatcher(kernels, slow, lambda s: "fast", returns_coroutine).emit("sig"))
    assert report.names == ("h0", "h1", "h2")
    assert report.values == ("slow", "fast", "slow")
    assert {o.status for o in report.outcomes} == {kernels.OutcomeStatus.RETURNED}


def test_handlers_run_concurrently(kernels: ModuleType) -> None:
    async def nap(signal: object) -> None:
        await asyncio.sleep(0.05)

    _, elapsed = run_virtual(lambda: _dispatcher(kernels, nap, nap, nap, nap).emit("sig"))
    assert elapsed == pytest.approx(0.05)  # four 0.05 s naps side by side, not 0.2 s one after another


@pytest.mark.parametrize("count", [1, 3])
def test_ordinary_failures_raise_one_exception_group_even_for_one(kernels: ModuleType, count: int) -> None:
    ran: list[str] = []
    handlers = [_boom(f"e{i}") for i in range(count)] + [lambda s: ran.append("ok")]
    with pytest.raises(ExceptionGroup) as caught:
        run(_dispatcher(kernels, *handlers).emit("sig"))
    assert [str(e) for e in caught.value.exceptions] == [f"e{i}" for i in range(count)]
    assert ran == ["ok"]  # await_all: siblings finish


def test_predicate_failure_is_collected_as_a_handler_failure(kernels: ModuleType) -> None:
    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.scheduler())
    dispatcher.subscribe(lambda s: "x", predicate=lambda s: 1 / 0)
    with pytest.raises(ExceptionGroup) as caught:
        run(dispatcher.emit("sig"))
    assert isinstance(caught.value.exceptions[0], ZeroDivisionError)


def test_cancellation_alone_is_translated_and_not_an_ordinary_error(kernels: ModuleType) -> None:
    async def main() -> BaseException:
        with pytest.raises(kernels.HandlerCancelled) as caught:
            await _dispatcher(kernels, _cancel_self, lambda s: "ok").emit("sig")
        return caught.value

    error = run(main())
    assert isinstance(error, asyncio.CancelledError)
    assert not isinstance(error, Exception)
    assert isinstance(error.__cause__, asyncio.CancelledError)
    assert str(error.__cause__) == "handler gave up"


def test_cancellation_with_failures_keeps_the_failures_as_cause(kernels: ModuleType) -> None:
    async def main() -> BaseException:
        with pytest.raises(kernels.HandlerCancelled) as caught:
            await _dispatcher(kernels, _boom("a"), _cancel_self, _boom("b")).emit("sig")
        return caught.value

    error = run(main())
    cause = error.__cause__
    assert isinstance(cause, ExceptionGroup)
    assert [str(e) for e in cause.exceptions] == ["a", "b"]
    assert not any(isinstance(e, asyncio.CancelledError) for e in cause.exceptions)


class _Custom(BaseException):
    """A handler's own BaseException: neither an Exception nor a cancellation."""


def test_a_custom_base_exception_is_translated_like_a_cancellation(kernels: ModuleType) -> None:
    """lionagi's SchedulerSignalBus.emit takes every non-Exception result of its gather for a
    cancellation (`isinstance(r, BaseException) and not isinstance(r, Exception)`) and raises
    SchedulerHandlerCancelled from the first; the other handlers finish first."""
    seen: list[str] = []
    custom = _Custom("h0 gave up")

    def raises_custom(signal: object) -> None:
        raise custom

    async def later(signal: object) -> None:
        await asyncio.sleep(0.01)
        seen.append("later")

    dispatcher = _dispatcher(kernels, raises_custom, later)
    with pytest.raises(kernels.HandlerCancelled) as caught:
        run(dispatcher.emit("signal"))
    assert caught.value.__cause__ is custom and seen == ["later"]
    dispatcher = _dispatcher(kernels, raises_custom, _boom("ordinary"))
    with pytest.raises(kernels.HandlerCancelled) as caught:
        run(dispatcher.emit("signal"))
    assert isinstance(caught.value.__cause__, ExceptionGroup)
    assert [str(e) for e in caught.value.__cause__.exceptions] == ["ordinary"]

