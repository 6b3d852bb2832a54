"""Renderers that turn a ScanResult into a report: JSON, Markdown and the rich terminal view."""

from __future__ import annotations
