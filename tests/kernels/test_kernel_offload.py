"""The owner's offload: a sync handler runs where the owner ran it (anyio's worker threads, with
their limiter and ``anyio.from_thread``), not on a thread of the kernel's own."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from .helpers import run

anyio = pytest.importorskip("anyio")
import anyio.from_thread  # noqa: E402
import anyio.to_thread  # noqa: E402


def _anyio_offload(fn: Any) -> Any:
    return anyio.to_thread.run_sync(fn, abandon_on_cancel=True)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


def _handler(seen: dict[str, Any]) -> Any:
    def sync_handler(signal: object) -> str:
        seen["thread"] = threading.current_thread().name
        seen["from_thread"] = anyio.from_thread.run_sync(lambda: "back on the loop")
        return "done"

    return sync_handler


def test_the_owners_offload_runs_the_handler_on_its_worker_threads(kernels: ModuleType) -> None:
    seen: dict[str, Any] = {}
    dispatcher = kernels.FanoutDispatcher(
        kernels.DispatchPolicy.terminal_callback(deadline_seconds=30.0), offload=_anyio_offload)
    dispatcher.subscribe(_handler(seen), name="h")
    report = run(dispatcher.emit("envelope"))
    assert [o.status for o in report.outcomes] == [kernels.OutcomeStatus.RETURNED]
    assert seen == {"thread": seen["thread"], "from_thread": "back on the loop"}
    assert seen["thread"].startswith("AnyIO worker thread")


def test_without_it_the_kernels_own_thread_has_no_way_back_to_the_loop(
        kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    seen: dict[str, Any] = {}
    dispatcher = kernels.FanoutDispatcher(
        kernels.DispatchPolicy.terminal_callback(deadline_seconds=30.0))
    dispatcher.subscribe(_handler(seen), name="h")
    report = run(dispatcher.emit("envelope"))
    assert [o.status for o in report.outcomes] == [kernels.OutcomeStatus.FAILED]
    assert seen["thread"].startswith("offload:")  # the difference a migrated owner must not make
    assert any(r.levelno == logging.WARNING for r in caplog.records)


def test_fan_out_takes_the_offload_too(kernels: ModuleType) -> None:
    seen: dict[str, Any] = {}
    policy = kernels.DispatchPolicy.terminal_callback(deadline_seconds=30.0)

    async def step(entry: Any, call: Any) -> Any:
        return await call(entry, "envelope")

    report = run(kernels.fan_out(policy, [_handler(seen)], step, offload=_anyio_offload))
    assert report.values == ("done",) and seen["from_thread"] == "back on the loop"


def test_a_deadline_abandons_a_thread_the_offload_started(
        kernels: ModuleType, release: threading.Event) -> None:
    def blocking(signal: object) -> None:
        release.wait(30)

    dispatcher = kernels.FanoutDispatcher(
        kernels.DispatchPolicy.terminal_callback(deadline_seconds=0.05), offload=_anyio_offload)
    dispatcher.subscribe(blocking, name="blocking")

    async def main() -> Any:
        return await dispatcher.emit("envelope")

    report = asyncio.run(main())
    assert [o.status for o in report.outcomes] == [kernels.OutcomeStatus.ABANDONED_UNKNOWN]
    assert report.deadline_expired
