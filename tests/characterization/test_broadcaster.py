"""Characterization of lionagi 0.36.0's Broadcaster (lionagi/service/broadcaster.py)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from lionagi.service.broadcaster import Broadcaster

from .helpers import ProbeAwaitable, exc_infos, messages, outcome, record, run

pytestmark = pytest.mark.characterization

LOGGER = "lionagi.service.broadcaster"


class Ping:
    """The event type the test broadcaster accepts."""


@pytest.fixture
def bus() -> type[Broadcaster]:
    """A fresh subclass: its own subscriber list and singleton slot; no test leaks into another."""

    class PingBroadcaster(Broadcaster):
        _event_type = Ping  # type: ignore[assignment]

    return PingBroadcaster


def tracer(trace: list[str], label: str, *, fail: BaseException | None = None) -> Any:
    def callback(event: Any) -> None:
        trace.append(label)
        if fail is not None:
            raise fail

    return callback


def test_wrong_event_type_raises_value_error_before_any_subscriber(bus: type[Broadcaster]) -> None:
    trace: list[str] = []
    bus.subscribe(tracer(trace, "never"))
    error = run(outcome(bus.broadcast(object()))).error
    assert type(error) is ValueError and str(error) == "Event must be of type Ping"
    assert trace == []


def test_subscribers_run_sequentially_in_subscription_order(bus: type[Broadcaster]) -> None:
    trace: list[str] = []

    async def slow(event: Any) -> None:
        trace.append("async start")
        for _ in range(3):
            await asyncio.sleep(0)
        trace.append("async end")

    bus.subscribe(tracer(trace, "sync 1"))
    bus.subscribe(slow)
    bus.subscribe(tracer(trace, "sync 2"))
    assert run(bus.broadcast(Ping())) is None
    assert trace == ["sync 1", "async start", "async end", "sync 2"]


def test_coroutine_a_sync_callback_returns_is_awaited_before_the_next(
    bus: type[Broadcaster],
) -> None:
    trace: list[str] = []
    bus.subscribe(lambda event: record(trace, "returned coroutine ran"))
    bus.subscribe(tracer(trace, "next"))
    run(bus.broadcast(Ping()))
    assert trace == ["returned coroutine ran", "next"]


def test_non_coroutine_awaitables_are_never_awaited(bus: type[Broadcaster]) -> None:
    trace: list[str] = []
    futures: list[asyncio.Future[Any]] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        bus.subscribe(lambda event: ProbeAwaitable(trace, "custom awaitable awaited"))
        bus.subscribe(lambda event: futures.append(loop.create_future()) or futures[-1])
        bus.subscribe(tracer(trace, "next"))
        await bus.broadcast(Ping())  # would hang on the pending future if it were awaited

    run(main())
    assert trace == ["next"]
    assert not futures[0].done()


def test_failure_is_logged_at_error_with_traceback_and_isolated(
    bus: type[Broadcaster], caplog: pytest.LogCaptureFixture
) -> None:
    trace: list[str] = []
    boom = ValueError("boom")
    bus.subscribe(tracer(trace, "failing", fail=boom))
    bus.subscribe(tracer(trace, "after"))
    assert run(bus.broadcast(Ping())) is None
    assert trace == ["failing", "after"]
    assert messages(caplog, LOGGER) == [("ERROR", "Error in subscriber callback: boom")]
    assert exc_infos(caplog, LOGGER) == [boom]


def test_several_failures_sync_and_awaited_are_each_logged_in_order(
    bus: type[Broadcaster], caplog: pytest.LogCaptureFixture
) -> None:
    async def failing(event: Any) -> None:
        raise KeyError("async")

    bus.subscribe(tracer([], "sync", fail=ValueError("sync")))
    bus.subscribe(failing)
    run(bus.broadcast(Ping()))
    assert messages(caplog, LOGGER) == [
        ("ERROR", "Error in subscriber callback: sync"),
        ("ERROR", "Error in subscriber callback: 'async'"),
    ]


def test_cancellation_from_a_subscriber_propagates_and_skips_the_rest(
    bus: type[Broadcaster], caplog: pytest.LogCaptureFixture
) -> None:
    trace: list[str] = []
    cancelled = asyncio.CancelledError("subscriber gave up")
    bus.subscribe(tracer(trace, "cancelling", fail=cancelled))
    bus.subscribe(tracer(trace, "skipped"))
    assert run(outcome(bus.broadcast(Ping()))).error is cancelled
    assert trace == ["cancelling"]
    assert messages(caplog, LOGGER) == []


def test_subscribe_is_idempotent_and_unsubscribe_removes(bus: type[Broadcaster]) -> None:
    trace: list[str] = []
    callback = tracer(trace, "once")
    bus.subscribe(callback)
    bus.subscribe(callback)
    run(bus.broadcast(Ping()))
    bus.unsubscribe(callback)
    run(bus.broadcast(Ping()))
    assert trace == ["once"]
    assert bus.get_subscriber_count() == 0


def test_bound_method_subscriber_is_held_weakly_and_dropped_with_its_object(
    bus: type[Broadcaster],
) -> None:
    trace: list[str] = []

    class Listener:
        def on_ping(self, event: Any) -> None:
            trace.append("bound method")

    listener = Listener()
    bus.subscribe(listener.on_ping)
    bus.subscribe(tracer(trace, "function"))
    run(bus.broadcast(Ping()))
    del listener
    gc.collect()
    run(bus.broadcast(Ping()))
    assert trace == ["bound method", "function", "function"]
    assert bus.get_subscriber_count() == 1


def test_subscribers_are_snapshotted_when_the_broadcast_starts(bus: type[Broadcaster]) -> None:
    trace: list[str] = []
    late = tracer(trace, "late")
    bus.subscribe(lambda event: (trace.append("subscribing"), bus.subscribe(late)))
    run(bus.broadcast(Ping()))
    assert trace == ["subscribing"]
    assert bus.get_subscriber_count() == 2


def test_instance_is_a_per_subclass_singleton_sharing_class_level_subscribers(
    bus: type[Broadcaster],
) -> None:
    class OtherBroadcaster(Broadcaster):
        _event_type = Ping  # type: ignore[assignment]

    bus.subscribe(tracer([], "only on bus"))
    assert bus() is bus()
    assert bus() is not OtherBroadcaster()
    assert (bus.get_subscriber_count(), OtherBroadcaster.get_subscriber_count()) == (1, 0)


def test_base_broadcaster_without_event_type_raises_attribute_error() -> None:
    error = run(outcome(Broadcaster.broadcast(Ping()))).error
    assert type(error) is AttributeError
