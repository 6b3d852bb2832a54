"""planeshift: inventory, lint and migrate hook, signal and callback machinery (ADR-0120 planes)."""

from __future__ import annotations

__version__ = "0.1.0"
