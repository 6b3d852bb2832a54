"""PS109: a raw asyncio.Event signalling an executable event's completion (ADR-0120 P6)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .lifecycle import Lifecycles, StatusSetter, status_setters
from .names import Names
from .syntax import dotted, header_nodes, lines_of, statements_on

if TYPE_CHECKING:
    from ...project import ProjectFacts

RAW = ("asyncio.Event",)
_CALL = re.compile(r"Event\s*\(")  # LoopEvent( too: an alias is resolved at check time


@dataclass(frozen=True, slots=True)
class Construction:
    """A ``...Event(...)`` call inside a class."""

    cls: str
    line: int
    col: int
    callee: str  # as written: "asyncio.Event"


@dataclass(frozen=True, slots=True)
class EventFacts:
    """What PS109 reads of one file."""

    setters: tuple[StatusSetter, ...]
    made: tuple[Construction, ...]


@register
class RawAsyncPrimitive(Rule):
    """Flag a raw `asyncio.Event` in a class with a status lifecycle.

    ## What it does
    Reports each `asyncio.Event()` created in a method or the body of a class that has a
    `status`-named property with a setter, its own or a base class's: the place ADR-0120 expects
    completion to be signalled through the project's own concurrency primitive. It is resolved
    through imports (`from asyncio import Event`, `import asyncio as aio`).

    ## Why is this bad?
    A raw `asyncio.Event` binds completion to one event loop and one async library, beside the
    internal primitive the rest of the lifecycle uses (anyio-based in lionagi); ADR-0120 P6
    calls it one of the "small symptoms of two lifecycle models being joined by inheritance",
    and D4 makes replacing it "an independently testable mechanical fix".

    ## Example
    ```python
    @property
    def completion_event(self) -> asyncio.Event:
        if self._completion_event is None:
            self._completion_event = asyncio.Event()
        return self._completion_event
    ```

    ## Use instead
    The project's concurrency primitive (in lionagi, `lionagi.ln.concurrency.Event`), set by the
    status setter on a terminal status.

    ## Fix safety
    Safe when the primitive offers `set` / `is_set` / `wait`; check for `clear()`, which
    `anyio.Event` does not have.

    ## References
    ADR-0120 P6 (the Event uses a raw asyncio.Event), D4 (raw concurrency replaced with internal
    primitives).
    """

    code = "PS109"
    kind = "raw_async_primitive"
    severity = "info"
    message = ("{cls} signals completion with a raw {primitive}; use the project's concurrency "
               "primitive")
    FACT_WORDS = ("status", "Event(")
    FACTS = EventFacts
    VALID = [
        """
        import asyncio

        class Ticker:  # no status lifecycle: a plain asyncio.Event is its own business
            def __init__(self):
                self.tick = asyncio.Event()
        """,
    ]
    INVALID = [
        Invalid(
            """
            import asyncio

            class Task:
                def __init__(self):
                    self._status = "pending"
                    self._done = asyncio.Event()

                @property
                def status(self):
                    return self._status

                @status.setter
                def status(self, value):
                    self._status = value
                    self._done.set()
            """,
            line=6,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> EventFacts | None:
        """The file's status setters, and its ``...Event(...)`` calls inside a class."""
        setters = status_setters(tree)
        found = lines_of(_CALL, text)
        lines = set(found)
        made: list[Construction] = []
        for stmt in statements_on(tree, found):
            if not stmt.cls:
                continue
            for node, _ in header_nodes(stmt.node):
                if not isinstance(node, ast.Call) or node.lineno not in lines:
                    continue
                name = dotted(node.func)
                if name and name.endswith("Event"):
                    made.append(Construction(stmt.cls, node.lineno, node.col_offset, name))
        return EventFacts(setters, tuple(made)) if setters or made else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        modules = {f.path: f.module for f in project.files}
        facts: list[tuple[str, EventFacts]] = list(self.facts(project))
        lifecycles = Lifecycles(modules, ((path, f.setters) for path, f in facts), names)
        for path, found in facts:
            module = modules[path]
            for made in found.made:
                primitive = names.resolve(module, made.callee)
                if primitive in RAW and lifecycles.of(f"{module}.{made.cls}"):
                    yield self.at(path, made.line, made.col, self.message.format(
                        cls=made.cls.rsplit(".", 1)[-1], primitive=primitive))
