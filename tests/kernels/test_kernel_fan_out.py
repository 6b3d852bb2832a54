"""fan_out (an owner's entries under a policy), the owner's hooks, the two axis values planeshift
adds, DispatchPolicy.from_axes, and the registration table as a handler list."""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import threading
from types import ModuleType
from typing import Any

import pytest

from .helpers import axes, phase, policy, run, stage


def _direct(signal: Any) -> Any:
    return lambda handler, call: call(handler, signal)


# -- the loop ------------------------------------------------------------------------------------


def test_fan_out_runs_the_step_for_each_entry_in_order_and_reports_their_values(
        kernels: ModuleType) -> None:
    trace: list[str] = []

    async def step(entry: str, call: Any) -> str:
        trace.append(entry)
        return entry.upper()

    report = run(kernels.fan_out(kernels.DispatchPolicy.broadcaster(), ["a", "b"], step))
    assert trace == ["a", "b"]
    assert report.values == ("A", "B")
    assert report.names == ("entry[0]", "entry[1]")


def test_fan_out_takes_the_entries_when_it_starts(kernels: ModuleType) -> None:
    entries: list[Any] = []
    seen: list[str] = []

    def first(signal: Any) -> None:
        seen.append("first")
        entries.append(lambda s: seen.append("late"))  # added during the fan-out: not run

    entries.append(first)
    run(kernels.fan_out(kernels.DispatchPolicy.broadcaster(), entries, _direct("s")))
    assert seen == ["first"]


def test_concurrent_fan_out_starts_in_order_and_reports_in_order(kernels: ModuleType) -> None:
    trace: list[str] = []

    async def slow(signal: Any) -> str:
        trace.append("slow started")
        await asyncio.sleep(0.02)
        return "slow"

    async def fast(signal: Any) -> str:
        trace.append("fast started")
        return "fast"

    pol = kernels.DispatchPolicy.from_axes(**axes(concurrency="concurrent"))
    report = run(kernels.fan_out(pol, [slow, fast], _direct("s")))
    assert trace == ["slow started", "fast started"]
    assert report.values == ("slow", "fast")


# -- gather after invocations (SessionObserver's composite profile) ------------------------------


def _observer(trace: list[str], subs: list[tuple[Any, Any]]) -> Any:
    """SessionObserver.emit's loop: each handler once per value its filter matches, computed
    as the loop reaches it (a generator over the live subscriptions)."""
    return ((handler, matched) for match, handler in subs for matched in match(trace))


def _call_with(ctx: Any) -> Any:
    return lambda entry, call: call(entry[0], entry[1], ctx)


def test_gather_after_invocations_runs_sync_handlers_inline_then_gathers_the_awaitables(
        kernels: ModuleType) -> None:
    trace: list[str] = []

    async def body(label: str) -> str:
        trace.append(f"{label} body")
        return label

    def returns(label: str) -> Any:
        def handler(value: Any, ctx: Any) -> Any:
            trace.append(f"{label}({value}, {ctx})")
            return body(label)
        return handler

    def sync(value: Any, ctx: Any) -> str:
        trace.append(f"sync({value}, {ctx})")
        return f"sync {value}"

    def matches(*values: Any) -> Any:
        def match(seen: list[str]) -> list[Any]:
            seen.append(f"match {values}")
            return list(values)
        return match

    subs = [(matches(1, 2), returns("a")), (matches(3), sync)]
    report = run(kernels.fan_out(kernels.DispatchPolicy.session_observer(),
                                 _observer(trace, subs), _call_with("ctx")))
    # filters and handlers interleave as the loop ran them; the awaitables only after all
    assert trace == ["match (1, 2)", "a(1, ctx)", "a(2, ctx)", "match (3,)", "sync(3, ctx)",
                     "a body", "a body"]
    assert report.invocation_values == ("sync 3",)
    assert report.gathered_values == ("a", "a")
    assert [o.gathered for o in report.outcomes] == [True, True, False]


