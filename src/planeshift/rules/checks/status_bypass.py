"""PS106: an Event subclass writing its status field around the base's setter (ADR-0120 P6)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .lifecycle import Lifecycles, status_setters
from .names import Names
from .syntax import self_path, statements

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
    class that defines the setter is its owner and is not reported.

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
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> tuple | None:
        """(status setters, writes): see lifecycle.status_setters; writes are (class, method,
        field, line, col, value) of ``self.<...status...> = value`` in a class's methods."""
        setters = status_setters(tree)
        writes = []
        for stmt in statements(tree):
            node = stmt.node
            if not (stmt.cls and stmt.function and isinstance(node, (ast.Assign, ast.AnnAssign))):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                field = self_path(target)
                if field and "status" in field.rsplit(".", 1)[-1] and node.value is not None:
                    method = stmt.function.rsplit(".", 1)[-1]
                    writes.append((stmt.cls, method, field, node.lineno, node.col_offset,
                                   ast.unparse(node.value)[:60]))
        return (setters, tuple(writes)) if setters or writes else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        lifecycles = Lifecycles(project, self.code, names)
        modules = {f.path: f.module for f in project.files}
        for path, (_, writes) in project.rule_facts(self.code):
            for cls, method, field, line, col, value in writes:
                for base, prop, fields in lifecycles.inherited(f"{modules[path]}.{cls}"):
                    if field in fields and field != prop:
                        yield self.at(path, line, col, self.message.format(
                            cls=cls.rsplit(".", 1)[-1], method=method, field=field, value=value,
                            base=base.rsplit(".", 1)[-1], prop=prop))
                        break
