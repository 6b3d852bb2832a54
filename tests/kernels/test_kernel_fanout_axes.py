"""Each policy axis of FanoutDispatcher, one behaviour per test, on generic (non-profile) policies."""

from __future__ import annotations

import asyncio
import logging
import time
from types import ModuleType
from typing import Any

import pytest

from .helpers import phase, policy, run, run_virtual, stage


def _sleeper(delay: float, result: Any = None, log: list[str] | None = None) -> Any:
    async def handler(signal: object) -> Any:
        await asyncio.sleep(delay)
        if log is not None:
            log.append(f"done {result}")
        return result

    return handler


def _fails(signal: object) -> None:
    raise ValueError("nope")


def _dispatch(k: ModuleType, pol: Any, *handlers: Any) -> Any:
    dispatcher = k.FanoutDispatcher(pol)
    for index, handler in enumerate(handlers):
        dispatcher.subscribe(handler, name=f"h{index}")
    return dispatcher


@pytest.mark.parametrize("preserve", [True, False])
def test_concurrent_report_is_in_registration_order_whatever_the_flag(
    kernels: ModuleType, preserve: bool
) -> None:
    """ADR-0120 D2: "Concurrent execution still reports registrations in deterministic registration
    order." preserve_registration_order governs invocation order only, never the report's order.
    """
    log: list[str] = []
    pol = kernels.DispatchPolicy(
        phases=(phase(kernels, concurrency=kernels.DispatchConcurrency.CONCURRENT),),
        preserve_registration_order=preserve,
    )
    dispatcher = _dispatch(kernels, pol, _sleeper(0.04, "slow", log), _sleeper(0.0, "fast", log))
    report = run(dispatcher.emit("s"))
    assert log == ["done fast", "done slow"]  # they did complete out of registration order
    assert report.names == ("h0", "h1")
    assert report.values == ("slow", "fast")


def test_sequential_stop_on_failure_leaves_the_rest_not_started(kernels: ModuleType) -> None:
    pol = policy(kernels, invocation=stage(kernels, completion=kernels.CompletionTiming.STOP_ON_FAILURE))
    report = run(_dispatch(kernels, pol, lambda s: 1, _fails, lambda s: 3).emit("s"))
    status = kernels.OutcomeStatus
    assert [o.status for o in report.outcomes] == [status.RETURNED, status.FAILED, status.NOT_STARTED]


def test_concurrent_cancel_remaining_on_failure_cancels_siblings(kernels: ModuleType) -> None:
    pol = policy(
        kernels,
        concurrency=kernels.DispatchConcurrency.CONCURRENT,
        invocation=stage(kernels, completion=kernels.CompletionTiming.CANCEL_REMAINING_ON_FAILURE),
    )
    report = run(_dispatch(kernels, pol, _sleeper(5), _fails).emit("s"))
    assert [o.status for o in report.outcomes] == [
        kernels.OutcomeStatus.CANCELLED,
        kernels.OutcomeStatus.FAILED,
    ]


def test_raise_first_raises_the_first_in_registration_order(kernels: ModuleType) -> None:
    async def late_fail(signal: object) -> None:
        await asyncio.sleep(0.02)
        raise KeyError("first registered")

    pol = policy(
        kernels,
        concurrency=kernels.DispatchConcurrency.CONCURRENT,
        invocation=stage(kernels, error_surface=kernels.ErrorSurface.RAISE_FIRST),
    )
    with pytest.raises(KeyError):
        run(_dispatch(kernels, pol, late_fail, _fails).emit("s"))


def test_return_report_keeps_failures_in_the_report(kernels: ModuleType) -> None:
    report = run(_dispatch(kernels, policy(kernels), _fails, lambda s: 2).emit("s"))
    assert [type(o.error) for o in report.failures] == [ValueError]
    assert report.values == (2,)


