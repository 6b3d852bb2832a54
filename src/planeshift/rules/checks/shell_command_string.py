"""PS107: external hook commands written as a shell string instead of argv (ADR-0120 D6)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, Valid, register

if TYPE_CHECKING:
    from ...project import ProjectFacts


@register
class ShellCommandString(Rule):
    """Flag external hook commands given as one string.

    ## What it does
    Reports each external hook in a settings file (`hooks_external` in `.lionagi/settings.yaml`,
    `hooks` in Claude Code settings) whose `command` is a string rather than a list of arguments.

    ## Why is this bad?
    ADR-0120 D6: `command` is argv and never reaches a shell. A string either fails at import
    (lionagi's runtime validates argv) or, in tools that still run it through a shell, opens the
    hook to quoting bugs and injection (`|`, `;`, `$(...)`).

    ## Example
    ```yaml
    hooks_external:
      PostToolUse:
        - hooks:
            - command: "python -m audit | tee -a audit.log"
    ```

    ## Use instead
    ```yaml
            - command: ["python", "-m", "audit", "--log", "audit.log"]
    ```

    ## Fix safety
    Safe when the string has no shell syntax (split it with `shlex.split`); otherwise move the
    pipeline into a script and call it with argv.

    ## References
    ADR-0120 D6 (ExternalHookRegistration.command is argv), P7 (schema drift).
    """

    code = "PS107"
    kind = "shell_command_string"
    severity = "error"
    message = "external hook command for {point} is a shell string; give argv (a list)"
    VALID = [
        Valid(
            """
            hooks:
              AfterOrder:
                - hooks:
                    - command: ["python", "-m", "audit", "--log", "audit.log"]
            """,
            path=".demo/hooks.yaml",
        ),
    ]
    INVALID = [
        Invalid(
            """
            hooks:
              AfterOrder:
                - hooks:
                    - command: "python -m audit | tee -a audit.log"
            """,
            line=4,
            path=".demo/hooks.yaml",
        ),
    ]

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        shell = {(f.path, line, event) for f in project.files
                 for line, event, is_string in f.config_commands if is_string}
        for reg in project.registrations:
            if reg.via == "config" and (reg.file, reg.line, reg.point) in shell:
                yield self.on(reg, self.message.format(point=reg.point))
