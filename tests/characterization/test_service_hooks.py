"""Characterization of lionagi 0.36.0's service HookRegistry, HookEvent and HookedEvent."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import warnings
from typing import Any

import pytest
from lionagi._errors import ValidationError
from lionagi.ln.types import Undefined
from lionagi.protocols.types import Event, EventStatus
from lionagi.service.hooks import HookEvent, HookEventTypes, HookRegistry
from lionagi.service.hooks import hooked_event as hooked_module

from .helpers import (
    assert_never_started,
    cancel_when_entered,
    loop_thread_probe,
    outcome,
    record,
    run,
)

pytestmark = pytest.mark.characterization

PRE, POST, CREATE = (HookEventTypes.PreInvocation, HookEventTypes.PostInvocation,
                     HookEventTypes.PreEventCreate)


def hook_event(handler: Any, *, hook_type: HookEventTypes = PRE, **fields: Any) -> HookEvent:
    return HookEvent(registry=HookRegistry(hooks={hook_type: handler}), hook_type=hook_type,
                     event_like=Event(), **{"timeout": 3600.0, **fields})  # no run outlives it


def raising(error: BaseException) -> Any:
    async def handler(event: Any, **kwargs: Any) -> None:
        raise error

    return handler


def test_decorator_keeps_one_handler_per_hook_type_and_warns_on_overwrite() -> None:
    registry = HookRegistry()

    @registry.pre_invoke
    async def first(event: Any, **kwargs: Any) -> str:
        return "first"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @registry.pre_invoke
        async def second(event: Any, **kwargs: Any) -> str:
            return "second"

    assert [str(w.message) for w in caught] == ["Overwriting existing pre_invocation hook"]
    (result, meta) = run(registry.call(Event(), hook_type=PRE))
    assert result == ("second", False, EventStatus.COMPLETED)


def test_constructor_accepts_string_aliases_and_rejects_unknown_keys() -> None:
    registry = HookRegistry(hooks={"pre_invoke": raising(ValueError())})
    assert registry._can_handle(ht_=PRE)
    with pytest.raises(ValidationError) as refused:
        HookRegistry(hooks={"bogus": lambda event: None})
    assert str(refused.value) == (
        "Hook key must be one of ('pre_event_create', 'pre_invocation', 'post_invocation'), "
        "got bogus"
    )


def test_handler_gets_the_event_the_exit_flag_and_params_and_its_result_is_returned() -> None:
    seen: list[tuple[Any, dict[str, Any]]] = []
    event = Event()

    async def handler(ev: Any, **kwargs: Any) -> str:
        seen.append((ev, kwargs))
        return "ok"

    registry = HookRegistry(hooks={PRE: handler})
    result, meta = run(registry.call(event, hook_type=PRE, should_exit=True, user="u"))
    assert result == ("ok", False, EventStatus.COMPLETED)
    assert seen == [(event, {"user": "u", "exit": True})]
    assert meta == {"lion_class": event.class_name(full=True), "event_id": str(event.id),
                    "event_created_at": event.created_at}


def test_sync_handler_is_offloaded_to_a_worker_thread() -> None:
    trace: list[str] = []
    registry = HookRegistry(hooks={PRE: loop_thread_probe(trace, "sync hook")})
    run(registry.call(Event(), hook_type=PRE))
    assert trace == ["sync hook on worker thread"]


def test_coroutine_returned_by_a_sync_handler_is_returned_unawaited() -> None:
    def handler(ev: Any, **kwargs: Any) -> Any:
        return record([], "never")

    (value, should_exit, status), _ = run(
        HookRegistry(hooks={PRE: handler}).call(Event(), hook_type=PRE))
    assert (should_exit, status) == (False, EventStatus.COMPLETED)
    assert_never_started(value)


@pytest.mark.parametrize(
    ("hook_type", "status"),
    [(CREATE, EventStatus.CANCELLED), (PRE, EventStatus.CANCELLED), (POST, EventStatus.ABORTED)],
)
@pytest.mark.parametrize("exit_flag", [False, True])
def test_handler_exception_is_returned_not_raised(
    hook_type: HookEventTypes, status: EventStatus, exit_flag: bool
) -> None:
    boom = ValueError("boom")
    registry = HookRegistry(hooks={hook_type: raising(boom)})
    target = Event if hook_type is CREATE else Event()
    result, _ = run(registry.call(target, hook_type=hook_type, should_exit=exit_flag))
    assert result == (boom, exit_flag, status)


def test_handler_cancellation_is_returned_as_an_undefined_pair_that_requests_exit() -> None:
    cancelled = asyncio.CancelledError("hook gave up")
    registry = HookRegistry(hooks={POST: raising(cancelled)})
    result, _ = run(registry.call(Event(), hook_type=POST))
    assert result == ((Undefined, cancelled), True, EventStatus.CANCELLED)


def test_registry_call_swallows_its_callers_cancellation_and_returns_it_as_a_value() -> None:
    async def main() -> tuple[Any, int]:
        entered = asyncio.Event()

        async def blocking(ev: Any, **kwargs: Any) -> None:
            entered.set()
            await asyncio.Event().wait()

        registry = HookRegistry(hooks={PRE: blocking})
        task = asyncio.ensure_future(registry.call(Event(), hook_type=PRE))
        await entered.wait()
        task.cancel()
        ended = await outcome(task)
        return ended, task.cancelling() if sys.version_info >= (3, 11) else 1  # (3.11+)

    ended, cancelling = run(main())
    assert ended.error is None  # the task that was cancelled completes normally
    (value, should_exit, status), _ = ended.value
    assert (value[0], type(value[1]), should_exit, status) == (
        Undefined, asyncio.CancelledError, True, EventStatus.CANCELLED)
    assert cancelling == 1  # the cancel request is still pending on the task, never honoured


def test_stream_handler_gets_no_event_then_the_chunk_type_and_chunk() -> None:
    seen: list[tuple[Any, ...]] = []

    async def on_text(*args: Any, **kwargs: Any) -> str:
        seen.append((*args, kwargs))
        return "handled"

    registry = HookRegistry(stream_handlers={"text": on_text})
    assert run(registry.call(Event(), chunk_type="text", chunk="hi")) == ("handled", False, None)
    assert seen == [(None, "text", "hi", {"exit": False})]


def test_missing_handlers_are_returned_as_errors_not_raised() -> None:
    registry = HookRegistry()
    chunk = run(registry.call(Event(), chunk_type="audio", chunk=b""))
    hook, _ = run(registry.call(Event(), hook_type=PRE))
    assert (type(chunk[0]), str(chunk[0]), chunk[1:]) == (
        RuntimeError, "No stream handler registered for audio", (False, EventStatus.ABORTED))
    assert (type(hook[0]), str(hook[0]), hook[1:]) == (
        RuntimeError, "Hook type is required when chunk_type is not provided",
        (False, EventStatus.CANCELLED))
    with pytest.raises(ValueError, match="^Either method or chunk_type must be provided$"):
        run(registry.call(Event()))


def test_hook_event_completes_with_the_response_info_and_completion_event() -> None:
    seen: list[str] = []

    async def handler(ev: Any, **kwargs: Any) -> str:
        seen.append(f"status while running: {h_ev.status.value}")
        return "verdict"

    h_ev = hook_event(handler, params={"k": 1})
    completion = h_ev.completion_event
    run(h_ev.invoke())
    assert seen == ["status while running: processing"]
    assert (h_ev.status, h_ev.execution.response, h_ev.execution.error) == (
        EventStatus.COMPLETED, "verdict", None)
    assert set(h_ev.associated_event_info) == {"lion_class", "event_id", "event_created_at"}
    assert completion.is_set()
    assert (h_ev._should_exit, h_ev._exit_cause) == (False, None)


@pytest.mark.parametrize("exit_flag", [False, True])
def test_hook_event_records_a_handler_failure_as_cancelled(exit_flag: bool) -> None:
    boom = ValueError("boom")
    h_ev = hook_event(raising(boom), exit=exit_flag)
    assert run(outcome(h_ev.invoke())).error is None
    assert (h_ev.status, h_ev.execution.response, h_ev.execution.error) == (
        EventStatus.CANCELLED, None, "boom")
    assert (h_ev._should_exit, h_ev._exit_cause) == (exit_flag, boom)


def test_hook_event_deadline_fails_the_event_with_a_timeout_error() -> None:
    trace: list[str] = []

    async def slow(ev: Any, **kwargs: Any) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            trace.append("handler cancelled at the deadline")
            raise

    h_ev = hook_event(slow, timeout=0.05)
    completion = h_ev.completion_event
    assert run(outcome(h_ev.invoke())).error is None
    assert trace == ["handler cancelled at the deadline"]
    assert (h_ev.status, h_ev.execution.error, type(h_ev._exit_cause)) == (
        EventStatus.FAILED, "", TimeoutError)
    assert h_ev._should_exit is False and completion.is_set()


def test_hook_event_emitter_cancellation_propagates_and_leaves_it_cancelled() -> None:
    async def main() -> tuple[Any, HookEvent]:
        entered = asyncio.Event()

        async def blocking(ev: Any, **kwargs: Any) -> None:
            entered.set()
            await asyncio.Event().wait()

        h_ev = hook_event(blocking)
        return await cancel_when_entered(h_ev.invoke(), entered), h_ev

    result, h_ev = run(main())
    assert isinstance(result.error, asyncio.CancelledError)
    assert (h_ev.status, h_ev._should_exit) == (EventStatus.CANCELLED, True)


@pytest.fixture
def hook_log(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replaces the module's global DataLogger, which would write ./data/logs at exit."""
    logged: list[str] = []

    class Recorder:
        async def alog(self, h_ev: Any) -> None:
            logged.append(f"{HookEventTypes(h_ev.hook_type).value}: {h_ev.status.value}")

    monkeypatch.setattr(hooked_module, "global_hook_logger", Recorder())
    return logged


