"""Tool guards on LionAGI's HookBus, installed through a helper."""

from __future__ import annotations

from lionagi.hooks import HookBus, HookPoint


async def deny_shell(tool_name: str = "", **_: object) -> None:
    if tool_name == "bash":
        raise PermissionError("shell tools are not allowed in the shop")


def log_tool(**kwargs: object) -> None:
    print("tool finished", kwargs)


def install_guard(bus: HookBus, point: HookPoint, handler) -> None:
    bus.on(point, handler)


def build_bus() -> HookBus:
    bus = HookBus()
    install_guard(bus, HookPoint.TOOL_PRE, deny_shell)
    install_guard(bus, HookPoint.TOOL_POST, log_tool)
    return bus
