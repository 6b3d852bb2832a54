"""PS108: a rule pack declares a dispatch policy the dispatcher's own code contradicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...analyzer.policy.policy import stale
from .base import Hazard, Invalid, Rule, register

if TYPE_CHECKING:
    from ...project import ProjectFacts


@register
class StalePackPolicy(Rule):
    """Flag a pack's dispatch-policy declaration that the dispatcher's code no longer reads as.

    ## What it does
    For every mechanism whose dispatcher source is in the scanned tree, planeshift reads each
    ADR-0120 D2 axis from the code that invokes the handlers (`planeshift explain axes`). When
    the rule pack declares a value for an axis and no dispatch path of the mechanism reads as
    that value, the finding names the axis, both values and the line that decided the code's
    value. The report already uses the code's value; the pack is what needs updating.

    ## Why is this bad?
    A declared policy is a claim about today's behaviour. Once the code moves (a release
    isolates failures that used to propagate, a loop starts offloading sync handlers), the
    declaration keeps describing the old loop, and every hazard derived from it (DISCARD_UNAWAITED,
    the Phase 0 behaviour matrix, the profile an adapter claims) is computed from a belief
    instead of the behaviour. ADR-0120 Phase 1 gates each adapter on a matrix row that goes red
    when it is wrong.

    ## Example
    ```yaml
    policy:
      failure: isolate        # the pack's claim
    ```
    ```python
    def fire(self, event):
        for fn in self._listeners:
            fn(event)          # no except clause: a failure propagates to the caller
    ```

    ## Use instead
    Update the pack to what the code does (here `failure: propagate`), or drop the axis from the
    pack so the code's reading stands alone; keep declarations for dispatchers whose source is
    not scanned.

    ## Fix safety
    Editing the pack changes no behaviour; it changes the hazards planeshift derives, so review
    the new DISCARD_UNAWAITED and profile findings it brings.

    ## References
    ADR-0120 D2 (dispatch-policy axes and named profiles), Phase 0 (behaviour matrix read from
    the code), Phase 1 (a matrix row without a characterization test blocks its adapter).
    """

    code = "PS108"
    kind = "stale_pack_policy"
    severity = "warning"
    message = "pack {pack} declares {declared} for {mechanism}, but {entry} reads as {code}"
    VALID = [
        """
        import logging

        log = logging.getLogger(__name__)


        class Relay:
            def __init__(self):
                self._listeners = []

            def listen(self, fn):
                self._listeners.append(fn)

            def fire(self, event):
                for fn in self._listeners:
                    try:
                        fn(event)
                    except Exception:
                        log.exception("listener failed")
        """,
    ]
    INVALID = [
        Invalid(
            """
            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, fn):
                    self._listeners.append(fn)

                def fire(self, event):
                    for fn in self._listeners:
                        fn(event)
            """,
            line=10,
        ),
    ]

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        for mech in project.mechanisms:
            found = stale(mech.policy_axes, mech.dispatch_paths)
            if not found:
                continue
            first = next((e for _, code, _ in found for e in code.evidence if e.file), None)
            if first is None:
                continue
            message = self.message.format(
                pack=mech.model.pack, mechanism=mech.id, entry=found[0][2],
                declared=", ".join(f"{d.axis}={d.declared}" for d, _, _ in found),
                code=", ".join(f"{c.axis}={c.value}" for _, c, _ in found))
            yield self.at(first.file or "", first.line or 1, 0, message, mechanism=mech.id)
