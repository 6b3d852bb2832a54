"""A small application that uses lionagi 0.36.0 the way users do: the downstream fixture."""

from __future__ import annotations

import shutil
from pathlib import Path

APP = {
    "myapp/__init__.py": "",
    "myapp/hooks.py": '''
from lionagi import Session
from lionagi.hooks import HookBus, HookPoint, StopHook
from lionagi.session.signal import NodeFailed


async def guard(**kw):
    if kw.get("tool") == "rm":
        raise StopHook()


async def audit(**kw):
    return None


def check_prompt(**kw):
    return None


def on_failure(signal, ctx):
    print(signal)


def allow(event):
    return True


def setup(session: Session) -> None:
    bus = session.hooks
    bus.on(HookPoint.TOOL_PRE, guard)
    bus.on("prompt.submit", check_prompt)
    bus.on(HookPoint.SESSION_START, audit)
    bus.on(HookPoint.ARTIFACT_CREATED, audit)
    session.observe(NodeFailed, handler=on_failure)
    session.gate(allow)


def standalone() -> HookBus:
    bus = HookBus()
    bus.on(HookPoint.TOOL_POST, audit)
    return bus
''',
    # helpers of lionagi's whose own registrations happen where the app calls them (directly,
    # by the method's name on an untyped receiver, and through a wrapper of the app's)
    "myapp/boot.py": '''
from lionagi.state.lifecycle.notify_settings import register_settings_terminal_callback
from lionagi.studio.scheduler.signals import SchedulerSignalBus, register_default_handlers


def boot(session, db) -> None:
    register_settings_terminal_callback()
    session.observer.bind_db_persistence(db)
    register_default_handlers(SchedulerSignalBus())


def wire(bus):
    register_default_handlers(bus)


def start():
    wire(SchedulerSignalBus())
''',
    "myapp/messages.py": '''
from lionagi.protocols.messages import MessageManager


async def notify(message):
    return message


def build() -> MessageManager:
    return MessageManager(on_message_added=[lambda message: notify(message)])
''',
}


def write_app(root: Path) -> Path:
    for rel, text in APP.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    return root


def install_lionagi(env: Path, package: Path) -> Path:
    """A copy of lionagi in *env*'s site-packages with its dist-info, as pip leaves it."""
    site = env / "lib" / "python3.11" / "site-packages"
    shutil.copytree(package, site / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "lionagi-0.36.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lionagi\nVersion: 0.36.0\n")
    return site