def test_detach_bounded_returns_at_once_and_logs_later_failures(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    log: list[str] = []
    detach = stage(
        kernels,
        failure=kernels.DispatchFailure.ISOLATE,
        completion=kernels.CompletionTiming.DETACH_BOUNDED,
        error_surface=kernels.ErrorSurface.LOG_ONLY,
    )
    pol = policy(
        kernels,
        invocation=detach,
        deadline_seconds=1.0,
        deadline_disposition=kernels.DeadlineDisposition.SILENT_STOP,
    )
    dispatcher = _dispatch(kernels, pol, _sleeper(0.02, "x", log), _fails)

    async def main() -> Any:
        report = await dispatcher.emit("s")
        assert log == []  # nothing has run yet: the phase was detached
        await dispatcher.wait_detached()
        return report

    report = run(main())
    assert {o.status for o in report.outcomes} == {kernels.OutcomeStatus.DETACHED}
    assert log == ["done x"]
    assert any("h1" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


def test_detached_phase_is_still_bounded_by_its_deadline(kernels: ModuleType) -> None:
    log: list[str] = []
    detach = stage(
        kernels,
        failure=kernels.DispatchFailure.ISOLATE,
        completion=kernels.CompletionTiming.DETACH_BOUNDED,
        error_surface=kernels.ErrorSurface.LOG_ONLY,
    )
    pol = policy(
        kernels,
        invocation=detach,
        deadline_seconds=0.05,
        deadline_disposition=kernels.DeadlineDisposition.SILENT_STOP,
    )
    dispatcher = _dispatch(kernels, pol, _sleeper(5, "never", log))

    async def main() -> None:
        await dispatcher.emit("s")
        await dispatcher.wait_detached()

    _, elapsed = run_virtual(main)
    assert elapsed == pytest.approx(0.05) and log == []  # stopped at its deadline, not after 5 s


@pytest.mark.parametrize("concurrency", ["SEQUENTIAL", "CONCURRENT"])
def test_deadline_is_one_shared_budget(kernels: ModuleType, concurrency: str) -> None:
    pol = policy(
        kernels,
        concurrency=getattr(kernels.DispatchConcurrency, concurrency),
        deadline_seconds=0.1,
        deadline_disposition=kernels.DeadlineDisposition.RETURN_REPORT,
    )
    dispatcher = _dispatch(kernels, pol, _sleeper(0.06, 1), _sleeper(0.06, 2), _sleeper(0.06, 3))

    report, elapsed = run_virtual(lambda: dispatcher.emit("s"))
    statuses = [o.status.value for o in report.outcomes]
    if concurrency == "SEQUENTIAL":  # a per-handler timeout would have let all three finish
        assert report.deadline_expired
        assert statuses == ["returned", "timed_out", "not_started"]
        assert elapsed == pytest.approx(0.1)  # the second handler was stopped at the budget's end
    else:  # together they fit in the one budget
        assert not report.deadline_expired
        assert statuses == ["returned"] * 3
        assert elapsed == pytest.approx(0.06)


def test_deadline_raise_carries_the_report(kernels: ModuleType) -> None:
    pol = policy(kernels, deadline_seconds=0.05, deadline_disposition=kernels.DeadlineDisposition.RAISE)
    with pytest.raises(kernels.DeadlineExceededError) as caught:
        run(_dispatch(kernels, pol, lambda s: "ok", _sleeper(5)).emit("s"))
    assert isinstance(caught.value, TimeoutError)
    assert [o.status.value for o in caught.value.report.outcomes] == ["returned", "timed_out"]


def test_deadline_log_and_stop_logs_and_silent_stop_does_not(
    kernels: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    for disposition, expect_log in (("LOG_AND_STOP", True), ("SILENT_STOP", False)):
        caplog.clear()
        pol = policy(
            kernels,
            deadline_seconds=0.03,
            deadline_disposition=getattr(kernels.DeadlineDisposition, disposition),
        )
        report = run(_dispatch(kernels, pol, _sleeper(5)).emit("s"))
        assert report.deadline_expired
        assert any("deadline" in r.getMessage() for r in caplog.records) is expect_log


def test_sequential_offload_deadline_abandons_the_thread(kernels: ModuleType) -> None:
    pol = policy(
        kernels,
        sync_handlers=kernels.SyncHandlerMode.OFFLOAD,
        handler_classification=kernels.HandlerClassification.BY_DECLARATION,
        deadline_seconds=0.05,
        deadline_disposition=kernels.DeadlineDisposition.RETURN_REPORT,
    )
    report = run(_dispatch(kernels, pol, lambda s: time.sleep(0.3), lambda s: "never").emit("s"))
    assert [o.status.value for o in report.outcomes] == ["abandoned_unknown", "not_started"]


def test_reject_disposition_reports_a_rejected_failure(kernels: ModuleType) -> None:
    async def coro() -> None:
        raise AssertionError("must never run")

    pol = policy(kernels, returned_awaitable=kernels.ReturnedAwaitableDisposition.REJECT)
    report = run(_dispatch(kernels, pol, lambda s: coro(), lambda s: "plain").emit("s"))
    first = report.outcomes[0]
    assert first.status is kernels.OutcomeStatus.REJECTED
    assert isinstance(first.error, kernels.ReturnedAwaitableRejectedError)
    assert report.failures == (first,)


def test_classifiers_disagree_on_a_future(kernels: ModuleType) -> None:
    async def main(classifier: str) -> Any:
        future = asyncio.get_running_loop().create_future()
        future.set_result("from future")
        pol = policy(kernels, returned_value_classifier=getattr(kernels.ReturnedValueClassifier, classifier))
        report = await _dispatch(kernels, pol, lambda s: future).emit("s")
        return report.values[0] is future, report.values[0]

    assert run(main("INSPECT_AWAITABLE")) == (False, "from future")
    assert run(main("ASYNCIO_COROUTINE_ONLY"))[0] is True


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("COLLECT_AS_HANDLER_FAILURE", ["failed", "returned"]),
        ("NO_MATCH", ["returned"]),
        ("ISOLATE", ["skipped", "returned"]),
    ],
)
def test_predicate_failure_policies(kernels: ModuleType, rule: str, expected: list[str]) -> None:
    dispatcher = kernels.FanoutDispatcher(
        policy(kernels, predicate_failure=getattr(kernels.PredicateFailure, rule))
    )
    dispatcher.subscribe(lambda s: "never", predicate=lambda s: 1 / 0)
    dispatcher.subscribe(lambda s: "ok", predicate=lambda s: True)
    dispatcher.subscribe(lambda s: "filtered", predicate=lambda s: False)
    assert [o.status.value for o in run(dispatcher.emit("s")).outcomes] == expected


def test_predicate_failure_propagate_stops_the_emit(kernels: ModuleType) -> None:
    ran: list[str] = []
    dispatcher = kernels.FanoutDispatcher(
        policy(kernels, predicate_failure=kernels.PredicateFailure.PROPAGATE)
    )
    dispatcher.subscribe(lambda s: None, predicate=lambda s: 1 / 0)
    dispatcher.subscribe(lambda s: ran.append("later"))
    with pytest.raises(ZeroDivisionError):
        run(dispatcher.emit("s"))
    assert ran == []


def test_declared_phases_run_in_order_and_report_in_registration_order(kernels: ModuleType) -> None:
    order: list[str] = []
    by_decl = kernels.HandlerClassification.BY_DECLARATION

    async def async_handler(signal: object) -> None:
        order.append("async")

    pol = kernels.DispatchPolicy(
        phases=(
            phase(kernels, selector="declared_async", handler_classification=by_decl),
            phase(kernels, selector="declared_sync", handler_classification=by_decl),
        )
    )
    report = run(_dispatch(kernels, pol, lambda s: order.append("sync"), async_handler).emit("s"))
    assert order == ["async", "sync"]
    assert report.names == ("h0", "h1")
    assert [o.phase for o in report.outcomes] == [1, 0]


@pytest.mark.parametrize(
    ("cancellation", "raised"), [("PROPAGATE", asyncio.CancelledError), ("TRANSLATE", "HandlerCancelled")]
)
def test_handler_cancellation_modes(kernels: ModuleType, cancellation: str, raised: Any) -> None:
    raised = getattr(kernels, raised) if isinstance(raised, str) else raised

    async def cancels(signal: object) -> None:
        raise asyncio.CancelledError("c")

    pol = policy(
        kernels,
        invocation=stage(kernels, handler_cancellation=getattr(kernels.HandlerCancellation, cancellation)),
    )

    async def main() -> BaseException:
        with pytest.raises(raised) as caught:
            await _dispatch(kernels, pol, cancels, _fails).emit("s")
        return caught.value

    error = run(main())
    assert not isinstance(error, Exception)


def test_collected_cancellation_with_return_report_is_raised_after_drain(kernels: ModuleType) -> None:
    ran: list[str] = []

    async def cancels(signal: object) -> None:
        raise asyncio.CancelledError("c")

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await _dispatch(kernels, policy(kernels), cancels, lambda s: ran.append("later")).emit("s")

    run(main())
    assert ran == ["later"]


def test_sync_entry_allow_discards_a_declared_async_handlers_coroutine(kernels: ModuleType) -> None:
    async def declared(signal: object) -> None:
        raise AssertionError("must never run")

    pol = policy(
        kernels,
        sync_entry=kernels.SyncEntryPolicy.ALLOW,
        handler_classification=kernels.HandlerClassification.BY_DECLARATION,
        returned_awaitable=kernels.ReturnedAwaitableDisposition.DISCARD_UNAWAITED,
    )
    dispatcher = _dispatch(kernels, pol, declared, lambda s: "sync")
    report = dispatcher.emit_sync("s", snapshot=dispatcher.preflight_sync())
    assert [o.status.value for o in report.outcomes] == ["discarded", "returned"]


def test_registration_during_emit_waits_for_the_next_emit(kernels: ModuleType) -> None:
    dispatcher = kernels.FanoutDispatcher(policy(kernels))
    dispatcher.subscribe(
        lambda s: dispatcher.subscribe(lambda s2: "late", name="late") and "first", name="first"
    )
    first = run(dispatcher.emit("s"))
    assert first.names == ("first",)
    assert dispatcher.revision == 2
    assert run(dispatcher.emit("s")).names[:2] == ("first", "late")


def test_unsubscribe_is_by_registration_identity(kernels: ModuleType) -> None:
    dispatcher = kernels.FanoutDispatcher(policy(kernels))
    handler = lambda s: "x"  # noqa: E731
    first = dispatcher.subscribe(handler)
    dispatcher.subscribe(handler)
    assert dispatcher.unsubscribe(first) is True
    assert dispatcher.unsubscribe(first) is False
    assert len(dispatcher.registrations) == 1
    assert dispatcher.revision == 3