def hooked(trace: list[str], *, core_error: BaseException | None = None,
           chunks: tuple[str, ...] = (), stream_error: BaseException | None = None,
           block: asyncio.Event | None = None) -> Any:
    class Work(hooked_module.HookedEvent):
        async def _core_invoke(self) -> str:
            trace.append("core")
            if core_error is not None:
                raise core_error
            return "core result"

        async def _core_stream(self) -> Any:
            for chunk in chunks:
                yield chunk
            if block is not None:
                block.set()
                await asyncio.Event().wait()
            if stream_error is not None:
                raise stream_error

    return Work()


def with_hooks(work: Any, *, pre: Any = None, post: Any = None, exit_hook: bool = False) -> Any:
    if pre is not None:
        work.create_pre_invoke_hook(HookRegistry(hooks={PRE: pre}), exit_hook, 3600.0)
    if post is not None:
        work.create_post_invoke_hook(HookRegistry(hooks={POST: post}), exit_hook, 3600.0)
    return work


def test_pre_hook_failure_fails_the_event_before_its_core_runs(hook_log: list[str]) -> None:
    trace: list[str] = []
    work = with_hooks(hooked(trace), pre=raising(ValueError("denied")))
    run(work.invoke())
    assert (work.status, trace, hook_log) == (EventStatus.FAILED, [], [])
    error = work.execution.error
    assert (type(error), str(error)) == (RuntimeError, "Pre-invoke hook cancelled: denied")


