"""Receipts by e-mail (async)."""

from __future__ import annotations


async def send_receipt(payload: dict, template: str = "order") -> None:
    print("receipt", template, payload)