def test_an_entry_or_a_handler_that_raises_leaves_the_kept_awaitables_unawaited(
        kernels: ModuleType) -> None:
    kept: list[Any] = []

    async def body() -> None:
        raise AssertionError("never awaited")

    def returns(value: Any, ctx: Any) -> Any:
        kept.append(body())
        return kept[-1]

    def raising_match(seen: list[str]) -> list[Any]:
        raise LookupError("broken filter")

    boom = ValueError("sync handler failed")

    def raises(value: Any, ctx: Any) -> None:
        raise boom

    never: list[str] = []
    for subs, error in (([(lambda seen: [1], returns), (raising_match, print)], LookupError),
                        ([(lambda seen: [1], returns), (lambda seen: [1], raises),
                          (lambda seen: never.append("taken") or [1], print)], ValueError)):
        with pytest.raises(error):
            run(kernels.fan_out(kernels.DispatchPolicy.session_observer(),
                                _observer([], subs), _call_with(None)))
        assert inspect.getcoroutinestate(kept[-1]) == inspect.CORO_CREATED
        kept[-1].close()
    assert never == []  # nothing is taken after the failing entry


def test_the_owner_s_gather_awaits_the_awaitables_and_its_result_or_error_is_the_outcome(
        kernels: ModuleType) -> None:
    async def value(v: Any) -> Any:
        await asyncio.sleep(0)
        return v

    async def owners_gather(*aws: Any) -> list[Any]:
        results = list(await asyncio.gather(*aws, return_exceptions=True))
        errors = [r for r in results if isinstance(r, Exception)]
        if errors:
            raise errors[0] from ExceptionGroup("gathered", errors)
        return [f"owner {r}" for r in results]

    handlers = [lambda v, ctx: value(v), lambda v, ctx: v * 10]
    subs = [(lambda seen: [1], handlers[0]), (lambda seen: [2], handlers[1])]
    report = run(kernels.fan_out(kernels.DispatchPolicy.session_observer(), _observer([], subs),
                                 _call_with(None), gather=owners_gather))
    assert report.invocation_values == (20,)
    assert report.gathered_values == ("owner 1",)
    boom = KeyError("async handler failed")

    async def fails(v: Any, ctx: Any) -> None:
        raise boom

    with pytest.raises(KeyError) as caught:
        run(kernels.fan_out(kernels.DispatchPolicy.session_observer(),
                            _observer([], [(lambda seen: [1], fails)]), _call_with(None),
                            gather=owners_gather))
    assert caught.value is boom and caught.value.__cause__.exceptions == (boom,)
    with pytest.raises(TypeError, match="GATHER_AFTER_INVOCATIONS"):
        run(kernels.fan_out(kernels.DispatchPolicy.broadcaster(), [], _direct("s"),
                            gather=owners_gather))


def test_the_kernel_s_gather_stage_returns_a_cancelled_awaitable_s_cancellation(
        kernels: ModuleType) -> None:
    cancelled = asyncio.CancelledError("gave up")

    async def gives_up(v: Any, ctx: Any) -> None:
        raise cancelled

    async def fine(v: Any, ctx: Any) -> str:
        return "fine"

    subs = [(lambda seen: [1], gives_up), (lambda seen: [1], fine)]
    report = run(kernels.fan_out(kernels.DispatchPolicy.session_observer(), _observer([], subs),
                                 _call_with(None)))
    assert report.gathered_values[0] is cancelled
    assert report.outcomes[0].status is kernels.OutcomeStatus.CANCELLED


def test_fan_out_refuses_a_policy_it_cannot_run(kernels: ModuleType) -> None:
    two = kernels.DispatchPolicy(phases=(
        phase(kernels, selector="declared_sync",
              handler_classification=kernels.HandlerClassification.BY_DECLARATION,
              returned_value_classifier=kernels.ReturnedValueClassifier.NOT_INSPECTED,
              returned_awaitable=kernels.ReturnedAwaitableDisposition.DISCARD_UNAWAITED),
        phase(kernels, selector="declared_async",
              handler_classification=kernels.HandlerClassification.BY_DECLARATION,
              returned_value_classifier=kernels.ReturnedValueClassifier.NOT_INSPECTED,
              returned_awaitable=kernels.ReturnedAwaitableDisposition.DISCARD_UNAWAITED)))
    with pytest.raises(kernels.PolicyError, match="fan-out-single-phase"):
        run(kernels.fan_out(two, [], _direct("s")))
    detach = policy(kernels, invocation=stage(
        kernels, failure=kernels.DispatchFailure.ISOLATE,
        completion=kernels.CompletionTiming.DETACH_BOUNDED, error_surface=kernels.ErrorSurface.LOG_ONLY),
        deadline_seconds=1.0, deadline_disposition=kernels.DeadlineDisposition.SILENT_STOP)
    with pytest.raises(kernels.PolicyError, match="fan-out-no-detach"):
        run(kernels.fan_out(detach, [], _direct("s")))