@pytest.mark.parametrize("exit_hook", [False, True])
def test_post_hook_failure_is_ignored_unless_the_hook_requests_exit(
    hook_log: list[str], exit_hook: bool
) -> None:
    trace: list[str] = []
    boom = ValueError("post failed")
    work = with_hooks(hooked(trace), post=raising(boom), exit_hook=exit_hook)
    run(work.invoke())
    assert trace == ["core"]
    if exit_hook:  # the hook's own exception is raised, so the event fails with it
        assert (work.status, work.execution.error, hook_log) == (EventStatus.FAILED, boom, [])
    else:  # ABORTED is not among the statuses _invoke checks, so the failure passes
        assert (work.status, work.execution.response) == (EventStatus.COMPLETED, "core result")
        assert hook_log == ["post_invocation: aborted"]


def test_core_error_wins_over_a_failing_post_hook_which_still_runs(hook_log: list[str]) -> None:
    trace: list[str] = []

    async def post(ev: Any, **kwargs: Any) -> None:
        trace.append("post hook")
        raise ValueError("post failed")

    core_error = KeyError("core failed")
    work = with_hooks(hooked(trace, core_error=core_error), post=post, exit_hook=True)
    run(work.invoke())
    assert trace == ["core", "post hook"]
    assert (work.status, work.execution.error) == (EventStatus.FAILED, core_error)


