"""Broadcaster profile: sequential, isolated and logged, only asyncio coroutines are awaited."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Generator
from types import ModuleType
from typing import Any

import pytest

from .helpers import run


class RecordingAwaitable:
    """An awaitable that is not an asyncio coroutine; records whether anyone awaited it."""

    def __init__(self) -> None:
        self.awaited = False

    def __await__(self) -> Generator[Any, None, str]:
        self.awaited = True
        return "awaited"
        yield  # pragma: no cover - makes this a generator


class Event:
    pass


def _dispatcher(k: ModuleType) -> Any:
    return k.FanoutDispatcher(k.DispatchPolicy.broadcaster(), signal_type=Event)


def test_non_coroutine_awaitable_is_not_awaited(kernels: ModuleType) -> None:
    awaitable = RecordingAwaitable()
    dispatcher = _dispatcher(kernels)
    dispatcher.subscribe(lambda e: awaitable)
    report = run(dispatcher.emit(Event()))
    assert awaitable.awaited is False
    assert report.outcomes[0].status is kernels.OutcomeStatus.RETURNED
    assert report.outcomes[0].value is awaitable


def test_coroutine_is_awaited_in_sequence(kernels: ModuleType) -> None:
    order: list[str] = []

    async def first(event: Event) -> None:
        await asyncio.sleep(0.02)
        order.append("first")

    dispatcher = _dispatcher(kernels)
    dispatcher.subscribe(first)
    dispatcher.subscribe(lambda e: order.append("second"))
    run(dispatcher.emit(Event()))
    assert order == ["first", "second"]


def test_failures_are_logged_and_later_subscribers_still_run(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []

    def broken(event: Event) -> None:
        raise RuntimeError("subscriber bug")

    dispatcher = _dispatcher(kernels)
    dispatcher.subscribe(broken)
    dispatcher.subscribe(lambda e: ran.append("after"))
    report = run(dispatcher.emit(Event()))
    assert ran == ["after"]
    assert [o.status for o in report.outcomes] == [
        kernels.OutcomeStatus.FAILED,
        kernels.OutcomeStatus.RETURNED,
    ]
    assert any("broken" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


def test_wrong_event_type_raises_value_error_before_dispatch(kernels: ModuleType) -> None:
    """ADR-0120 D2: "...returned_awaitables=Unset, no deadline, and pre-dispatch event-type validation
    that raises ValueError." The message is lionagi's Broadcaster.broadcast one, word for word.
    """
    ran: list[str] = []
    dispatcher = _dispatcher(kernels)
    dispatcher.subscribe(lambda e: ran.append("x"))
    with pytest.raises(ValueError) as caught:
        run(dispatcher.emit("not an event"))
    assert str(caught.value) == "Event must be of type Event"
    assert ran == []

    class SubEvent(Event):
        pass

    run(dispatcher.emit(SubEvent()))  # an isinstance check, as lionagi's: a subclass is accepted
    assert ran == ["x"]


def test_broadcaster_profile_cannot_be_built_without_its_event_type(kernels: ModuleType) -> None:
    """ADR-0120 D2: "The Broadcaster constructor is pinned to one selector="all", SEQUENTIAL, INLINE,
    BY_RETURN_VALUE, returned_value_classifier=ASYNCIO_COROUTINE_ONLY, AWAIT_IN_INVOCATION,
    sync_entry=UNAVAILABLE, invocation=(ISOLATE, AWAIT_ALL, LOG_ONLY, PROPAGATE), returned_awaitables=Unset,
    no deadline, and pre-dispatch event-type validation that raises ValueError."
    """
    profile = kernels.DispatchPolicy.broadcaster()
    rebuilt = kernels.DispatchPolicy(
        phases=(dataclasses.replace(profile.phases[0]),), preserve_registration_order=False
    )
    for policy in (profile, rebuilt):
        with pytest.raises(kernels.PolicyError) as caught:
            kernels.FanoutDispatcher(policy)
        assert caught.value.rules == ("broadcaster-requires-signal-type",)
    for not_a_type in ("Event", (), (Event, "x")):
        with pytest.raises(TypeError, match="signal_type"):
            kernels.FanoutDispatcher(profile, signal_type=not_a_type)
    kernels.FanoutDispatcher(kernels.DispatchPolicy.scheduler())  # only the Broadcaster needs a type


def test_cancellation_propagates(kernels: ModuleType) -> None:
    async def cancels(event: Event) -> None:
        raise asyncio.CancelledError("bye")

    dispatcher = _dispatcher(kernels)
    dispatcher.subscribe(cancels)

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await dispatcher.emit(Event())

    run(main())
