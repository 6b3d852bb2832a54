"""Tool guards on LionAGI's HookBus, installed through a helper."""

from __future__ import annotations

from lionagi.hooks import HookBus, HookPoint

from shop.dispatch import (
    InterceptorDecision,
    InterceptorDisposition,
    InterceptorRegistration,
)
from shop.dispatch.adapters import (
    Subscription,
    as_interceptor,
    as_subscriber,
    returns_decisions,
)


@returns_decisions(deny=PermissionError)
async def deny_shell(tool_name: str = "", **_: object) -> None:
    if tool_name == "bash":
        return InterceptorDecision(
            disposition=InterceptorDisposition.DENY,
            reason="shell tools are not allowed in the shop",
        )


def log_tool(**kwargs: object) -> None:
    print("tool finished", kwargs)


def install_guard(bus: HookBus, point: HookPoint, handler) -> None:
    bus.on(point, handler)


def build_bus() -> HookBus:
    bus = HookBus()
    install_guard(
        bus,
        HookPoint.TOOL_PRE,
        as_interceptor(
            InterceptorRegistration(
                name="shop.guards.deny_shell",
                stage="TOOL_PRE",
                handler=deny_shell,
                order=0,
            )
        ),
    )
    install_guard(
        bus,
        HookPoint.TOOL_POST,
        as_subscriber(
            Subscription(
                name="shop.guards.log_tool", policy="hookbus", handler=log_tool
            )
        ),
    )
    return bus