# -- call: classification, offload, returned awaitables -----------------------------------------


def test_call_awaits_what_the_classifier_admits(kernels: ModuleType) -> None:
    async def body() -> str:
        return "awaited"

    future_holder: list[Any] = []

    def returns_future(signal: Any) -> Any:
        future = asyncio.get_running_loop().create_future()
        future.set_result("future")
        future_holder.append(future)
        return future

    broadcaster = kernels.DispatchPolicy.broadcaster()  # asyncio.iscoroutine only
    report = run(kernels.fan_out(broadcaster, [lambda s: body(), returns_future], _direct("s")))
    assert report.values[0] == "awaited" and report.values[1] is future_holder[0]
    inspecting = kernels.DispatchPolicy.from_axes(**axes())
    report = run(kernels.fan_out(inspecting, [returns_future], _direct("s")))
    assert report.values == ("future",)


def test_call_by_declaration_awaits_a_coroutine_function_without_inspecting_its_result(
        kernels: ModuleType) -> None:
    inner: list[Any] = []

    async def nested(signal: Any) -> Any:
        async def never() -> None:
            raise AssertionError("never run")

        inner.append(never())
        return inner[-1]

    pol = kernels.DispatchPolicy.terminal_callback(deadline_seconds=1.0)
    report = run(kernels.fan_out(pol, [nested], _direct("s")))
    assert report.values == (inner[0],)
    assert inspect.getcoroutinestate(inner[0]) == inspect.CORO_CREATED
    inner[0].close()


def test_call_offloads_a_sync_handler_and_awaits_what_it_returns_on_the_loop(
        kernels: ModuleType) -> None:
    where: list[str] = []
    home = threading.get_ident()

    async def on_loop() -> str:
        where.append("awaitable on loop" if threading.get_ident() == home else "elsewhere")
        return "done"

    def sync(signal: Any, *, tag: str) -> Any:
        where.append(f"{tag} in thread" if threading.get_ident() != home else "on loop")
        return on_loop()

    pol = kernels.DispatchPolicy.terminal_callback(deadline_seconds=1.0)
    report = run(kernels.fan_out(pol, [sync], lambda h, call: call(h, "s", tag="sync")))
    assert where == ["sync in thread", "awaitable on loop"]
    assert report.values == ("done",)


def test_call_leaves_a_discarded_awaitable_to_the_step_unclosed(kernels: ModuleType) -> None:
    made: list[Any] = []

    def returns_coroutine(signal: Any) -> Any:
        async def never() -> None:
            raise AssertionError("never run")

        made.append(never())
        return made[-1]

    pol = kernels.DispatchPolicy.message_manager_async()
    run(kernels.fan_out(pol, [returns_coroutine], _direct("s")))
    # as today's loop drops it: never run, never closed by the kernel
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CREATED
    made[0].close()


def test_call_under_reject_raises_in_the_step(kernels: ModuleType) -> None:
    async def body() -> None:
        return None

    pol = kernels.DispatchPolicy.from_axes(**axes(returned_awaitable="reject", failure="collect",
                                                   error_surface="raise_first",
                                                   completion="stop_on_failure"))
    with pytest.raises(kernels.ReturnedAwaitableRejectedError):
        run(kernels.fan_out(pol, [lambda s: body()], _direct("s")))


# -- the owner's hooks ----------------------------------------------------------------------------


