"""Session audit: a governance gate and the durable audit trail (ADR-0120 P3)."""

from __future__ import annotations

import atexit

from lionagi.protocols.messages import MessageManager
from lionagi.session import SessionObserver
from lionagi.session.signal import Signal


def allow_only_staff(payload) -> bool:
    return getattr(payload, "role", "staff") == "staff"


async def write_audit_row(signal, ctx) -> None:
    print("audit", signal.data)


async def notify_slack(message) -> None:
    print("slack", message)


def wire(observer: SessionObserver) -> MessageManager:
    observer.gate(allow_only_staff)
    observer.observe(Signal, handler=write_audit_row)
    # planeshift: discard-unawaited owner=@shop-team unawaited as today (ADR-0120 D2)
    manager = MessageManager(on_message_added=[lambda msg: notify_slack(msg)])
    atexit.register(print, "bye")  # not a registration
    return manager
