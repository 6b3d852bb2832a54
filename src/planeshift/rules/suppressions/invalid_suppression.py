"""PS901: a ``# planeshift: ignore`` comment without a rule code or a reason suppresses nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ...types import Finding
from .base import Invalid, SuppressionRule, register

if TYPE_CHECKING:
    from ...types import Suppression


@register
class InvalidSuppression(SuppressionRule):
    """Flag suppression comments that name no rule code or give no reason.

    ## What it does
    Reports each `# planeshift: ignore` comment that is not of the form
    `# planeshift: ignore[CODE, ...] reason`: one without the bracketed rule codes, with
    something other than a rule code in the brackets, or without a reason after them. Such a
    comment suppresses nothing, so the finding it was meant for is reported as well.

    ## Why is this bad?
    A suppression is a decision someone will have to revisit. ADR-0120 D2 asks that every
    DISCARD_UNAWAITED registration be converted deliberately or recorded as intentionally
    discarding, with a named owner: the reason is that record. A blanket or unexplained
    suppression hides hazards nobody can later judge.

    ## Example
    ```python
    bus = EventBus(on_event=[lambda payload: send(payload)])  # planeshift: ignore[PS101]
    ```

    ## Use instead
    ```python
    # planeshift: ignore[PS101] send() is also awaited by the retry queue; owner @hooks-team
    bus = EventBus(on_event=[lambda payload: send(payload)])
    ```

    ## Fix safety
    Write the reason; planeshift cannot know it. This rule's findings cannot be suppressed with a
    comment: turn it off with `severity = {PS901 = "off"}` in `[tool.planeshift]`, or baseline them.

    ## References
    ADR-0120 D2 (the DISCARD_UNAWAITED gate: each site recorded with an owner), P4 ("never
    silently dropped").
    """

    code = "PS901"
    kind = "invalid_suppression"
    severity = "warning"
    message = ("this suppression suppresses nothing: {problem}; "
               "write `# planeshift: ignore[CODE] reason`")
    VALID = [
        """
        from demo.bus import EventBus

        async def send(payload):
            return payload

        # planeshift: ignore[PS101] send() is awaited by the retry queue too; owner @hooks-team
        bus = EventBus(on_event=[lambda payload: send(payload)])
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus

            async def send(payload):
                return payload

            bus = EventBus(on_event=[lambda payload: send(payload)])  # planeshift: ignore[PS101]
            """,
            line=6,
            severity="warning",
        ),
    ]

    def check(self, comments: Sequence[Suppression]) -> Iterator[Finding]:
        for comment in comments:
            if comment.problem:
                yield Finding(self.code, self.kind, comment.file, comment.line, comment.col,
                              self.severity, self.message.format(problem=comment.problem))
