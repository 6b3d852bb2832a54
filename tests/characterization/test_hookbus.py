"""Characterization of lionagi 0.36.0's HookBus (lionagi/hooks/bus.py): emit and blocking_emit."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from lionagi.hooks.bus import HookBus, HookPoint, HookSignal, StopHook
from lionagi.session.observer import SessionObserver
from lionagi.state.compat import StateCompatibilityRefused

from .helpers import (
    ProbeAwaitable,
    cancel_when_entered,
    exc_infos,
    messages,
    outcome,
    record,
    run,
)

pytestmark = pytest.mark.characterization

LOGGER = "lionagi.hooks"
OBSERVED = HookPoint.TOOL_POST  # an ordinary (non-blocking) point


class Abort(BaseException):
    """A BaseException that is neither a cancellation nor an interpreter exit."""


def tracer(trace: list[str], label: str, *, fail: BaseException | None = None) -> Any:
    def handler(**kwargs: Any) -> None:
        trace.append(label)
        if fail is not None:
            raise fail

    return handler


def recorded(observer: SessionObserver) -> list[tuple[HookPoint | None, dict[str, Any]]]:
    """The HookSignals the bus recorded on its observer, in order."""
    return [(s.point, s.kwargs) for s in observer.flow.items if isinstance(s, HookSignal)]


def test_handlers_run_sequentially_in_registration_order_sync_and_async() -> None:
    trace: list[str] = []

    async def slow_async(**kwargs: Any) -> None:
        trace.append("async start")
        for _ in range(3):
            await asyncio.sleep(0)
        trace.append("async end")

    bus = HookBus()
    bus.on(OBSERVED, tracer(trace, "sync 1"))
    bus.on(OBSERVED, slow_async)
    bus.on(OBSERVED, tracer(trace, "sync 2"))
    assert run(bus.emit(OBSERVED)) is None
    assert trace == ["sync 1", "async start", "async end", "sync 2"]


def test_handlers_receive_emit_kwargs_as_keywords_only_and_a_fresh_dict_each() -> None:
    seen: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    shared: list[str] = []

    def mutating(*args: Any, **kwargs: Any) -> None:
        seen.append((args, dict(kwargs)))
        kwargs["added"] = True
        kwargs["items"].append("touched")

    def reading(*args: Any, **kwargs: Any) -> None:
        seen.append((args, dict(kwargs)))

    bus = HookBus()
    bus.on(OBSERVED, mutating)
    bus.on(OBSERVED, reading)
    run(bus.emit(OBSERVED, tool="grep", items=shared))
    # the kwargs dict is rebuilt per call, but the values are shared: a handler's mutation of a
    # mutable value is seen by every later handler
    assert seen == [((), {"tool": "grep", "items": ["touched"]})] * 2
    assert shared == ["touched"]


@pytest.mark.parametrize("kind", ["coroutine", "custom awaitable", "asyncio.Future"])
def test_returned_awaitable_of_any_kind_is_awaited_before_the_next_handler(kind: str) -> None:
    trace: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def returns_awaitable(**kwargs: Any) -> Any:
            trace.append("sync handler returned")
            if kind == "coroutine":
                return record(trace, "awaitable ran")
            if kind == "custom awaitable":
                return ProbeAwaitable(trace, "awaitable ran")
            future = loop.create_future()
            loop.call_soon(lambda: (trace.append("awaitable ran"), future.set_result(None)))
            return future

        bus = HookBus()
        bus.on(OBSERVED, returns_awaitable)
        bus.on(OBSERVED, tracer(trace, "next handler"))
        await bus.emit(OBSERVED)

    run(main())
    assert trace == ["sync handler returned", "awaitable ran", "next handler"]


@pytest.mark.parametrize("method", ["emit", "blocking_emit"])
def test_stop_hook_skips_remaining_handlers_and_emit_returns_normally(method: str) -> None:
    trace: list[str] = []
    bus = HookBus(SessionObserver())
    bus.on(HookPoint.TOOL_PRE, tracer(trace, "first"))
    bus.on(HookPoint.TOOL_PRE, tracer(trace, "stopper", fail=StopHook("enough")))
    bus.on(HookPoint.TOOL_PRE, tracer(trace, "skipped"))
    assert run(getattr(bus, method)(HookPoint.TOOL_PRE, tool="grep")) is None
    assert trace == ["first", "stopper"]
    # a stopped emission is still recorded, as an ordinary one
    assert recorded(bus._observer) == [(HookPoint.TOOL_PRE, {"tool": "grep"})]


def test_ordinary_failure_is_logged_with_traceback_and_later_handlers_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []
    boom = ValueError("boom")
    bus = HookBus()
    bus.on(OBSERVED, tracer(trace, "failing", fail=boom))
    bus.on(OBSERVED, tracer(trace, "after"))
    assert run(bus.emit(OBSERVED)) is None
    assert trace == ["failing", "after"]
    assert messages(caplog, LOGGER) == [("ERROR", "Hook failed: tool.post")]
    assert exc_infos(caplog, LOGGER) == [boom]


def test_several_failures_are_each_logged_once_in_order_and_nothing_is_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second = ValueError("one"), KeyError("two")

    async def async_failing(**kwargs: Any) -> None:
        raise second

    bus = HookBus()
    bus.on(OBSERVED, tracer([], "sync", fail=first))
    bus.on(OBSERVED, async_failing)
    assert run(bus.emit(OBSERVED)) is None
    assert messages(caplog, LOGGER) == [("ERROR", "Hook failed: tool.post")] * 2
    assert exc_infos(caplog, LOGGER) == [first, second]


@pytest.mark.parametrize("point", [HookPoint.TOOL_PRE, HookPoint.USER_PROMPT_SUBMIT])
def test_blocking_point_propagates_the_first_failure_and_skips_later_handlers(
    point: HookPoint, caplog: pytest.LogCaptureFixture
) -> None:
    trace: list[str] = []
    denied = PermissionError("not allowed")
    bus = HookBus()
    bus.on(point, tracer(trace, "guard", fail=denied))
    bus.on(point, tracer(trace, "skipped"))
    result = run(outcome(bus.emit(point, tool="rm")))
    assert result.error is denied
    assert trace == ["guard"]
    assert messages(caplog, LOGGER) == []


def test_blocking_emit_propagates_on_any_point_not_only_the_two_blocking_ones() -> None:
    bus = HookBus()
    bus.on(OBSERVED, tracer([], "guard", fail=ValueError("veto")))
    result = run(outcome(bus.blocking_emit(OBSERVED)))
    assert isinstance(result.error, ValueError) and str(result.error) == "veto"


def test_blocking_failure_is_recorded_as_denied_before_it_propagates() -> None:
    observer = SessionObserver()
    bus = HookBus(observer)
    bus.on(HookPoint.TOOL_PRE, tracer([], "guard", fail=PermissionError("no rm")))
    result = run(outcome(bus.emit(HookPoint.TOOL_PRE, tool="rm", db="handle")))
    assert isinstance(result.error, PermissionError)
    # every record leaves out the store handle a handler was given as "db"
    assert recorded(observer) == [
        (HookPoint.TOOL_PRE, {"tool": "rm", "denied": True, "exception": "PermissionError: no rm"})
    ]


def test_emission_is_recorded_after_handlers_without_db_and_never_for_message_add() -> None:
    observer = SessionObserver()
    trace: list[str] = []
    bus = HookBus(observer)
    bus.on(OBSERVED, lambda **kw: trace.append(f"handler saw {len(recorded(observer))} records"))
    run(bus.emit(OBSERVED, tool="grep", db="handle"))
    run(bus.emit(HookPoint.MESSAGE_ADD, message="m"))
    assert trace == ["handler saw 0 records"]
    assert recorded(observer) == [(OBSERVED, {"tool": "grep"})]


def test_record_failure_on_the_observer_is_logged_and_swallowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class BrokenObserver:
        async def emit(self, signal: Any) -> None:
            raise RuntimeError("transport down")

    bus = HookBus(BrokenObserver())  # type: ignore[arg-type]
    assert run(bus.emit(OBSERVED)) is None
    assert messages(caplog, LOGGER) == [("ERROR", "HookSignal record failed: tool.post")]


def test_store_refusal_from_an_ordinary_point_propagates_and_is_recorded_first() -> None:
    trace: list[str] = []
    refusal = StateCompatibilityRefused("insert", "v1", "read-only")
    observer = SessionObserver()
    bus = HookBus(observer)
    bus.on(OBSERVED, tracer(trace, "refused", fail=refusal))
    bus.on(OBSERVED, tracer(trace, "skipped"))
    result = run(outcome(bus.emit(OBSERVED, tool="grep")))
    assert result.error is refusal
    assert trace == ["refused"]
    assert recorded(observer) == [
        (OBSERVED, {"tool": "grep", "exception": f"StateCompatibilityRefused: {refusal}"})
    ]


def test_base_exception_from_a_handler_propagates_unlogged_and_unrecorded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []
    abort = Abort("stop the world")
    observer = SessionObserver()
    bus = HookBus(observer)
    bus.on(OBSERVED, tracer(trace, "aborting", fail=abort))
    bus.on(OBSERVED, tracer(trace, "skipped"))
    assert run(outcome(bus.emit(OBSERVED))).error is abort
    assert trace == ["aborting"]
    assert messages(caplog, LOGGER) == []
    assert recorded(observer) == []


def test_handler_cancellation_propagates_out_of_emit_and_skips_later_handlers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []
    cancelled = asyncio.CancelledError("handler gave up")
    bus = HookBus(SessionObserver())
    bus.on(OBSERVED, tracer(trace, "cancelling", fail=cancelled))
    bus.on(OBSERVED, tracer(trace, "skipped"))
    assert run(outcome(bus.emit(OBSERVED))).error is cancelled
    assert trace == ["cancelling"]
    assert messages(caplog, LOGGER) == []
    assert recorded(bus._observer) == []


def test_emitter_cancellation_interrupts_the_running_handler_and_skips_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []

    async def main() -> Any:
        entered = asyncio.Event()

        async def blocking(**kwargs: Any) -> None:
            entered.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                trace.append("running handler cancelled")
                raise

        bus = HookBus()
        bus.on(OBSERVED, blocking)
        bus.on(OBSERVED, tracer(trace, "skipped"))
        return await cancel_when_entered(bus.emit(OBSERVED), entered)

    assert isinstance(run(main()).error, asyncio.CancelledError)
    assert trace == ["running handler cancelled"]
    assert messages(caplog, LOGGER) == []


def test_handler_list_is_snapshotted_when_the_emission_starts() -> None:
    trace: list[str] = []
    bus = HookBus()
    late = tracer(trace, "late")

    def registering(**kwargs: Any) -> None:
        trace.append("registering")
        bus.on(OBSERVED, late)

    bus.on(OBSERVED, registering)
    run(bus.emit(OBSERVED))
    assert trace == ["registering"]
    assert bus.handlers_for(OBSERVED) == [registering, late]


def test_unknown_point_raises_value_error_before_any_handler_runs() -> None:
    bus = HookBus()
    with pytest.raises(ValueError, match="^'tool.bogus' is not a valid HookPoint$"):
        run(bus.emit("tool.bogus"))
    with pytest.raises(ValueError, match="^'tool.bogus' is not a valid HookPoint$"):
        bus.on("tool.bogus", tracer([], "never"))


def test_string_point_names_the_same_handlers_as_the_enum_member() -> None:
    trace: list[str] = []
    bus = HookBus()
    bus.on("tool.post", tracer(trace, "by string"))
    bus.on(OBSERVED, tracer(trace, "by enum"))
    run(bus.emit("tool.post"))
    assert trace == ["by string", "by enum"]


def test_registering_on_the_dormant_point_warns_but_is_accepted() -> None:
    bus = HookBus()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bus.on(HookPoint.ARTIFACT_CREATED, tracer([], "dormant"))
    assert [(w.category, str(w.message)[:60]) for w in caught] == [
        (UserWarning, "Registering a handler on HookPoint.ARTIFACT_CREATED ('artifa")
    ]
    assert len(bus.handlers_for(HookPoint.ARTIFACT_CREATED)) == 1


def test_session_end_flushes_message_retry_queues_before_its_handlers() -> None:
    trace: list[str] = []

    class Queue:
        async def flush_final(self) -> bool:
            trace.append("retry queue flushed")
            return False

    bus = HookBus()
    bus._message_retry_queues = {"session": Queue()}  # type: ignore[attr-defined]
    bus.on(HookPoint.SESSION_END, tracer(trace, "session end handler"))
    run(bus.emit(HookPoint.SESSION_END))
    assert trace == ["retry queue flushed", "session end handler"]
