"""PS106: an Event subclass writing its status field around the base's setter (ADR-0120 P6)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .lifecycle import Lifecycles, status_setters
from .names import Names
from .syntax import dotted, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts


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

    def file_facts(self, tree: ast.Module, text: str = "") -> tuple | None:
        """(status setters, writes, outside writes): see lifecycle.status_setters; writes are
        (class, method, field, line, col, value) of ``self.<...status...> = value`` in a class's
        methods; outside writes are (function, receiver, field, line, col, value) of
        ``name.<...status...> = value`` anywhere (a name other than ``self``)."""
        setters = status_setters(tree)
        writes, outside = [], []
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
                    writes.append((stmt.cls, method, field, node.lineno, node.col_offset, value))
                elif head not in ("self", "cls"):
                    outside.append((stmt.function, head, field, node.lineno, node.col_offset,
                                    value))
        return (setters, tuple(writes), tuple(outside)) if setters or writes or outside \
            else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        lifecycles = Lifecycles(project, self.code, names)
        modules = {f.path: f.module for f in project.files}
        owned = lifecycles.owned_fields()
        for path, (_, writes, outside) in project.rule_facts(self.code):
            for cls, method, field, line, col, value in writes:
                for base, prop, fields in lifecycles.inherited(f"{modules[path]}.{cls}"):
                    if field in fields and field != prop:
                        yield self.at(path, line, col, self.message.format(
                            cls=cls.rsplit(".", 1)[-1], method=method, field=field, value=value,
                            base=base.rsplit(".", 1)[-1], prop=prop))
                        break
            for function, receiver, field, line, col, value in outside:
                if field in owned:
                    base, prop = owned[field]
                    where = function.rsplit(".", 1)[-1] if function else "module level"
                    yield self.at(path, line, col, (
                        f"{where} writes {receiver}.{field} = {value} directly, around "
                        f"{base.rsplit('.', 1)[-1]}.{prop}'s setter (its validation and "
                        f"completion signal do not run; {field} is the field only that setter "
                        "writes)"))
