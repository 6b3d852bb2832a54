"""Characterization of lionagi 0.36.0's SessionObserver.emit (session/observer.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lionagi.ln.types import Filter
from lionagi.session.observer import SessionObserver
from lionagi.session.signal import Signal

from .helpers import (
    Barrier,
    ExceptionGroup,
    ProbeAwaitable,
    assert_never_started,
    cancel_when_entered,
    lionagi_messages,
    messages,
    outcome,
    record,
    rendezvous,
    run,
)

pytestmark = pytest.mark.characterization


def sync(trace: list[str], label: str, value: Any = None) -> Any:
    def handler(payload: Any, ctx: Any) -> Any:
        trace.append(label)
        return value

    return handler


def returning(trace: list[str], label: str, value: Any = None) -> Any:
    """A sync handler that returns a coroutine, recording its invocation and, later, its body."""

    def handler(payload: Any, ctx: Any) -> Any:
        trace.append(f"{label} invoked")
        return record(trace, f"{label} body", value)

    return handler


def failing_async(error: BaseException, *, after_yield: bool = False) -> Any:
    async def handler(payload: Any, ctx: Any) -> None:
        if after_yield:
            await asyncio.sleep(0)
        raise error

    return handler


def waiting_forever(trace: list[str], label: str) -> Any:
    async def handler(payload: Any, ctx: Any) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            trace.append(f"{label} cancelled")
            raise

    return handler


def test_sync_handlers_are_called_inline_in_registration_order() -> None:
    trace: list[str] = []
    observer = SessionObserver()
    for label in ("first", "second", "third"):
        observer.observe(int, handler=sync(trace, label))
    run(observer.emit(1))
    assert trace == ["first", "second", "third"]


def test_emit_returns_sync_results_first_then_gathered_results_in_registration_order() -> None:
    def async_value(value: str) -> Any:
        async def handler(payload: Any, ctx: Any) -> str:
            return value

        return handler

    observer = SessionObserver()
    observer.observe(int, handler=async_value("async a"))
    observer.observe(int, handler=sync([], "sync b", "sync b"))
    observer.observe(int, handler=async_value("async c"))
    observer.observe(int, handler=sync([], "sync d", None))
    assert run(observer.emit(1)) == ["sync b", None, "async a", "async c"]


def test_handler_gets_the_unwrapped_payload_and_the_session_or_else_the_observer() -> None:
    seen: list[tuple[Any, Any]] = []
    session = object()
    bound, unbound = SessionObserver(session=session), SessionObserver()
    for observer in (bound, unbound):
        observer.observe(int, handler=lambda payload, ctx: seen.append((payload, ctx)))
        run(observer.emit(Signal(data=7)))
    assert seen == [(7, session), (7, unbound)]


def test_plain_payload_is_wrapped_in_a_signal_and_stored_in_the_flow() -> None:
    observer = SessionObserver()
    run(observer.emit({"k": 1}))
    (stored,) = list(observer.flow.items)
    assert type(stored) is Signal and stored.data == {"k": 1}


def test_handler_is_invoked_once_per_matched_value_payload_fields_and_envelope() -> None:
    calls: list[Any] = []
    observer = SessionObserver()
    observer.observe(int, handler=lambda payload, ctx: calls.append(payload))
    observer.observe(Signal, handler=lambda payload, ctx: calls.append(type(payload).__name__))
    run(observer.emit({"a": 1, "b": "x", "c": 3}))
    # TypeFilter(int) matches each int field of a dict payload; TypeFilter(Signal) matches the
    # envelope the observer wrapped the payload in
    assert calls == [1, 3, "Signal"]


def test_role_subscription_matches_the_envelope_role_and_gets_the_payload() -> None:
    calls: list[Any] = []
    observer = SessionObserver()
    observer.observe(role="critic", handler=lambda payload, ctx: calls.append(("role", payload)))
    observer.observe(int, role="critic",
                     handler=lambda payload, ctx: calls.append(("int", payload)))
    run(observer.emit(Signal(data=4, emitter_role="critic")))
    run(observer.emit(Signal(data=5, emitter_role="worker")))
    run(observer.emit(Signal(data="text", emitter_role="critic")))
    assert calls == [("role", 4), ("int", 4), ("role", "text")]


def test_no_matching_subscription_returns_an_empty_list() -> None:
    observer = SessionObserver()
    observer.observe(str, handler=sync([], "never"))
    assert run(observer.emit(1)) == []


def test_returned_awaitables_run_only_after_every_handler_was_invoked() -> None:
    trace: list[str] = []
    observer = SessionObserver()
    observer.observe(int, handler=returning(trace, "a"))
    observer.observe(int, handler=sync(trace, "b"))
    observer.observe(int, handler=returning(trace, "c"))
    run(observer.emit(1))
    assert trace == ["a invoked", "b", "c invoked", "a body", "c body"]


def test_returned_awaitables_are_gathered_concurrently() -> None:
    trace: list[str] = []

    async def main() -> list[Any]:
        barrier = Barrier(2)
        observer = SessionObserver()
        observer.observe(int, handler=lambda p, c: rendezvous(barrier, trace, "a"))
        observer.observe(int, handler=lambda p, c: rendezvous(barrier, trace, "b"))
        return await observer.emit(1)

    assert run(main()) == ["a", "b"]
    assert trace[:2] == ["a waiting", "b waiting"]


@pytest.mark.parametrize("kind", ["coroutine", "custom awaitable", "asyncio.Future"])
def test_any_awaitable_a_sync_handler_returns_is_gathered_and_its_result_returned(
    kind: str,
) -> None:
    trace: list[str] = []

    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()

        def handler(payload: Any, ctx: Any) -> Any:
            if kind == "coroutine":
                return record(trace, "awaited", "result")
            if kind == "custom awaitable":
                return ProbeAwaitable(trace, "awaited", "result")
            future = loop.create_future()
            loop.call_soon(lambda: (trace.append("awaited"), future.set_result("result")))
            return future

        observer = SessionObserver()
        observer.observe(int, handler=handler)
        return await observer.emit(1)

    assert run(main()) == ["result"]
    assert trace == ["awaited"]


def test_sync_invocation_error_propagates_before_gather_and_abandons_earlier_awaitables() -> None:
    trace: list[str] = []
    returned: list[Any] = []
    boom = ValueError("sync handler failed")

    def keeps(payload: Any, ctx: Any) -> Any:
        returned.append(record(trace, "earlier body"))
        return returned[-1]

    def raises(payload: Any, ctx: Any) -> None:
        raise boom

    observer = SessionObserver()
    observer.observe(int, handler=keeps)
    observer.observe(int, handler=raises)
    observer.observe(int, handler=sync(trace, "later"))
    assert run(outcome(observer.emit(1))).error is boom
    assert trace == []
    assert_never_started(returned[0])


def test_one_failing_awaitable_is_raised_as_itself_and_cancels_its_siblings() -> None:
    trace: list[str] = []
    boom = ValueError("async handler failed")
    observer = SessionObserver()
    observer.observe(int, handler=failing_async(boom, after_yield=True))
    observer.observe(int, handler=waiting_forever(trace, "sibling"))
    error = run(outcome(observer.emit(1))).error
    assert error is boom
    assert isinstance(error.__cause__, ExceptionGroup)
    assert error.__cause__.exceptions == (boom,)
    assert trace == ["sibling cancelled"]


def test_several_failing_awaitables_are_raised_as_one_exception_group() -> None:
    first, second = ValueError("a"), KeyError("b")
    observer = SessionObserver()
    observer.observe(int, handler=failing_async(first))
    observer.observe(int, handler=failing_async(second))
    error = run(outcome(observer.emit(1))).error
    assert type(error) is ExceptionGroup
    assert str(error) == "unhandled errors in a TaskGroup (2 sub-exceptions)"
    assert error.exceptions == (first, second)


def test_one_cancelled_awaitable_cancels_its_sibling_and_both_are_returned_not_raised() -> None:
    trace: list[str] = []
    cancelled = asyncio.CancelledError("awaitable gave up")
    observer = SessionObserver()
    observer.observe(int, handler=failing_async(cancelled, after_yield=True))
    observer.observe(int, handler=waiting_forever(trace, "sibling"))
    results = run(observer.emit(1))
    assert results[0] is cancelled
    assert type(results[1]) is asyncio.CancelledError
    assert str(results[1]).startswith("Cancelled via cancel scope")
    assert trace == ["sibling cancelled"]


def test_failure_beside_a_cancelled_awaitable_is_raised_and_the_cancellation_dropped() -> None:
    boom = ValueError("ordinary")
    observer = SessionObserver()
    observer.observe(int, handler=failing_async(asyncio.CancelledError("gave up")))
    observer.observe(int, handler=failing_async(boom))
    error = run(outcome(observer.emit(1))).error
    assert error is boom
    assert error.__cause__.exceptions == (boom,)


def test_emitter_cancellation_during_gather_cancels_the_awaitables_and_propagates() -> None:
    trace: list[str] = []

    async def main() -> Any:
        entered = asyncio.Event()

        async def blocking(payload: Any, ctx: Any) -> None:
            entered.set()
            await waiting_forever(trace, "gathered")(payload, ctx)

        observer = SessionObserver()
        observer.observe(int, handler=blocking)
        return await cancel_when_entered(observer.emit(1), entered)

    assert isinstance(run(main()).error, asyncio.CancelledError)
    assert trace == ["gathered cancelled"]


def test_gate_denial_stores_the_event_but_skips_routes_and_subscribers() -> None:
    trace: list[str] = []
    observer = SessionObserver()
    observer.gate(lambda payload: False)
    observer.route(lambda payload: True, into="audit")
    observer.observe(int, handler=sync(trace, "subscriber"))
    assert run(observer.emit(1)) == []
    assert [s.data for s in observer.flow.items] == [1]
    assert observer.stream("audit") == []
    assert trace == []


def test_gate_runs_before_the_event_is_stored_which_happens_whatever_the_verdict() -> None:
    seen: list[int] = []
    observer = SessionObserver()
    observer.gate(lambda payload: seen.append(len(observer.flow.items)) or payload > 1)
    run(observer.emit(1))
    run(observer.emit(2))
    assert seen == [0, 1]
    assert [s.data for s in observer.flow.items] == [1, 2]


def test_raising_gate_is_a_silent_denial(caplog: pytest.LogCaptureFixture) -> None:
    trace: list[str] = []

    def broken_gate(payload: Any) -> bool:
        raise RuntimeError("policy store unreachable")

    observer = SessionObserver()
    observer.gate(broken_gate)
    observer.route(lambda payload: True, into="audit")
    observer.observe(int, handler=sync(trace, "subscriber"))
    caplog.set_level("DEBUG")
    assert run(observer.emit(1)) == []
    assert [s.data for s in observer.flow.items] == [1]
    assert (observer.stream("audit"), trace, lionagi_messages(caplog)) == ([], [], [])


@pytest.mark.parametrize(
    ("verdict", "allowed"),
    [(True, True), ("yes", True), (0, False), (None, False), ("async True", True)],
)
def test_gate_verdict_is_awaited_if_awaitable_and_read_by_truthiness(
    verdict: Any, allowed: bool
) -> None:
    seen: list[Any] = []

    def gate(payload: Any) -> Any:
        seen.append(payload)
        return record([], "gate", True) if verdict == "async True" else verdict

    observer = SessionObserver()
    observer.gate(gate)
    observer.observe(int, handler=sync([], "subscriber", "ran"))
    assert run(observer.emit(Signal(data=5))) == (["ran"] if allowed else [])
    assert seen == [5]


def test_gate_denial_and_raising_gate_suppress_the_bound_persistence_subscriber() -> None:
    class FakeStore:
        def __init__(self) -> None:
            self.kinds: list[str] = []

        async def insert_session_signal(self, *, kind: str, **fields: Any) -> None:
            self.kinds.append(kind)

    def raising_gate(payload: Any) -> bool:
        raise RuntimeError("gate bug")

    stored: dict[str, list[str]] = {}
    for name, gate in (("allowed", lambda p: True), ("denied", lambda p: False),
                       ("raising", raising_gate)):
        store, observer = FakeStore(), SessionObserver()
        observer.bind_db_persistence("session-1", db=store)
        observer.gate(gate)
        run(observer.emit(Signal(data=1)))
        stored[name] = store.kinds
        assert observer.persist_dropped == 0  # the suppressed write is not even counted
    assert stored == {"allowed": ["Signal"], "denied": [], "raising": []}


def test_route_receives_the_event_before_subscribers_and_a_raising_route_propagates() -> None:
    trace: list[str] = []
    observer = SessionObserver()
    observer.route(lambda payload: payload > 0, into="positive")
    observer.observe(
        int, handler=lambda p, c: trace.append(f"stream={len(observer.stream('positive'))}"))
    run(observer.emit(1))
    assert trace == ["stream=1"]

    broken = SessionObserver()
    broken.route(lambda payload: payload.missing, into="never")
    broken.observe(int, handler=sync(trace, "subscriber"))
    assert isinstance(run(outcome(broken.emit(1))).error, AttributeError)
    assert [s.data for s in broken.flow.items] == [1] and trace == ["stream=1"]


def test_raising_predicate_key_is_logged_and_treated_as_no_match(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace: list[str] = []

    def exploding(payload: Any) -> bool:
        raise KeyError("field")

    observer = SessionObserver()
    observer.observe(exploding, handler=sync(trace, "predicate subscriber"))
    observer.observe(int, handler=sync(trace, "other subscriber"))
    assert run(observer.emit(1)) == [None]
    assert trace == ["other subscriber"]
    assert messages(caplog, "lionagi.ln.types.filters") == [
        ("WARNING", "Filter predicate exploding raised on payload")
    ]


def test_raising_custom_filter_propagates_before_gather() -> None:
    trace: list[str] = []
    returned: list[Any] = []

    broken = LookupError("broken filter")

    class BrokenFilter(Filter):
        def matches(self, payload: Any) -> list[Any]:
            raise broken

    def keeps(payload: Any, ctx: Any) -> Any:
        returned.append(record(trace, "earlier body"))
        return returned[-1]

    observer = SessionObserver()
    observer.observe(int, handler=keeps)
    observer.observe(BrokenFilter(), handler=sync(trace, "never"))
    assert run(outcome(observer.emit(1))).error is broken
    assert trace == []
    assert_never_started(returned[0])
