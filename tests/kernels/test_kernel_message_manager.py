"""MessageManager profiles: sync preflight before mutation, drain then re-raise, discard unawaited."""

from __future__ import annotations

import asyncio
import functools
import gc
import warnings
from types import ModuleType
from typing import Any

import pytest

from .helpers import run


class Owner:
    """A minimal synchronous owner: preflight, then mutate, then emit with the snapshot."""

    def __init__(self, k: ModuleType) -> None:
        self.messages: list[str] = []
        self.dispatcher = k.FanoutDispatcher(k.DispatchPolicy.message_manager_sync())

    def add_message(self, text: str) -> Any:
        snapshot = self.dispatcher.preflight_sync()  # may refuse: before any owner effect
        self.messages.append(text)
        return self.dispatcher.emit_sync(text, snapshot=snapshot)


def _fail(message: str) -> Any:
    def callback(msg: object) -> None:
        raise ValueError(message)

    return callback


def _cancel(msg: object) -> None:
    raise asyncio.CancelledError("callback cancelled")


async def _async_callback(tag: str, msg: object) -> None:
    return None


def test_declared_async_callback_is_refused_in_preflight_before_mutation(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    owner.dispatcher.subscribe(functools.partial(_async_callback, "p"), name="async_cb")
    with pytest.raises(kernels.SyncEntryError, match="async_cb"):
        owner.add_message("hello")
    assert owner.messages == []


def test_sync_callback_returning_an_awaitable_never_runs_it(kernels: ModuleType) -> None:
    ran: list[str] = []

    async def work() -> None:
        ran.append("ran")

    owner = Owner(kernels)
    owner.dispatcher.subscribe(lambda msg: work(), name="wrapper")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = owner.add_message("hello")
        gc.collect()
    assert ran == []
    assert report.outcomes[0].status is kernels.OutcomeStatus.DISCARDED
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_one_failure_is_raised_itself_after_draining(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    drained: list[str] = []
    owner.dispatcher.subscribe(_fail("only"))
    owner.dispatcher.subscribe(lambda msg: drained.append("later"))
    with pytest.raises(ValueError, match="only"):
        owner.add_message("hello")
    assert drained == ["later"] and owner.messages == ["hello"]


def test_many_failures_raise_a_group(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    owner.dispatcher.subscribe(_fail("a"))
    owner.dispatcher.subscribe(_fail("b"))
    with pytest.raises(ExceptionGroup) as caught:
        owner.add_message("hello")
    assert [str(e) for e in caught.value.exceptions] == ["a", "b"]


def test_one_cancellation_is_delayed_until_drain_and_raised_as_itself(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    drained: list[str] = []
    owner.dispatcher.subscribe(_cancel)
    owner.dispatcher.subscribe(lambda msg: drained.append("later"))
    with pytest.raises(asyncio.CancelledError, match="callback cancelled"):
        owner.add_message("hello")
    assert drained == ["later"]


def test_cancellation_with_failure_raises_a_base_group_never_an_ordinary_error(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    owner.dispatcher.subscribe(_fail("a"))
    owner.dispatcher.subscribe(_cancel)
    with pytest.raises(BaseExceptionGroup) as caught:
        owner.add_message("hello")
    assert not isinstance(caught.value, Exception)
    kinds = [type(e) for e in caught.value.exceptions]
    assert kinds == [ValueError, asyncio.CancelledError]


def test_async_profile_awaits_declared_coroutines_inline_and_discards_sync_awaitables(
    kernels: ModuleType,
) -> None:
    ran: list[str] = []

    async def declared(msg: object) -> str:
        await asyncio.sleep(0)
        ran.append("declared")
        return "v"

    async def wrapped() -> None:
        ran.append("wrapped")

    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.message_manager_async())
    dispatcher.subscribe(declared)
    dispatcher.subscribe(lambda msg: wrapped())
    report = run(dispatcher.emit("hello"))
    assert ran == ["declared"]
    status = kernels.OutcomeStatus
    assert [o.status for o in report.outcomes] == [status.RETURNED, status.DISCARDED]
    with pytest.raises(kernels.SyncEntryError):
        dispatcher.preflight_sync()


def test_async_profile_collects_cancellation_until_drain(kernels: ModuleType) -> None:
    drained: list[str] = []

    async def cancels(msg: object) -> None:
        raise asyncio.CancelledError("async cancel")

    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.message_manager_async())
    dispatcher.subscribe(cancels)
    dispatcher.subscribe(lambda msg: drained.append("later"))

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError, match="async cancel"):
            await dispatcher.emit("hello")

    run(main())
    assert drained == ["later"]


def test_snapshot_from_another_revision_or_dispatcher_is_refused(kernels: ModuleType) -> None:
    owner = Owner(kernels)
    registration = owner.dispatcher.subscribe(lambda msg: None)
    snapshot = owner.dispatcher.preflight_sync()
    owner.dispatcher.subscribe(lambda msg: None)
    with pytest.raises(kernels.SnapshotError, match="revision"):
        owner.dispatcher.emit_sync("x", snapshot=snapshot)
    fresh = owner.dispatcher.preflight_sync()
    assert owner.dispatcher.unsubscribe(registration) is True
    with pytest.raises(kernels.SnapshotError):
        owner.dispatcher.emit_sync("x", snapshot=fresh)
    other = Owner(kernels)
    with pytest.raises(kernels.SnapshotError, match="another dispatcher"):
        owner.dispatcher.emit_sync("x", snapshot=other.dispatcher.preflight_sync())


def _raise(exc: BaseException) -> Any:
    def callback(msg: object) -> None:
        raise exc

    return callback


def test_one_system_exit_is_collected_drained_and_raised_as_itself(kernels: ModuleType) -> None:
    """ADR-0120 D2 (MessageManager): "Both catch BaseException, drain later callbacks, then re-raise
    one value or a BaseExceptionGroup; a collected cancellation is therefore delayed until drain and
    is never converted into an ordinary error."
    """
    exit_ = SystemExit(3)
    owner = Owner(kernels)
    drained: list[str] = []
    owner.dispatcher.subscribe(_raise(exit_))
    owner.dispatcher.subscribe(lambda msg: drained.append("later"))
    with pytest.raises(SystemExit) as caught:
        owner.add_message("hello")
    assert caught.value is exit_  # the one value, unwrapped
    assert drained == ["later"] and owner.messages == ["hello"]


def test_keyboard_interrupt_with_a_failure_raises_a_base_group_after_draining(kernels: ModuleType) -> None:
    """ADR-0120 D2 (MessageManager): "Both catch BaseException, drain later callbacks, then re-raise
    one value or a BaseExceptionGroup; a collected cancellation is therefore delayed until drain and
    is never converted into an ordinary error."
    """
    owner = Owner(kernels)
    drained: list[str] = []
    owner.dispatcher.subscribe(_raise(KeyboardInterrupt("k")))
    owner.dispatcher.subscribe(_fail("v"))
    owner.dispatcher.subscribe(lambda msg: drained.append("later"))
    with pytest.raises(BaseExceptionGroup) as caught:
        owner.add_message("hello")
    assert not isinstance(caught.value, Exception)  # not an ExceptionGroup: it holds a BaseException
    assert [type(e) for e in caught.value.exceptions] == [KeyboardInterrupt, ValueError]
    assert drained == ["later"]


def test_async_profile_catches_base_exceptions_from_declared_and_plain_callbacks(
    kernels: ModuleType,
) -> None:
    """ADR-0120 D2 (MessageManager): "Both catch BaseException, drain later callbacks, then re-raise
    one value or a BaseExceptionGroup; a collected cancellation is therefore delayed until drain and
    is never converted into an ordinary error."
    """
    drained: list[str] = []

    async def exits(msg: object) -> None:
        await asyncio.sleep(0)
        raise SystemExit(1)

    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.message_manager_async())
    dispatcher.subscribe(exits)
    dispatcher.subscribe(_raise(KeyboardInterrupt("k")))
    dispatcher.subscribe(lambda msg: drained.append("later"))

    async def main() -> BaseException:
        with pytest.raises(BaseExceptionGroup) as caught:
            await dispatcher.emit("hello")
        return caught.value

    group = run(main())
    assert [type(e) for e in group.exceptions] == [SystemExit, KeyboardInterrupt]
    assert drained == ["later"]


def test_async_profile_drains_later_callbacks_after_the_emitters_cancellation(
    kernels: ModuleType,
) -> None:
    """ADR-0120 D2 (MessageManager): "Both catch BaseException, drain later callbacks, then re-raise
    one value or a BaseExceptionGroup; a collected cancellation is therefore delayed until drain and
    is never converted into an ordinary error." The emitter's cancellation reaches the awaited
    callback, is caught there like anything else (as in lionagi's a_add_message), and leaves after
    the later callbacks ran.
    """
    drained: list[str] = []

    async def waits(msg: object) -> None:
        await asyncio.sleep(5)

    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.message_manager_async())
    dispatcher.subscribe(waits)
    dispatcher.subscribe(lambda msg: drained.append("later"))

    async def main() -> bool:
        task = asyncio.create_task(dispatcher.emit("hello"))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled()

    assert run(main()) is True  # still a cancellation, never an ordinary error
    assert drained == ["later"]
