"""Run the shop once, so every hook fires and says what it did: `python -m shop` in this folder."""

from __future__ import annotations

import asyncio

from lionagi.hooks import HookPoint
from lionagi.session import SessionObserver
from lionagi.session.signal import Signal
from lionagi.state.lifecycle import TerminalCallbackRegistry
from lionagi.state.lifecycle.callbacks import EntityRef, RunTerminalEnvelope

from .audit import wire
from .guards import build_bus
from .notify import register_pager
from .orders import OrderService, ship


async def run() -> None:
    bus = build_bus()
    try:
        await bus.emit(HookPoint.TOOL_PRE, tool_name="bash")
    except PermissionError as denied:
        print("denied:", denied)
    await bus.emit(HookPoint.TOOL_POST, tool_name="read")

    observer = SessionObserver()
    manager = wire(observer)
    await observer.emit(Signal(data="order 7 placed"))
    manager.add_message(instruction="hello")  # its callback's coroutine is dropped, unawaited
    print("messages:", len(manager.messages))

    registry = TerminalCallbackRegistry()
    register_pager(registry)
    await registry.emit(RunTerminalEnvelope(
        event_id="run-7", entity=EntityRef("session", "s-7"), previous_status="running",
        terminal_status="completed", reason_code="ok", occurred_at=0.0))

    service = OrderService()
    service.place({"id": 7, "qty": 1})
    service.place({"id": 8, "qty": 99})  # the stock check raises; the bus logs and goes on
    ship({"id": 7})


if __name__ == "__main__":
    asyncio.run(run())
