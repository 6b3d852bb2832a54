"""fan_out_sync: fan_out's synchronous twin for an owner's sync entry (the message-manager sync
profile: every callback runs, failures are collected, one leaves as itself, several as a group)."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest


def _direct(signal: Any) -> Any:
    return lambda handler, call: call(handler, signal)


def _sync_policy(kernels: ModuleType) -> Any:
    return kernels.DispatchPolicy.message_manager_sync()


def test_every_entry_runs_in_order_and_the_report_holds_their_values(kernels: ModuleType) -> None:
    seen: list[str] = []

    def step(entry: str, call: Any) -> str:
        seen.append(entry)
        return entry.upper()

    report = kernels.fan_out_sync(_sync_policy(kernels), ["a", "b"], step)
    assert seen == ["a", "b"]
    assert report.values == ("A", "B")


def test_one_failure_leaves_as_itself_after_the_later_entries_ran(kernels: ModuleType) -> None:
    seen: list[str] = []
    boom = ValueError("a")

    def a(signal: Any) -> None:
        seen.append("a")
        raise boom

    def b(signal: Any) -> None:
        seen.append("b")

    with pytest.raises(ValueError) as caught:
        kernels.fan_out_sync(_sync_policy(kernels), [a, b], _direct(1))
    assert caught.value is boom and seen == ["a", "b"]


def test_several_failures_leave_through_the_owners_group_in_entry_order(kernels: ModuleType) -> None:
    def a(signal: Any) -> None:
        raise ValueError("a")

    def b(signal: Any) -> None:
        raise KeyboardInterrupt("b")  # collected like an ordinary failure, not raised at once

    def c(signal: Any) -> None:
        raise asyncio.CancelledError("c")

    def group(errors: list[BaseException]) -> BaseException:
        return BaseExceptionGroup("owner's group", errors)

    with pytest.raises(BaseExceptionGroup) as caught:
        kernels.fan_out_sync(_sync_policy(kernels), [a, b, c], _direct(1), group=group)
    assert caught.value.message == "owner's group"
    assert [type(e) for e in caught.value.exceptions] == [ValueError, KeyboardInterrupt,
                                                          asyncio.CancelledError]


def test_a_group_hook_may_raise_its_own_exception(kernels: ModuleType) -> None:
    def a(signal: Any) -> None:
        raise ValueError("a")

    def refuse(errors: list[BaseException]) -> BaseException:
        raise LookupError(f"{len(errors)} errors")

    with pytest.raises(LookupError, match="2 errors"):
        kernels.fan_out_sync(_sync_policy(kernels), [a, a], _direct(1), group=refuse)


def test_an_awaitable_a_sync_handler_returns_is_handed_back_unawaited(kernels: ModuleType) -> None:
    ran: list[str] = []

    async def later() -> None:
        ran.append("ran")

    report = kernels.fan_out_sync(_sync_policy(kernels), [lambda s: later()], _direct(1))
    (returned,) = report.values
    assert asyncio.iscoroutine(returned) and ran == []
    assert returned.cr_frame is not None  # neither closed nor awaited
    returned.close()


def test_a_declared_async_handler_that_passed_the_owners_preflight_is_a_failure(
        kernels: ModuleType) -> None:
    async def handler(signal: Any) -> None:
        pass

    with pytest.raises(kernels.SyncEntryError, match="preflight"):
        kernels.fan_out_sync(_sync_policy(kernels), [handler], _direct(1))


def test_a_policy_without_a_sync_entry_is_refused(kernels: ModuleType) -> None:
    with pytest.raises(kernels.SyncEntryError):
        kernels.fan_out_sync(kernels.DispatchPolicy.message_manager_async(), [], _direct(1))


def test_a_propagating_policy_stops_at_the_first_failure(kernels: ModuleType) -> None:
    policy = kernels.DispatchPolicy.from_axes(
        concurrency="sequential", failure="propagate", completion="stop_on_failure",
        error_surface="raise_first", sync_handlers="inline", handler_classification="by_return_value",
        returned_value_classifier="inspect_awaitable", returned_awaitable="discard_unawaited",
        sync_entry="allow", handler_cancellation="propagate", predicate_failure="propagate")
    seen: list[str] = []

    def a(signal: Any) -> None:
        seen.append("a")
        raise ValueError("a")

    with pytest.raises(ValueError):
        kernels.fan_out_sync(policy, [a, lambda s: seen.append("b")], _direct(1))
    assert seen == ["a"]