def test_failed_hook_is_the_record_of_an_isolated_failure_inside_its_except(
        kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Any] = []

    def bad(signal: Any) -> None:
        raise ValueError("boom")

    def failed(entry: Any, error: BaseException) -> None:
        seen.append((entry, error, sys.exc_info()[1]))

    report = run(kernels.fan_out(kernels.DispatchPolicy.broadcaster(), [bad, print], _direct("s"),
                                 failed=failed))
    assert seen[0][0] is bad and isinstance(seen[0][1], ValueError) and seen[0][2] is seen[0][1]
    assert [o.status.value for o in report.outcomes] == ["failed", "returned"]
    assert caplog.records == []  # the owner's hook is the record; the kernel writes none


def test_an_async_failed_hook_is_awaited_before_a_propagated_failure_leaves(
        kernels: ModuleType) -> None:
    trace: list[str] = []

    def bad(signal: Any) -> None:
        raise KeyError("k")

    async def failed(entry: Any, error: BaseException) -> None:
        await asyncio.sleep(0)
        trace.append(f"recorded {type(error).__name__}")

    pol = kernels.DispatchPolicy.from_axes(**axes(failure="propagate", completion="stop_on_failure",
                                                   error_surface="raise_first"))
    with pytest.raises(KeyError):
        run(kernels.fan_out(pol, [bad, lambda s: trace.append("never")], _direct("s"),
                            failed=failed))
    assert trace == ["recorded KeyError"]


def test_group_and_translated_factories_build_the_owner_exceptions(kernels: ModuleType) -> None:
    class OwnCancelled(asyncio.CancelledError):
        pass

    def group(errors: list[BaseException]) -> BaseException:
        return ExceptionGroup(f"{len(errors)} own failures", errors)  # type: ignore[arg-type]

    def bad(signal: Any) -> None:
        raise ValueError("v")

    async def cancels(signal: Any) -> None:
        raise asyncio.CancelledError("c")

    scheduler = kernels.DispatchPolicy.scheduler()
    with pytest.raises(ExceptionGroup) as grouped:
        run(kernels.fan_out(scheduler, [bad, bad], _direct("s"), group=group))
    assert grouped.value.message == "2 own failures"

    with pytest.raises(OwnCancelled) as translated:
        run(kernels.fan_out(scheduler, [cancels, bad], _direct("s"), group=group,
                            translated=lambda c: OwnCancelled(str(c))))
    assert str(translated.value) == "c"
    assert translated.value.__cause__.message == "1 own failures"


# -- the axis values planeshift adds ----------------------------------------------------------------


def test_isolate_base_exceptions_isolates_interpreter_exits_and_never_raises(
        kernels: ModuleType) -> None:
    logged: list[str] = []

    async def exits(signal: Any) -> None:
        raise SystemExit(2)

    async def interrupted(signal: Any) -> None:
        raise KeyboardInterrupt

    pol = kernels.DispatchPolicy.from_axes(**axes(concurrency="concurrent",
                                                   failure="isolate_base_exceptions"))
    report = run(kernels.fan_out(pol, [exits, interrupted, print], _direct("s"),
                                 failed=lambda e, error: logged.append(type(error).__name__)))
    assert sorted(logged) == ["KeyboardInterrupt", "SystemExit"]
    assert [o.status.value for o in report.outcomes] == ["failed", "failed", "returned"]


def test_plain_isolate_lets_an_interpreter_exit_leave(kernels: ModuleType) -> None:
    async def exits(signal: Any) -> None:
        raise SystemExit(2)

    with pytest.raises(SystemExit):
        run(kernels.fan_out(kernels.DispatchPolicy.from_axes(**axes()), [exits], _direct("s")))


def test_isolate_base_exceptions_needs_a_non_raising_surface(kernels: ModuleType) -> None:
    with pytest.raises(kernels.PolicyError, match="isolate-forbids-raise-first"):
        kernels.DispatchPolicy.from_axes(**axes(failure="isolate_base_exceptions",
                                                 error_surface="raise_first"))
    kernels.DispatchPolicy.from_axes(**axes(failure="isolate_base_exceptions"))  # log only: fine


