"""Characterization of lionagi 0.36.0's TerminalCallbackRegistry (state/lifecycle/callbacks.py)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio.to_thread
import pytest
from lionagi.state.lifecycle import callbacks as module
from lionagi.state.lifecycle.callbacks import (
    EntityRef,
    RunTerminalEnvelope,
    TerminalCallbackRegistry,
)

from .helpers import (
    Barrier,
    ProbeAwaitable,
    assert_never_started,
    cancel_when_entered,
    exc_infos,
    lionagi_messages,
    loop_thread_probe,
    messages,
    record,
    rendezvous,
    run,
)

pytestmark = pytest.mark.characterization

LOGGER = "lionagi.state.lifecycle.callbacks"
# The registry's shared deadline. The deadline tests use a small one so they stay fast: their slow
# handlers wait forever, so only the deadline can end them, however loaded the machine. Every
# other test uses one no run outlives: a sync handler's worker thread may take longer than a
# small budget to start on a loaded machine, and the test would then read the deadline instead
# of the behaviour it is about.
BUDGET = 0.05
NO_DEADLINE = 3600.0


def envelope(kind: str = "session", entity_id: str = "s-1") -> RunTerminalEnvelope:
    return RunTerminalEnvelope(
        event_id="ev-1", entity=EntityRef(kind, entity_id), previous_status="running",
        terminal_status="completed", reason_code="ok", occurred_at=0.0,
    )


def registry(budget: float = NO_DEADLINE, **handlers: Any) -> TerminalCallbackRegistry:
    reg = TerminalCallbackRegistry(budget_seconds=budget)
    for name, handler in handlers.items():
        reg.register(name, handler)
    return reg


def tracer(trace: list[str], label: str, *, fail: BaseException | None = None) -> Any:
    async def handler(env: RunTerminalEnvelope) -> None:
        trace.append(label)
        if fail is not None:
            raise fail

    return handler


def waiting_forever(trace: list[str], label: str) -> Any:
    async def handler(env: RunTerminalEnvelope) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            trace.append(f"{label} cancelled")
            raise

    return handler


def test_handlers_start_in_registration_order_and_run_concurrently() -> None:
    trace: list[str] = []

    async def main() -> None:
        barrier = Barrier(2)

        def party(label: str) -> Any:
            async def handler(env: Any) -> None:
                await rendezvous(barrier, trace, label)

            return handler

        reg = TerminalCallbackRegistry(budget_seconds=NO_DEADLINE)
        reg.register("first", party("first"))
        reg.register("second", party("second"))
        assert await reg.emit(envelope()) is None

    run(main())
    assert trace[:2] == ["first waiting", "second waiting"]
    assert sorted(trace[2:]) == ["first released", "second released"]


def test_sync_handler_is_offloaded_to_a_worker_thread_async_one_runs_on_the_loop() -> None:
    trace: list[str] = []

    async def on_loop(env: Any) -> None:
        loop_thread_probe(trace, "async handler")()

    run(registry(sync=loop_thread_probe(trace, "sync handler"), async_=on_loop).emit(envelope()))
    assert sorted(trace) == ["async handler on loop thread", "sync handler on worker thread"]


@pytest.mark.parametrize("kind", ["coroutine", "custom awaitable"])
def test_awaitable_returned_by_an_offloaded_sync_handler_is_awaited_on_the_loop(kind: str) -> None:
    trace: list[str] = []
    probe = loop_thread_probe(trace, "returned awaitable ran")

    async def body() -> None:
        probe()

    def handler(env: Any) -> Any:
        return body() if kind == "coroutine" else ProbeAwaitable(trace, "custom awaitable awaited")

    run(registry(wrapper=handler).emit(envelope()))
    if kind == "coroutine":
        assert trace == ["returned awaitable ran on loop thread"]
    else:
        assert trace == ["custom awaitable awaited"]


def test_awaitable_returned_by_a_declared_async_handler_is_not_awaited() -> None:
    returned: list[Any] = []

    async def handler(env: Any) -> Any:
        returned.append(record([], "never"))
        return returned[-1]

    run(registry(nested=handler).emit(envelope()))
    assert_never_started(returned[0])


def test_failure_is_logged_at_warning_with_traceback_and_isolated(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []
    boom = ValueError("boom")
    reg = registry(bad=tracer(trace, "bad", fail=boom), good=tracer(trace, "good"))
    assert run(reg.emit(envelope())) is None
    assert trace == ["bad", "good"]
    assert messages(caplog, LOGGER) == [
        ("WARNING", "terminal callback handler 'bad' raised for event ev-1 (entity session/s-1)")
    ]
    assert exc_infos(caplog, LOGGER) == [boom]


def test_every_failure_sync_async_and_interpreter_exit_is_logged_and_swallowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def sync_bad(env: Any) -> None:
        raise KeyError("sync")

    errors = [KeyError, SystemExit, KeyboardInterrupt]
    reg = registry(sync_bad=sync_bad, exiting=tracer([], "exiting", fail=SystemExit(2)),
                   interrupted=tracer([], "interrupted", fail=KeyboardInterrupt()))
    assert run(reg.emit(envelope())) is None
    logged = sorted(type(e).__name__ for e in exc_infos(caplog, LOGGER))
    assert logged == sorted(e.__name__ for e in errors)
    assert {level for level, _ in messages(caplog, LOGGER)} == {"WARNING"}


def test_shared_deadline_cancels_slow_handlers_silently_and_emit_returns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []
    reg = registry(BUDGET, fast=tracer(trace, "fast done"), slow_a=waiting_forever(trace, "slow a"),
                   slow_b=waiting_forever(trace, "slow b"))
    # handlers waiting forever: only the shared budget ends the emission (a hang would hit
    # the run's guard)
    assert run(reg.emit(envelope())) is None
    # the cancellation order of the slow ones is the task group's, not registration order
    assert trace[0] == "fast done"
    assert sorted(trace[1:]) == ["slow a cancelled", "slow b cancelled"]
    assert lionagi_messages(caplog) == []


def test_deadline_returns_while_an_offloaded_sync_handler_is_still_blocked() -> None:
    release, finished = threading.Event(), threading.Event()

    def blocked(env: Any) -> None:
        release.wait(2.0)
        finished.set()

    async def main() -> bool:
        await registry(BUDGET, blocked=blocked).emit(envelope())
        still_running = not finished.is_set()
        release.set()
        await anyio.to_thread.run_sync(finished.wait, 2.0)
        return still_running

    assert run(main()) is True  # the thread was abandoned at the deadline, not joined


def test_handler_cancellation_cancels_its_siblings_unlogged_and_emit_returns_normally(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []

    async def main() -> list[str]:
        # a budget no run outlives: were the sibling ended by the deadline, not by the
        # cancellation, the run's guard would fail the test first
        reg = TerminalCallbackRegistry(budget_seconds=3600.0)
        reg.register("sibling", waiting_forever(trace, "sibling"))
        reg.register("cancelling", tracer(trace, "cancelling", fail=asyncio.CancelledError("x")))
        assert await reg.emit(envelope()) is None
        await asyncio.sleep(0)  # the emitting task itself is not left cancelled
        return trace

    assert run(main()) == ["cancelling", "sibling cancelled"]
    assert lionagi_messages(caplog) == []


def test_emitter_cancellation_cancels_the_handlers_and_propagates_unlogged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []

    async def main() -> Any:
        entered = asyncio.Event()

        async def blocking(env: Any) -> None:
            entered.set()
            await waiting_forever(trace, "handler")(env)

        reg = TerminalCallbackRegistry(budget_seconds=NO_DEADLINE)
        reg.register("blocking", blocking)
        return await cancel_when_entered(reg.emit(envelope()), entered)

    assert isinstance(run(main()).error, asyncio.CancelledError)
    assert trace == ["handler cancelled"]
    assert lionagi_messages(caplog) == []


def test_kind_and_id_filters_select_and_overrides_replace_the_other_matches() -> None:
    trace: list[str] = []
    reg = TerminalCallbackRegistry(budget_seconds=NO_DEADLINE)
    reg.register("sessions", tracer(trace, "sessions"), kinds=["session"])
    reg.register("plays", tracer(trace, "plays"), kinds=["play"])
    reg.register("s-2 only", tracer(trace, "s-2 only"), ids=["s-2"])
    run(reg.emit(envelope()))
    reg.register("override", tracer(trace, "override"), kinds=["play"], override=True)
    run(reg.emit(envelope("play", "p-1")))
    run(reg.emit(envelope()))  # the override does not match a session: the others run
    assert trace == ["sessions", "override", "sessions"]


def test_same_name_registration_replaces_the_handler_in_place() -> None:
    trace: list[str] = []
    reg = TerminalCallbackRegistry(budget_seconds=NO_DEADLINE)

    async def first_then(env: Any) -> None:
        trace.append("first slot")
        await asyncio.sleep(0)

    reg.register("a", first_then)
    reg.register("b", tracer(trace, "b"))
    reg.register("a", tracer(trace, "a replaced"))
    run(reg.emit(envelope()))
    assert trace == ["a replaced", "b"]


def test_default_budget_is_ten_seconds_for_the_whole_fan_out() -> None:
    assert module.HANDLER_BUDGET_SECONDS == 10.0
    assert module.DEFAULT_TERMINAL_CALLBACKS._budget_seconds == 10.0
