"""PS109 raw_async_primitive: a raw asyncio.Event in a class with a status lifecycle (ADR-0120 P6)."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree

from .test_status_bypass import SUB, scan_lifecycle


def test_a_raw_asyncio_event_in_a_lifecycle_subclass_under_an_alias(tmp_path: Path) -> None:
    result = scan_lifecycle(tmp_path)
    found = [(f.file, f.line, f.severity) for f in result.findings if f.rule == "PS109"]
    assert found == [("app/hooks.py", line_of(SUB, "LoopEvent()"), "info")]


def test_an_asyncio_event_in_a_class_without_a_lifecycle_is_left_alone(tmp_path: Path) -> None:
    source = """
        import asyncio


        class Ticker:
            def __init__(self) -> None:
                self.tick = asyncio.Event()
                self.status = "idle"  # a plain attribute, no property with a setter
        """
    result = scan_tree(tmp_path, {"app/tick.py": source}, demo=False, packs=())
    assert [f for f in result.findings if f.rule == "PS109"] == []
