"""PS902: a ``# planeshift: ignore[CODE]`` comment whose code matched no finding."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ...types import Finding
from .base import Invalid, SuppressionRule, register

if TYPE_CHECKING:
    from ...types import Suppression


@register
class UnusedSuppression(SuppressionRule):
    """Flag suppression codes that matched no finding.

    ## What it does
    Reports each rule code in a well-formed `# planeshift: ignore[CODE, ...] reason` comment that
    suppressed no finding on the line it covers (its own line, or the next line when the comment
    stands alone). Each unused code is reported on its own, so `ignore[PS101,PS103]` where only
    PS101 fired reports PS103. A code no rule has is reported as such.

    ## Why is this bad?
    The hazard was fixed or moved, and the comment now records a decision about code that is no
    longer there; left in place, it would silently swallow a new finding on that line later.

    ## Example
    ```python
    async def log(**kw):
        return None

    # planeshift: ignore[PS101] returns nothing
    bus.on(Point.AFTER, log)  # this dispatcher awaits what a handler returns
    ```

    ## Use instead
    Remove the comment (or the unused code from its list).

    ## Fix safety
    Safe: the comment suppresses nothing today. This rule's findings cannot be suppressed with a
    comment: turn it off with `severity = {PS902 = "off"}` in `[tool.planeshift]`, or baseline them.
    Files are judged when `planeshift lint` reads them: each file named on its command line
    (what pre-commit passes), and each file with a finding.

    ## References
    ADR-0120 D2 (the DISCARD_UNAWAITED record stays current).
    """

    code = "PS902"
    kind = "unused_suppression"
    severity = "warning"
    message = "`ignore[{code}]` matched no finding on {where}; remove it{why}"
    VALID = [
        """
        from demo.bus import EventBus

        async def send(payload):
            return payload

        bus = EventBus(on_event=[lambda p: send(p)])  # planeshift: ignore[PS101] owner @a
        note = "# planeshift: ignore[PS101] a string, not a comment"
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus, Point

            async def log(**kw):
                return None

            # planeshift: ignore[PS101] returns nothing
            EventBus().on(Point.AFTER, log)
            """,
            line=6,
            severity="warning",
        ),
    ]

    def check(self, comments: Sequence[Suppression]) -> Iterator[Finding]:
        from ..catalog import rule_codes

        known = set(rule_codes())
        for comment in comments:
            if comment.problem:
                continue  # PS901 reports it; it never suppressed anything
            where = "its line" if comment.covers == (comment.line,) else "the line below it"
            for code in comment.codes:
                if code in comment.used:
                    continue
                why = "" if code in known else f" (planeshift has no rule {code})"
                yield Finding(self.code, self.kind, comment.file, comment.line, comment.col,
                              self.severity, self.message.format(code=code, where=where, why=why))
