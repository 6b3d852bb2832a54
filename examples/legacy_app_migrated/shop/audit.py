"""Session audit: a governance gate and the durable audit trail (ADR-0120 P3)."""

from __future__ import annotations

import atexit

from lionagi.protocols.messages import MessageManager
from lionagi.session import SessionObserver
from lionagi.session.signal import Signal

from shop.dispatch import InterceptorRegistration
from shop.dispatch.adapters import Subscription, as_interceptor, as_subscriber


def allow_only_staff(payload) -> bool:
    return getattr(payload, "role", "staff") == "staff"


async def write_audit_row(signal, ctx) -> None:
    print("audit", signal.data)


async def notify_slack(message) -> None:
    print("slack", message)


def wire(observer: SessionObserver) -> MessageManager:
    observer.gate(
        as_interceptor(
            InterceptorRegistration(
                name="shop.audit.allow_only_staff",
                stage="GATE",
                handler=allow_only_staff,
                order=0,
            )
        )
    )
    observer.observe(
        Signal,
        handler=as_subscriber(
            Subscription(
                name="shop.audit.write_audit_row",
                policy="session_observer",
                handler=write_audit_row,
            )
        ),
    )
    # planeshift: discard-unawaited owner=@shop-team returned awaitables stay unawaited as today; the flip is its own change (ADR-0120 D2)
    manager = MessageManager(on_message_added=[as_subscriber(Subscription(name="shop.audit.wire.<lambda@on_message_added>", policy="message_manager", handler=lambda msg: notify_slack(msg)))])
    atexit.register(print, "bye")  # not a registration
    return manager
