"""The MessageManager profiles against lionagi 0.36.0's own MessageManager: same callbacks, same outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from .helpers import run

manager = pytest.importorskip("lionagi.protocols.messages.manager")  # the test extra pins lionagi 0.36.0

Shape = tuple[Any, Any, list[str]]


def _raises(exc_type: type[BaseException]) -> Callable[[object], None]:
    def callback(msg: object) -> None:
        raise exc_type("raised by a callback")

    return callback


SCENARIOS = {
    "one failure": [ValueError],
    "two failures": [ValueError, KeyError],
    "one cancellation": [asyncio.CancelledError],
    "cancellation and failure": [ValueError, asyncio.CancelledError],
    "keyboard interrupt and failure": [KeyboardInterrupt, ValueError],
    "system exit": [SystemExit],
}


def _shape(call: Callable[[], Any], drained: list[str]) -> Shape:
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - the shape of whatever leaves is what is compared
        members = [type(e) for e in exc.exceptions] if isinstance(exc, BaseExceptionGroup) else None
        return type(exc), members, drained
    return None, None, drained


def _through_lionagi(raised: list[type[BaseException]]) -> Shape:
    drained: list[str] = []
    mm = manager.MessageManager()
    mm._on_message_added[:] = [*map(_raises, raised), lambda msg: drained.append("later")]
    return _shape(lambda: mm.add_message(instruction="hello"), drained)


def _through_kernel(k: ModuleType, raised: list[type[BaseException]]) -> Shape:
    drained: list[str] = []
    dispatcher = k.FanoutDispatcher(k.DispatchPolicy.message_manager_sync())
    for callback in [*map(_raises, raised), lambda msg: drained.append("later")]:
        dispatcher.subscribe(callback)
    return _shape(lambda: dispatcher.emit_sync("hello", snapshot=dispatcher.preflight_sync()), drained)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_sync_profile_raises_what_lionagi_add_message_raises(kernels: ModuleType, scenario: str) -> None:
    expected = _through_lionagi(SCENARIOS[scenario])
    assert expected[2] == ["later"]  # lionagi drained the later callback
    assert _through_kernel(kernels, SCENARIOS[scenario]) == expected


def test_async_profile_treats_the_emitters_cancellation_as_lionagi_a_add_message_does(
    kernels: ModuleType,
) -> None:
    async def waits(msg: object) -> None:
        await asyncio.sleep(5)

    async def cancel_while_waiting(emit: Callable[[], Any], drained: list[str]) -> tuple[bool, list[str]]:
        task = asyncio.ensure_future(emit())
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled(), drained

    lionagi_drained: list[str] = []
    mm = manager.MessageManager()
    mm._on_message_added[:] = [waits, lambda msg: lionagi_drained.append("later")]
    expected = run(cancel_while_waiting(lambda: mm.a_add_message(instruction="x"), lionagi_drained))

    drained: list[str] = []
    dispatcher = kernels.FanoutDispatcher(kernels.DispatchPolicy.message_manager_async())
    dispatcher.subscribe(waits)
    dispatcher.subscribe(lambda msg: drained.append("later"))
    assert run(cancel_while_waiting(lambda: dispatcher.emit("x"), drained)) == expected == (True, ["later"])
