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


RUNNER = """
    from app.types import Event


    def finish_all(events) -> None:
        for event in events:
            event.execution.status = "completed"  # a waiter on completion never wakes


    def note(event) -> None:
        event.execution.status_note = "seen"  # not a field a status setter writes
        event.status = "failed"  # through the setter: fine
    """


def test_a_write_of_the_setters_nested_field_through_any_receiver(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"app/events.py": BASE, "app/types.py": "from .events import Event\n",
                                  "app/run.py": RUNNER}, demo=False, packs=())
    found = [(f.file, f.line, f.message) for f in result.findings if f.rule == "PS106"]
    assert found == [("app/run.py", line_of(RUNNER, 'event.execution.status = "completed"'),
                      ("finish_all writes event.execution.status = 'completed' directly, around "
                       "Event.status's setter (its validation and completion signal do not run; "
                       "execution.status is the field only that setter writes)"))]


def test_a_nested_field_two_setters_write_is_nobodys(tmp_path: Path) -> None:
    other = BASE.replace("class Event:", "class Task:")  # a second setter of execution.status
    result = scan_tree(tmp_path, {"app/events.py": BASE, "app/tasks.py": other,
                                  "app/types.py": "from .events import Event\n",
                                  "app/run.py": RUNNER}, demo=False, packs=())
    assert [f for f in result.findings if f.rule == "PS106" and f.file == "app/run.py"] == []
