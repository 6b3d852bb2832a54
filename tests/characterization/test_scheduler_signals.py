"""Characterization of lionagi 0.36.0's SchedulerSignalBus.emit (studio/scheduler/signals.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lionagi.studio.scheduler.signals import (
    SchedulerHandlerCancelled,
    SchedulerSignalBus,
    ScheduleRunCancelled,
    ScheduleRunFailed,
    ScheduleRunSucceeded,
)

from .helpers import (
    Barrier,
    ExceptionGroup,
    ProbeAwaitable,
    cancel_when_entered,
    loop_thread_probe,
    outcome,
    record,
    rendezvous,
    run,
)

pytestmark = pytest.mark.characterization

GROUP_MESSAGE = "{} scheduler signal handler(s) failed for ScheduleRunFailed"


def failed(run_id: str = "run-1") -> ScheduleRunFailed:
    return ScheduleRunFailed(run_id=run_id, schedule_id="sched-1", reason_code="boom")


def returning(value: Any) -> Any:
    def handler(signal: Any) -> Any:
        return value

    return handler


def raising(error: BaseException) -> Any:
    async def handler(signal: Any) -> None:
        raise error

    return handler


def test_handlers_start_concurrently_and_results_come_back_in_registration_order() -> None:
    trace: list[str] = []

    async def main() -> list[Any]:
        barrier = Barrier(2)
        bus = SchedulerSignalBus()
        bus.observe(ScheduleRunFailed, handler=lambda s: rendezvous(barrier, trace, "first"))
        bus.observe(ScheduleRunFailed, handler=lambda s: rendezvous(barrier, trace, "second"))
        return await bus.emit(failed())

    assert run(main()) == ["first", "second"]
    assert trace[:2] == ["first waiting", "second waiting"]


def test_type_keys_select_candidates_and_predicates_and_compose() -> None:
    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=returning("failed only"))
    bus.observe(ScheduleRunSucceeded, handler=returning("succeeded only"))
    bus.observe(handler=returning("every signal"))
    bus.observe(ScheduleRunFailed, lambda s: s.run_id == "other", handler=returning("other run"))
    bus.observe(ScheduleRunFailed, lambda s: s.reason_code == "boom", handler=returning(None))
    # a non-matching predicate leaves no entry; a None result does
    assert run(bus.emit(failed())) == ["failed only", "every signal", None]


def test_sync_handler_runs_inline_on_the_loop_thread() -> None:
    trace: list[str] = []
    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=loop_thread_probe(trace, "sync handler"))
    run(bus.emit(failed()))
    assert trace == ["sync handler on loop thread"]


@pytest.mark.parametrize("kind", ["coroutine", "custom awaitable", "asyncio.Future"])
def test_awaitable_returned_by_a_sync_handler_is_awaited_in_its_invocation(kind: str) -> None:
    trace: list[str] = []

    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()

        def handler(signal: Any) -> Any:
            if kind == "coroutine":
                return record(trace, "awaited", "result")
            if kind == "custom awaitable":
                return ProbeAwaitable(trace, "awaited", "result")
            future = loop.create_future()
            loop.call_soon(lambda: (trace.append("awaited"), future.set_result("result")))
            return future

        bus = SchedulerSignalBus()
        bus.observe(ScheduleRunFailed, handler=handler)
        return await bus.emit(failed())

    assert run(main()) == ["result"]
    assert trace == ["awaited"]


def test_one_failure_is_raised_in_a_group_after_every_handler_completed() -> None:
    trace: list[str] = []
    boom = ValueError("boom")

    async def slow(signal: Any) -> str:
        for _ in range(3):
            await asyncio.sleep(0)
        trace.append("sibling completed")
        return "done"

    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=raising(boom))
    bus.observe(ScheduleRunFailed, handler=slow)
    error = run(outcome(bus.emit(failed()))).error
    assert type(error) is ExceptionGroup
    assert error.message == GROUP_MESSAGE.format(1)
    assert error.exceptions == (boom,)
    assert trace == ["sibling completed"]


def test_several_failures_are_grouped_in_registration_order() -> None:
    first, second = KeyError("first"), ValueError("second")

    async def late(signal: Any) -> None:
        await asyncio.sleep(0)
        raise first

    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=late)  # fails last, listed first
    bus.observe(ScheduleRunFailed, handler=raising(second))
    error = run(outcome(bus.emit(failed()))).error
    assert error.message == GROUP_MESSAGE.format(2)
    assert error.exceptions == (first, second)


def test_raising_predicate_is_collected_as_a_handler_failure() -> None:
    trace: list[str] = []
    bad = AttributeError("no such field")

    def predicate(signal: Any) -> bool:
        raise bad

    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, predicate, handler=lambda s: trace.append("never"))
    bus.observe(ScheduleRunFailed, handler=lambda s: trace.append("other handler"))
    error = run(outcome(bus.emit(failed()))).error
    assert error.exceptions == (bad,)
    assert trace == ["other handler"]


def test_handler_cancellation_is_translated_and_siblings_still_complete() -> None:
    trace: list[str] = []
    cancelled = asyncio.CancelledError("handler gave up")

    async def slow(signal: Any) -> None:
        await asyncio.sleep(0)
        trace.append("sibling completed")

    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=raising(cancelled))
    bus.observe(ScheduleRunFailed, handler=slow)
    error = run(outcome(bus.emit(failed()))).error
    assert type(error) is SchedulerHandlerCancelled
    assert isinstance(error, asyncio.CancelledError)
    assert str(error) == "handler gave up"
    assert error.__cause__ is cancelled
    assert trace == ["sibling completed"]


def test_cancellation_beside_failures_raises_the_translation_with_the_failures_as_cause() -> None:
    cancelled, boom = asyncio.CancelledError("gave up"), ValueError("boom")
    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=raising(boom))
    bus.observe(ScheduleRunFailed, handler=raising(cancelled))
    error = run(outcome(bus.emit(failed()))).error
    assert type(error) is SchedulerHandlerCancelled
    assert type(error.__cause__) is ExceptionGroup
    assert error.__cause__.message == GROUP_MESSAGE.format(1)
    assert error.__cause__.exceptions == (boom,)


def test_emitter_cancellation_cancels_the_handlers_and_propagates_untranslated() -> None:
    trace: list[str] = []

    async def main() -> Any:
        entered = asyncio.Event()

        async def blocking(signal: Any) -> None:
            entered.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                trace.append("handler cancelled")
                raise

        bus = SchedulerSignalBus()
        bus.observe(ScheduleRunFailed, handler=blocking)
        return await cancel_when_entered(bus.emit(failed()), entered)

    error = run(main()).error
    assert type(error) is asyncio.CancelledError
    assert trace == ["handler cancelled"]


def test_run_counters_count_emitted_received_and_truthy_results_even_for_failures() -> None:
    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunFailed, handler=returning("acted"))
    bus.observe(ScheduleRunFailed, handler=returning(""))
    bus.observe(ScheduleRunFailed, handler=raising(ValueError("boom")))
    bus.observe(ScheduleRunCancelled, handler=returning("acted"))
    run(outcome(bus.emit(failed())))
    run(bus.emit(ScheduleRunSucceeded(run_id="run-1")))
    assert bus.pop_run_counters("run-1") == {
        "emitted": {"ScheduleRunFailed": 1, "ScheduleRunSucceeded": 1},
        "received": 3,
        "acted_on": 1,
    }
    assert bus.pop_run_counters("run-1") is None


def test_no_candidate_returns_an_empty_list() -> None:
    bus = SchedulerSignalBus()
    bus.observe(ScheduleRunSucceeded, handler=returning("never"))
    assert run(bus.emit(failed())) == []
