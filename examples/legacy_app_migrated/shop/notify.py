"""Run-terminal notifications and a table-driven HookBus setup."""

from __future__ import annotations

import argparse

from lionagi.hooks import HookBus, HookPoint
from lionagi.state.lifecycle import DEFAULT_TERMINAL_CALLBACKS, TerminalCallbackRegistry

from shop.dispatch import DeliverySink
from shop.dispatch.adapters import (
    SinkRegistration,
    Subscription,
    as_sink,
    as_subscriber,
)


async def page_on_call(envelope) -> None:
    print("page", envelope.entity.kind, envelope.entity.id, envelope.terminal_status)


def register_pager(registry: TerminalCallbackRegistry = DEFAULT_TERMINAL_CALLBACKS) -> None:
    registry.register(
        "shop.pager",
        as_sink(
            SinkRegistration(
                name="shop.notify.page_on_call", port=DeliverySink, handler=page_on_call
            )
        ),
    )


def lifecycle_logging(bus: HookBus) -> None:
    for point in (HookPoint.SESSION_START, HookPoint.SESSION_END):
        bus.on(
            point,
            as_subscriber(
                Subscription(name="builtins.print", policy="hookbus", handler=print)
            ),
        )


def cli() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.register("type", "topic", str)  # not a registration
    return parser