async def consume(work: Any, *, stop_after: int | None = None) -> list[str]:
    got: list[str] = []
    async with contextlib.aclosing(work.stream()) as stream:
        async for chunk in stream:
            got.append(chunk)
            if stop_after is not None and len(got) == stop_after:
                break
    return got


def stream_state_probe(seen: list[str], work_ref: list[Any]) -> Any:
    async def post(ev: Any, **kwargs: Any) -> None:
        seen.append(work_ref[0].stream_terminal_state.value)

    return post


@pytest.mark.parametrize(
    ("ending", "state", "status"),
    [("exhausted", "completed", EventStatus.COMPLETED), ("raised", "failed", EventStatus.FAILED),
     # an early stop closes the generator with GeneratorExit, a BaseException: CANCELLED
     ("consumer stopped", "closed", EventStatus.CANCELLED)],
)
def test_post_stream_hook_sees_how_the_stream_ended(
    hook_log: list[str], ending: str, state: str, status: EventStatus
) -> None:
    seen: list[str] = []
    work_ref: list[Any] = []
    error = ValueError("x") if ending == "raised" else None
    work = hooked([], chunks=("a", "b"), stream_error=error)
    work_ref.append(with_hooks(work, post=stream_state_probe(seen, work_ref)))
    # a stream that raised ends quietly for its consumer: Event.stream records the failure
    got = run(consume(work, stop_after=1 if ending == "consumer stopped" else None))
    assert got == (["a"] if ending == "consumer stopped" else ["a", "b"])
    assert (seen, work.status) == ([state], status)


def test_post_stream_hook_sees_cancelled_when_the_consumer_is_cancelled(
    hook_log: list[str],
) -> None:
    seen: list[str] = []
    work_ref: list[Any] = []

    async def main() -> Any:
        block = asyncio.Event()
        probe = stream_state_probe(seen, work_ref)
        work_ref.append(with_hooks(hooked([], block=block), post=probe))
        return await cancel_when_entered(consume(work_ref[0]), block)

    assert isinstance(run(main()).error, asyncio.CancelledError)
    assert (seen, work_ref[0].status) == (["cancelled"], EventStatus.CANCELLED)


def test_post_stream_hook_failure_is_logged_at_warning_not_raised(
    hook_log: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    work = with_hooks(hooked([], chunks=("a",)), post=raising(ValueError("post failed")))
    assert run(consume(work)) == ["a"]
    assert work.status == EventStatus.COMPLETED
    assert [(r.levelname, r.getMessage()) for r in caplog.records
            if r.name == hooked_module.__name__] == [
        ("WARNING", "Post-stream hook failed (data already sent): post failed")]
    assert hook_log == ["post_invocation: aborted"]
