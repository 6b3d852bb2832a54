"""PS106: an Event subclass writing its status field around the base's setter (ADR-0120 P6)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .lifecycle import Lifecycles, StatusSetter, status_setters
from .names import Names
from .syntax import dotted, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts


@dataclass(frozen=True, slots=True)
class StatusWrite:
    """``self.<...status...> = value`` in a method of a class."""

    cls: str
    method: str
    field: str  # "execution.status"
    line: int
    col: int
    value: str  # its source, cut at 60 characters


@dataclass(frozen=True, slots=True)
class OutsideWrite:
    """``name.<...status...> = value`` through a name other than ``self`` or ``cls``."""

    function: str  # the enclosing function's qualname ("" at module level)
    receiver: str
    field: str
    line: int
    col: int
    value: str


@dataclass(frozen=True, slots=True)
class StatusFacts:
    """What PS106 reads of one file."""

    setters: tuple[StatusSetter, ...]
    writes: tuple[StatusWrite, ...]
    outside: tuple[OutsideWrite, ...]


@register
class StatusBypass(Rule):
    """Flag a subclass that writes the field its base's status setter owns.

    ## What it does
    Finds classes whose base class (anywhere in the project) defines a `status`-named property
    with a setter, and reports each assignment in the subclass's methods to the field that
    setter writes (`self.execution.status = ...` where `Event.status`'s setter writes
    `self.execution.status`). Writes through the property (`self.status = ...`) are fine. The
    class that defines the setter is its owner and is not reported. Outside the class too: an
    assignment `x.execution.status = ...` through any other name, when `execution.status` is a
    nested field only one status setter of the project writes (the receiver's type is not
    looked up: the field is that specific).

    ## Why is this bad?
    The setter is where the lifecycle's side effects live: validation, and above all the
    completion signal set on a terminal status. A subclass writing the field directly skips
    them, so a waiter on completion can hang even though the work finished (ADR-0120 P6:
    "HookEvent writes execution status directly rather than using the Event status setter, so
    terminal completion signaling can be skipped"; D4: "HookEvent terminal state goes through
    the Event setter").

    ## Example
    ```python
    class HookEvent(Event):
        async def invoke(self):
            self.execution.status = EventStatus.PROCESSING
    ```

    ## Use instead
    ```python
    class HookEvent(Event):
        async def invoke(self):
            self.status = EventStatus.PROCESSING
    ```

    ## Fix safety
    Usually safe, and a behaviour change where it matters: the setter's validation and
    completion signal start to run for that write.

    ## References
    ADR-0120 P6, D4 (HookEvent terminal state goes through the Event setter).
    """

    code = "PS106"
    kind = "status_bypass"
    severity = "warning"
    message = ("{cls}.{method} writes self.{field} = {value} directly, around {base}.{prop}'s "
               "setter (its validation and completion signal do not run)")
    FACT_WORDS = ("status",)
    FACTS = StatusFacts
    VALID = [
        """
        class Task:
            def __init__(self):
                self._status = "pending"

            @property
            def status(self):
                return self._status

            @status.setter
            def status(self, value):
                self._status = value

        class Job(Task):
            def start(self):
                self.status = "running"
        """,
    ]
    INVALID = [
        Invalid(
            """
            class Task:
                def __init__(self):
                    self._status = "pending"

                @property
                def status(self):
                    return self._status

                @status.setter
                def status(self, value):
                    self._status = value

            class Job(Task):
                def start(self):
                    self._status = "running"
            """,
            line=15,
        ),
        Invalid(
            """
            class Execution:
                status = "pending"

            class Event:
                def __init__(self):
                    self.execution = Execution()

                @property
                def status(self):
                    return self.execution.status

                @status.setter
                def status(self, value):
                    self.execution.status = value

            def skip(event):
                event.execution.status = "skipped"
            """,
            line=17,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> StatusFacts | None:
        """The file's status setters, and its writes of status fields in methods (through
        ``self``) and anywhere else (through another name)."""
        setters = status_setters(tree)
        writes: list[StatusWrite] = []
        outside: list[OutsideWrite] = []
        for stmt in statements(tree):
            node = stmt.node
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                path = dotted(target)
                head, _, field = (path or "").partition(".")
                if not field or "status" not in field.rsplit(".", 1)[-1]:
                    continue
                value = ast.unparse(node.value)[:60]
                if head == "self" and stmt.cls and stmt.function:
                    method = stmt.function.rsplit(".", 1)[-1]
                    writes.append(StatusWrite(stmt.cls, method, field, node.lineno,
                                              node.col_offset, value))
                elif head not in ("self", "cls"):
                    outside.append(OutsideWrite(stmt.function, head, field, node.lineno,
                                                node.col_offset, value))
        if not (setters or writes or outside):
            return None
        return StatusFacts(setters, tuple(writes), tuple(outside))

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        modules = {f.path: f.module for f in project.files}
        facts: list[tuple[str, StatusFacts]] = list(self.facts(project))
        lifecycles = Lifecycles(modules, ((path, f.setters) for path, f in facts), names)
        owned = lifecycles.owned_fields()
        for path, found in facts:
            for w in found.writes:
                for setter in lifecycles.inherited(f"{modules[path]}.{w.cls}"):
                    if w.field in setter.writes and w.field != setter.prop:
                        yield self.at(path, w.line, w.col, self.message.format(
                            cls=w.cls.rsplit(".", 1)[-1], method=w.method, field=w.field,
                            value=w.value, base=setter.cls.rsplit(".", 1)[-1], prop=setter.prop))
                        break
            for o in found.outside:
                if o.field in owned:
                    setter = owned[o.field]
                    where = o.function.rsplit(".", 1)[-1] if o.function else "module level"
                    yield self.at(path, o.line, o.col, (
                        f"{where} writes {o.receiver}.{o.field} = {o.value} directly, around "
                        f"{setter.cls.rsplit('.', 1)[-1]}.{setter.prop}'s setter (its validation "
                        f"and completion signal do not run; {o.field} is the field only that "
                        "setter writes)"))
