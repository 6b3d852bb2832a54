"""Characterization of lionagi 0.36.0's MessageManager callbacks (protocols/messages/manager.py)."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
from lionagi.protocols.messages.manager import MessageManager
from lionagi.state.compat import StateCompatibilityRefused

from .helpers import (
    BaseExceptionGroup,
    ExceptionGroup,
    Outcome,
    ProbeAwaitable,
    assert_never_started,
    cancel_when_entered,
    messages,
    outcome,
    record,
    run,
)

pytestmark = pytest.mark.characterization

LOGGER = "lionagi.protocols.messages.manager"
PATHS = ["add_message", "a_add_message"]


def add(manager: MessageManager, path: str, **fields: Any) -> Outcome:
    """Add one instruction through the sync or the async entry; how it ended."""
    fields = fields or {"instruction": "hello"}
    if path == "add_message":
        try:
            return Outcome(value=manager.add_message(**fields))
        except BaseException as exc:  # noqa: BLE001 -- the ending is what the test asserts on
            return Outcome(error=exc)
    return run(outcome(manager.a_add_message(**fields)))


def tracer(trace: list[str], label: str, *, fail: BaseException | None = None) -> Any:
    def callback(*args: Any) -> None:
        trace.append(label)
        if fail is not None:
            raise fail

    return callback


async def async_callback(msg: Any) -> None:
    """A declared coroutine function, as the sync path refuses it."""


@pytest.mark.parametrize("path", PATHS)
def test_callbacks_run_in_order_with_the_message_already_in_the_pile(path: str) -> None:
    trace: list[str] = []
    manager = MessageManager()

    def first(msg: Any) -> None:
        trace.append(f"first: in pile={msg in manager.messages}")

    manager._on_message_added.extend([first, tracer(trace, "second")])
    added = add(manager, path).value
    assert trace == ["first: in pile=True", "second"]
    assert list(manager.messages) == [added]


@pytest.mark.parametrize("callback", [async_callback, functools.partial(async_callback)])
def test_sync_path_rejects_a_declared_async_callback_before_the_message_is_created(
    callback: Any,
) -> None:
    trace: list[str] = []
    manager = MessageManager(on_message_added=[tracer(trace, "sync callback"), callback])
    error = add(manager, "add_message").error
    assert type(error) is RuntimeError
    assert str(error) == (
        f"Async on_message_added callback {callback!r} cannot fire from the sync add_message "
        "path. Use a_add_message from an async context instead."
    )
    assert (len(manager.messages), trace) == (0, [])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["coroutine", "custom awaitable", "asyncio.Future"])
def test_awaitable_returned_by_a_sync_callback_is_discarded_unawaited(path: str, kind: str) -> None:
    trace: list[str] = []
    returned: list[Any] = []

    def wrapper(msg: Any) -> Any:
        if kind == "coroutine":
            returned.append(record(trace, "coroutine body"))
        elif kind == "custom awaitable":
            returned.append(ProbeAwaitable(trace, "custom awaitable awaited"))
        else:
            returned.append(asyncio.Future(loop=asyncio.new_event_loop()))
        return returned[-1]

    manager = MessageManager(on_message_added=[wrapper, tracer(trace, "next")])
    assert add(manager, path).error is None
    assert trace == ["next"]
    if kind == "coroutine":
        assert_never_started(returned[0])
    if kind == "asyncio.Future":
        assert not returned[0].done()
        returned[0].get_loop().close()


@pytest.mark.parametrize("path", PATHS)
def test_single_failure_is_raised_as_itself_after_later_callbacks_ran(path: str) -> None:
    trace: list[str] = []
    boom = ValueError("boom")
    manager = MessageManager(on_message_added=[tracer(trace, "failing", fail=boom),
                                               tracer(trace, "later")])
    assert add(manager, path).error is boom
    assert trace == ["failing", "later"]
    assert len(manager.messages) == 1


@pytest.mark.parametrize("path", PATHS)
def test_several_failures_are_raised_as_one_group_in_callback_order(path: str) -> None:
    first, second = ValueError("one"), KeyError("two")
    manager = MessageManager(on_message_added=[tracer([], "a", fail=first),
                                               tracer([], "b", fail=second)])
    error = add(manager, path).error
    assert type(error) is ExceptionGroup
    assert str(error) == "on_message_added hooks failed (2 sub-exceptions)"
    assert error.exceptions == (first, second)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("exit_kind", [SystemExit, KeyboardInterrupt])
def test_interpreter_exit_is_collected_later_callbacks_drained_then_raised(
    path: str, exit_kind: type[BaseException]
) -> None:
    trace: list[str] = []
    stop = exit_kind("stop")
    manager = MessageManager(on_message_added=[tracer(trace, "exiting", fail=stop),
                                               tracer(trace, "drained")])
    assert add(manager, path).error is stop
    assert trace == ["exiting", "drained"]


@pytest.mark.parametrize("path", PATHS)
def test_interpreter_exit_beside_an_ordinary_failure_is_a_base_exception_group(path: str) -> None:
    stop, boom = SystemExit(3), ValueError("boom")
    manager = MessageManager(on_message_added=[tracer([], "a", fail=stop),
                                               tracer([], "b", fail=boom)])
    error = add(manager, path).error
    assert type(error) is BaseExceptionGroup
    assert error.exceptions == (stop, boom)


@pytest.mark.parametrize("path", PATHS)
def test_store_refusal_among_failures_is_raised_alone_and_the_others_logged(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    refusal = StateCompatibilityRefused("insert_message", "v1", "read-only")
    manager = MessageManager(on_message_added=[
        tracer([], "a", fail=ValueError("ordinary")),
        tracer([], "b", fail=refusal),
        tracer([], "c", fail=asyncio.CancelledError("teardown")),
    ])
    assert add(manager, path).error is refusal
    assert messages(caplog, LOGGER) == [
        ("WARNING",
         "on_message_added callback error beside a store refusal: ValueError('ordinary')")
    ]


def test_sync_path_snapshots_callbacks_before_the_mutation_async_path_after() -> None:
    seen: dict[str, list[str]] = {}
    for path in PATHS:
        trace: list[str] = seen.setdefault(path, [])
        manager = MessageManager()
        # a pile-rewritten callback (fired while a system message is being set) registers a
        # message-added callback in the middle of the add
        manager._on_pile_rewritten.append(
            lambda m=manager, t=trace: m._on_message_added.append(tracer(t, "late callback"))
        )
        add(manager, path, system="be brief")
    assert seen == {"add_message": [], "a_add_message": ["late callback"]}


def test_constructor_list_is_held_by_reference_unless_it_is_empty() -> None:
    trace: list[str] = []
    given, empty = [tracer(trace, "given")], []
    holding = MessageManager(on_message_added=given)
    detached = MessageManager(on_message_added=empty)
    given.append(tracer(trace, "appended to given"))
    empty.append(tracer(trace, "appended to empty"))
    add(holding, "add_message")
    add(detached, "add_message")
    assert trace == ["given", "appended to given"]


def test_pile_rewritten_callbacks_get_no_arguments_on_set_system_and_clear() -> None:
    trace: list[str] = []
    manager = MessageManager()
    manager._on_pile_rewritten.extend([tracer(trace, "first"), tracer(trace, "second")])
    manager.set_system(manager.create_system(system="s"))
    manager.clear_messages()
    assert trace == ["first", "second"] * 2


@pytest.mark.parametrize("path", PATHS)
def test_system_message_fires_pile_rewritten_before_message_added(path: str) -> None:
    trace: list[str] = []
    manager = MessageManager(on_message_added=[tracer(trace, "message added")])
    manager._on_pile_rewritten.append(tracer(trace, "pile rewritten"))
    add(manager, path, system="be brief")
    assert trace == ["pile rewritten", "message added"]


@pytest.mark.parametrize("path", PATHS)
def test_pile_rewritten_failure_propagates_at_once_and_message_added_never_fires(path: str) -> None:
    trace: list[str] = []
    boom = RuntimeError("view out of sync")
    manager = MessageManager(on_message_added=[tracer(trace, "message added")])
    manager._on_pile_rewritten.extend([tracer(trace, "failing", fail=boom),
                                       tracer(trace, "skipped")])
    assert add(manager, path, system="be brief").error is boom
    assert trace == ["failing"]
    # the system message was already put at the head of the pile
    assert [type(m).__name__ for m in manager.messages] == ["System"]


def test_async_path_awaits_declared_async_callbacks_inline_in_order() -> None:
    trace: list[str] = []

    async def slow(msg: Any) -> None:
        trace.append("async start")
        for _ in range(3):
            await asyncio.sleep(0)
        trace.append("async end")

    manager = MessageManager(on_message_added=[tracer(trace, "sync 1"), slow,
                                               tracer(trace, "sync 2")])
    add(manager, "a_add_message")
    assert trace == ["sync 1", "async start", "async end", "sync 2"]


def test_async_callback_may_add_a_message_itself_the_pile_lock_is_released() -> None:
    manager = MessageManager()

    async def reply_once(msg: Any) -> None:
        if len(manager.messages) == 1:
            await manager.a_add_message(assistant_response="ack")

    manager._on_message_added.append(reply_once)
    add(manager, "a_add_message")
    assert [type(m).__name__ for m in manager.messages] == ["Instruction", "AssistantResponse"]


def test_async_callback_cancellation_is_collected_drained_then_raised_as_itself() -> None:
    trace: list[str] = []
    cancelled = asyncio.CancelledError("callback gave up")

    async def cancelling(msg: Any) -> None:
        raise cancelled

    manager = MessageManager(on_message_added=[cancelling, tracer(trace, "drained")])
    assert add(manager, "a_add_message").error is cancelled
    assert trace == ["drained"]


def test_async_cancellation_beside_an_ordinary_failure_is_a_base_exception_group() -> None:
    cancelled, boom = asyncio.CancelledError("gave up"), ValueError("boom")

    async def cancelling(msg: Any) -> None:
        raise cancelled

    manager = MessageManager(on_message_added=[cancelling, tracer([], "b", fail=boom)])
    error = add(manager, "a_add_message").error
    assert type(error) is BaseExceptionGroup
    assert error.exceptions == (cancelled, boom)


def test_emitter_cancellation_is_collected_and_later_callbacks_still_run_to_completion() -> None:
    trace: list[str] = []

    async def main() -> Outcome:
        entered = asyncio.Event()

        async def blocking(msg: Any) -> None:
            entered.set()
            await asyncio.Event().wait()

        async def later(msg: Any) -> None:
            await asyncio.sleep(0)
            trace.append("later callback completed")

        manager = MessageManager(on_message_added=[blocking, later])
        return await cancel_when_entered(manager.a_add_message(instruction="hi"), entered)

    assert isinstance(run(main()).error, asyncio.CancelledError)
    assert trace == ["later callback completed"]
