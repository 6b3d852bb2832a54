"""PS106 status_bypass: a subclass writing the field its base's status setter owns (ADR-0120 P6)."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree

BASE = """
    import asyncio


    class Execution:
        def __init__(self) -> None:
            self.status = "pending"


    class Event:
        def __init__(self) -> None:
            self.execution = Execution()
            self._done = None

        @property
        def status(self) -> str:
            return self.execution.status

        @status.setter
        def status(self, value: str) -> None:
            self.execution.status = value
            if value in ("completed", "failed") and self._done is not None:
                self._done.set()

        def start(self) -> None:
            self.execution.status = "processing"  # the owner of the setter may
    """

SUB = """
    from asyncio import Event as LoopEvent

    import anyio

    from app.types import Event


    class HookEvent(Event):
        def begin(self) -> None:
            self.execution.status = "processing"
            self.execution.status_note = "started"

        def finish(self) -> None:
            self.status = "completed"

        def waiter(self) -> None:
            self._done = LoopEvent()
            self._other = anyio.Event()
    """


def scan_lifecycle(tmp_path: Path):
    """A base Event with a status setter, re-exported, and a subclass in another module."""
    return scan_tree(tmp_path, {"app/events.py": BASE, "app/types.py": "from .events import Event\n",
                                "app/hooks.py": SUB}, demo=False, packs=())


def test_a_subclass_writing_the_setters_field_through_a_re_export(tmp_path: Path) -> None:
    result = scan_lifecycle(tmp_path)
    found = [(f.file, f.line, f.message) for f in result.findings if f.rule == "PS106"]
    assert found == [("app/hooks.py", line_of(SUB, 'self.execution.status = "processing"'),
                      ("HookEvent.begin writes self.execution.status = 'processing' directly, "
                       "around Event.status's setter (its validation and completion signal do "
                       "not run)"))]
