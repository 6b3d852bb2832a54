"""Run-terminal notifications and a table-driven HookBus setup."""

from __future__ import annotations

import argparse

from lionagi.hooks import HookBus, HookPoint
from lionagi.state.lifecycle import DEFAULT_TERMINAL_CALLBACKS, TerminalCallbackRegistry


async def page_on_call(envelope) -> None:
    print("page", envelope.entity.kind, envelope.entity.id, envelope.terminal_status)


def register_pager(registry: TerminalCallbackRegistry = DEFAULT_TERMINAL_CALLBACKS) -> None:
    registry.register("shop.pager", page_on_call)


def lifecycle_logging(bus: HookBus) -> None:
    for point in (HookPoint.SESSION_START, HookPoint.SESSION_END):
        bus.on(point, print)


def cli() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.register("type", "topic", str)  # not a registration
    return parser
