"""The shop's own event bus, written before anyone had heard of ADR-0120."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


class Topic(str, enum.Enum):
    ORDER_VALIDATE = "order.validate"
    ORDER_PLACED = "order.placed"
    ORDER_SHIPPED = "order.shipped"
    ORDER_REFUNDED = "order.refunded"  # nobody publishes this any more


class EventBus:
    def __init__(self) -> None:
        self._listeners: dict[Topic, list[Callable]] = {}
        self._callbacks: list[Callable] = []

    @property
    def callbacks(self) -> list[Callable]:
        return self._callbacks

    def listen(self, topic: Topic, callback: Callable) -> None:
        self._listeners.setdefault(topic, []).append(callback)

    def publish(self, topic: Topic, payload: dict) -> None:
        for cb in [*self._listeners.get(topic, []), *self._callbacks]:
            try:
                cb(payload)
            except Exception:
                log.exception("listener failed on %s", topic)


_DEFAULT = EventBus()


def default_bus() -> EventBus:
    return _DEFAULT


def on_topic(topic: Topic):
    def register(fn):
        _DEFAULT.listen(topic, fn)
        return fn

    return register
