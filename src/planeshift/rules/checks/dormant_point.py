"""PS103: registrations on a point that no code ever emits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register

if TYPE_CHECKING:
    from ...project import ProjectFacts


@register
class DormantPoint(Rule):
    """Flag registrations on a point or key that is never emitted.

    ## What it does
    Reports each registration whose point the pack declares dormant, or that no emission site
    in the scanned tree fires (inferred only when the dispatcher's own source is scanned and no
    emission passes a dynamic point).

    ## Why is this bad?
    The handler never runs. A dormant point is usually compatibility vocabulary kept alive for
    one window (ADR-0120 P8: ARTIFACT_CREATED is public but has no emit site); a handler on it is
    dead code that looks alive.

    ## Example
    ```python
    bus.on(HookPoint.ARTIFACT_CREATED, index_artifact)
    ```

    ## Use instead
    Observe a point that is emitted, or remove the handler until the point has an owner.

    ## Fix safety
    Removing the handler changes nothing at run time, by definition; review whether another
    path was meant to call it.

    ## References
    ADR-0120 P8 (dormant values), D7 (dormant HookPoint values stay warned for one window).
    """

    code = "PS103"
    kind = "dormant_point"
    severity = "warning"
    message = "{handler} is registered on {point}, which {mechanism} never emits"
    VALID = [
        """
        from demo.bus import EventBus, Point

        def log(**kw):
            pass

        EventBus().on(Point.AFTER, log)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus, Point

            def log(**kw):
                pass

            EventBus().on(Point.NEVER_EMITTED, log)
            """,
            line=6,
        ),
    ]

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        for reg in project.registrations:
            dormant = project.mechanism(reg.mechanism).dormant_points
            if reg.point and set(reg.point.split("+")) <= dormant:
                yield self.on(reg, self.message.format(handler=reg.handler.expr, point=reg.point,
                                                       mechanism=reg.mechanism))
