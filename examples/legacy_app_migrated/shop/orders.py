"""Orders: the home-grown bus, reached in every way the code base grew to use."""

from __future__ import annotations

import functools
import sqlite3

from .events import EventBus, Topic, default_bus, on_topic
from .mailer import send_receipt


class OrderService:
    def __init__(self) -> None:
        self._bus = EventBus()
        # planeshift: discard-unawaited owner=@shop-team ADR-0120 D2
        self._bus.listen(Topic.ORDER_VALIDATE, self.check_stock)
        # planeshift: discard-unawaited owner=@shop-team ADR-0120 D2
        self._bus.listen(Topic.ORDER_PLACED, functools.partial(send_receipt, template="order"))
        # planeshift: discard-unawaited owner=@shop-team ADR-0120 D2
        self._bus.callbacks.append(self.remember)
        self._db = sqlite3.connect(":memory:")  # not a registration

    def check_stock(self, payload: dict) -> None:
        if payload.get("qty", 0) > 10:
            raise ValueError("out of stock")

    def remember(self, payload: dict) -> None:
        self._db.execute("select 1")

    def place(self, order: dict) -> None:
        self._bus.publish(Topic.ORDER_VALIDATE, order)
        self._bus.publish(Topic.ORDER_PLACED, order)


# planeshift: discard-unawaited owner=@shop-team unawaited as today (ADR-0120 D2)
@on_topic(Topic.ORDER_SHIPPED)
def log_shipment(payload: dict) -> None:
    print("shipped", payload)


def late_refund_listener() -> None:
    # planeshift: discard-unawaited owner=@shop-team unawaited as today (ADR-0120 D2)
    default_bus().listen(Topic.ORDER_REFUNDED, log_shipment)


def ship(order: dict) -> None:
    default_bus().publish(Topic.ORDER_SHIPPED, order)
