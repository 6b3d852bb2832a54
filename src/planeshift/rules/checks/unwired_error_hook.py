"""PS102: an error-hook field that is stored but never invoked anywhere (ADR-0120 P4, D7)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register

if TYPE_CHECKING:
    from ...project import ProjectFacts


@register
class UnwiredErrorHook(Rule):
    """Flag error-hook fields that are stored but never invoked anywhere in the project.

    ## What it does
    Finds attributes named like an error hook (`on_error`, `on_failure`, `error_hooks`,
    `_error_handlers`, ...) that a class stores (`self.x = ...` or a class-level field) while no
    code in the scanned tree calls them (`obj.on_error(...)`, `obj._error_hooks[k](...)`),
    loops over them calling each entry, or fetches them by name with `getattr`.

    ## Why is this bad?
    A caller who registers an error hook believes failures will reach it; they never do.
    ADR-0120 P4 names this defect ("some error-hook fields are stored but never invoked") and D7
    rules that AgentSpec / CodingToolkit error hooks are either wired into the explicit error
    stage or formally deprecated, never silently dropped.

    ## Example
    ```python
    class Toolkit:
        def __init__(self):
            self._error_hooks = {}

        def on_error(self, tool, handler):
            self._error_hooks.setdefault(tool, []).append(handler)
    ```

    ## Use instead
    Invoke the hooks from the error path (an error stage of the interceptor chain), or deprecate
    the API with a warning so callers know it does nothing.

    ## Fix safety
    Wiring a hook starts running user code on failures that never ran it before; do it as a
    reviewed behaviour change.

    ## References
    ADR-0120 P4, D7 (error hooks never silently dropped), D8 (residual errors).
    """

    code = "PS102"
    kind = "unwired_error_hook"
    severity = "warning"
    message = "{owner}.{attr} stores error hooks but nothing in the project invokes them"
    VALID = [
        """
        class Toolkit:
            def __init__(self):
                self._error_hooks = []

            def fail(self, exc):
                for hook in self._error_hooks:
                    hook(exc)
        """,
    ]
    INVALID = [
        Invalid(
            """
            class Toolkit:
                def __init__(self):
                    self._error_hooks = {}

                def on_error(self, tool, handler):
                    self._error_hooks.setdefault(tool, []).append(handler)
            """,
            line=3,
        ),
    ]

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        invoked: set[str] = set()
        for summary in project.files:
            invoked |= summary.invoked
        for summary in project.files:
            for owner, attr, line in summary.error_stores:
                if attr not in invoked:
                    yield self.at(summary.path, line, 0, self.message.format(owner=owner, attr=attr))