def test_cancel_siblings_and_return_cancels_the_others_and_raises_nothing(
        kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    trace: list[str] = []

    async def waits(signal: Any) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            trace.append("sibling cancelled")
            raise

    async def cancels(signal: Any) -> None:
        trace.append("cancelling")
        raise asyncio.CancelledError("own")

    async def main() -> Any:
        pol = kernels.DispatchPolicy.from_axes(**axes(
            concurrency="concurrent", handler_cancellation="cancel_siblings_and_return"))
        report = await kernels.fan_out(pol, [waits, cancels], _direct("s"))
        await asyncio.sleep(0)  # the emitting task is not left cancelled
        return report

    report = run(main())
    assert trace == ["cancelling", "sibling cancelled"]
    assert [o.status.value for o in report.outcomes] == ["cancelled", "cancelled"]
    assert caplog.records == []


def test_cancel_siblings_and_return_in_a_sequential_stage_skips_the_rest(
        kernels: ModuleType) -> None:
    async def cancels(signal: Any) -> None:
        raise asyncio.CancelledError

    pol = kernels.DispatchPolicy.from_axes(**axes(handler_cancellation="cancel_siblings_and_return"))
    report = run(kernels.fan_out(pol, [cancels, print], _direct("s")))
    assert [o.status.value for o in report.outcomes] == ["cancelled", "not_started"]


def test_emitter_cancellation_still_propagates_under_cancel_siblings_and_return(
        kernels: ModuleType) -> None:
    async def main() -> BaseException | None:
        entered = asyncio.Event()

        async def blocks(signal: Any) -> None:
            entered.set()
            await asyncio.Event().wait()

        pol = kernels.DispatchPolicy.from_axes(**axes(
            concurrency="concurrent", handler_cancellation="cancel_siblings_and_return"))
        task = asyncio.ensure_future(kernels.fan_out(pol, [blocks], _direct("s")))
        await entered.wait()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as exc:
            return exc
        return None

    assert isinstance(run(main()), asyncio.CancelledError)


# -- deadline -------------------------------------------------------------------------------------


def test_a_shared_deadline_stops_the_fan_out_silently_or_raises(kernels: ModuleType) -> None:
    async def slow(signal: Any) -> None:
        await asyncio.sleep(5)

    silent = kernels.DispatchPolicy.from_axes(**axes(concurrency="concurrent"),
                                              deadline_disposition="silent_stop",
                                              deadline_seconds=0.02)
    report = run(kernels.fan_out(silent, [slow, slow], _direct("s")))
    assert report.deadline_expired and {o.status.value for o in report.outcomes} == {"timed_out"}
    raising = kernels.DispatchPolicy.from_axes(**axes(), deadline_disposition="raise",
                                               deadline_seconds=0.02)
    with pytest.raises(kernels.DeadlineExceededError) as expired:
        run(kernels.fan_out(raising, [slow, slow], _direct("s")))
    assert isinstance(expired.value, TimeoutError)
    assert [o.status.value for o in expired.value.report.outcomes] == ["timed_out", "not_started"]


# -- DispatchPolicy.from_axes --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["scheduler", "broadcaster", "message_manager_async"])
def test_from_axes_spells_a_named_profile_exactly(kernels: ModuleType, name: str) -> None:
    named = getattr(kernels.DispatchPolicy, name)()
    phase_ = named.phases[0]
    stage_ = phase_.invocation
    spelled = kernels.DispatchPolicy.from_axes(
        concurrency=phase_.concurrency.value, failure=stage_.failure.value,
        completion=stage_.completion.value, error_surface=stage_.error_surface.value,
        sync_handlers=phase_.sync_handlers.value,
        handler_classification=phase_.handler_classification.value,
        returned_value_classifier=phase_.returned_value_classifier.value,
        returned_awaitable=phase_.returned_awaitable.value, sync_entry=phase_.sync_entry.value,
        handler_cancellation=stage_.handler_cancellation.value,
        predicate_failure=phase_.predicate_failure.value)
    assert spelled == named


def test_from_axes_refuses_an_unknown_value_and_a_disposition_without_seconds(
        kernels: ModuleType) -> None:
    with pytest.raises(kernels.PolicyError, match="concurrency must be one of"):
        kernels.DispatchPolicy.from_axes(**axes(concurrency="parallel"))
    with pytest.raises(kernels.PolicyError, match="disposition-requires-deadline"):
        kernels.DispatchPolicy.from_axes(**axes(), deadline_disposition="silent_stop")
    with pytest.raises(TypeError):
        kernels.DispatchPolicy.from_axes(concurrency="sequential")  # every axis is given


# -- the registration table as an owner's handler list -------------------------------------------


def test_the_table_behaves_as_the_handler_list_it_replaces(kernels: ModuleType) -> None:
    class Owner:
        def method(self, signal: Any) -> None:
            return None

    owner = Owner()
    table = kernels.FanoutDispatcher(kernels.DispatchPolicy.broadcaster(), signal_type=object)
    table.subscribe(owner.method)
    table.subscribe(print)
    assert table.handlers == (owner.method, print)
    assert owner.method in table.handlers  # an equal bound method, as `in` on a list
    table.remove_handler(Owner.method.__get__(owner))  # equality, as list.remove
    assert table.handlers == (print,)
    with pytest.raises(ValueError, match=r"list.remove\(x\): x not in list"):
        table.remove_handler(owner.method)
    table.append("not callable")  # as list.append: it fails when it is called
    assert table.handlers == (print, "not callable")
    report = run(table.fan_out(_direct("s")))
    assert [o.status.value for o in report.outcomes] == ["returned", "failed"]
    revision = table.revision
    table.clear()
    assert table.handlers == () and table.revision == revision + 1


def test_the_table_fans_out_over_its_handlers_under_its_policy_and_logger(
        kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("owner.bus")
    table = kernels.FanoutDispatcher(kernels.DispatchPolicy.from_axes(**axes()), logger=logger)

    def bad(signal: Any) -> None:
        raise ValueError("x")

    table.subscribe(bad)
    with caplog.at_level(logging.WARNING):
        report = run(table.fan_out(_direct("s")))
    assert [r.name for r in caplog.records] == ["owner.bus"]  # no failed hook: the kernel's record
    assert report.failures[0].error.args == ("x",)


def test_a_sequential_fan_out_without_a_deadline_needs_no_asyncio_loop(
        kernels: ModuleType) -> None:
    """anyio's trio backend runs SessionObserver.emit: a sequential stage with no deadline
    asks asyncio for nothing (driven here with no event loop at all)."""
    def sync(value: Any, ctx: Any) -> str:
        return f"sync {value}"

    subs = [(lambda seen: [1, 2], sync)]
    coro = kernels.fan_out(kernels.DispatchPolicy.session_observer(), _observer([], subs),
                           _call_with(None))
    with pytest.raises(StopIteration) as finished:
        coro.send(None)
    assert finished.value.value.invocation_values == ("sync 1", "sync 2")
    broadcast = kernels.fan_out(kernels.DispatchPolicy.broadcaster(), [print], _direct("s"))
    with pytest.raises(StopIteration):
        broadcast.send(None)


def test_an_error_raised_out_of_the_fan_out_is_freed_when_the_caller_lets_go(
        kernels: ModuleType) -> None:
    """No reference cycle through the kernel's own records: the error, its frames and what
    they hold go when the caller drops it, as with the loop the kernel replaces (the
    awaitables a raising SessionObserver.emit abandons warn then, not at a collection)."""
    import gc
    import weakref

    class Boom(Exception):
        pass

    def raises(value: Any, ctx: Any) -> None:
        raise Boom

    async def main(policy: Any, entries: Any, step: Any) -> Any:
        try:
            await kernels.fan_out(policy, entries, step)
        except Exception as exc:  # Boom itself, or the scheduler's group of it
            return weakref.ref(exc if isinstance(exc, Boom) else exc.exceptions[0])
        raise AssertionError("not raised")

    gc.disable()
    try:
        for policy, entries, step in (
                (kernels.DispatchPolicy.session_observer(),
                 _observer([], [(lambda seen: [1], raises)]), _call_with(None)),
                (kernels.DispatchPolicy.scheduler(), [raises], lambda h, call: call(h, 1, 2))):
            ref = run(main(policy, entries, step))
            assert ref() is None
    finally:
        gc.enable()
