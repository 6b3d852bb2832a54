"""Read each ADR-0120 D2 policy axis from a dispatch path's observations, with the lines that
decided it; an axis the path does not decide is "unknown" with the reason, never guessed.

The axes of running and failing live in ``axes_failure.py``, those of what handlers are and
return in ``axes_results.py``; predicates and deadlines are read here. ``planeshift explain
axes`` (``axes_doc.py``) documents every rule applied.
"""

from __future__ import annotations

from ...types import AxisEvidence
from ..extract.observations import Deadline, Predicate
from .axes_failure import FailureAxes
from .axes_results import ResultAxes
from .dispatch_paths import Hit
from .path_view import UNKNOWN, Outcome, Reading, ev

AXES = (
    "concurrency", "failure", "completion", "error_surface", "sync_handlers",
    "handler_classification", "returned_value_classifier", "returned_awaitable", "sync_entry",
    "handler_cancellation", "predicate_failure", "deadline", "deadline_disposition",
)
SILENT_DEADLINES = frozenset({"move_on_after", "move_on_at"})
PREDICATE_FAILURE = {  # any other outcome: "propagate"
    Outcome("collect"): "collect_as_handler_failure", Outcome("isolate"): "isolate",
    Outcome("isolate", "break"): "isolate", Outcome("isolate", "continue"): "no_match",
    Outcome("isolate", "return"): "no_match",
}

__all__ = ["AXES", "UNKNOWN", "PathReader", "Reading"]


class PathReader(FailureAxes, ResultAxes):
    """The axes of one dispatch path; ``read()`` is empty when no handler call is in view."""

    def read(self) -> dict[str, Reading]:
        if not self.calls:
            return {}
        out: dict[str, Reading] = {}
        for axis in AXES:
            out[axis] = getattr(self, axis)()
        return out

    # -- predicates and deadlines -------------------------------------------------------------
    def _predicates(self) -> list[Hit]:
        """Filters of the live dispatch loops (or of an entry a caller passed per handler)."""
        live = {(loop.function, loop.seen.line) for loop in self.live}
        return [h for h in self.path.of("predicate")
                if not h.seen.root.local or h.per_item or (h.function, h.seen.at) in live]

    def predicate_failure(self) -> Reading:
        found = self._predicates()
        if not found:
            return Reading("not_applicable", ())
        values, evidence = set(), []
        for p in found:
            outcome, guard = self._ordinary(p)
            values.add(PREDICATE_FAILURE.get(outcome, "propagate"))
            note = ("the filter's own method is not on this path: one that catches its errors "
                    "reads as no_match" if p.detail(Predicate).on_entry else "")
            evidence += [ev(p, note)] + ([ev(guard)] if guard is not None else [])
        value = values.pop() if len(values) == 1 else UNKNOWN
        return Reading(value, tuple(dict.fromkeys(evidence)))

    def _deadlines(self) -> list[tuple[Hit, str]]:
        handlers = self.path.of("call", "offload")
        out = []
        for d in self.path.of("deadline"):
            if any(d.encloses(c) for c in handlers):
                inside = d.per_item or any(loop.encloses(d) for loop in self.live)
                out.append((d, "per_handler" if inside else "shared"))
        return out

    def deadline(self) -> Reading:
        found = self._deadlines()
        if found:
            kinds = {k for _, k in found}
            value = kinds.pop() if len(kinds) == 1 else UNKNOWN
            return Reading(value, tuple(ev(d, "one budget for the whole fan-out" if k == "shared"
                                           else "a budget per handler") for d, k in found))
        if self.live:
            return Reading("none",
                           tuple(ev(h, "no deadline around the fan-out") for h in self.live))
        return Reading(UNKNOWN, (AxisEvidence(self.path.file, self.path.line, f"{self.path.entry}: "
                                              "no deadline on the dispatcher's own path; "
                                              "its caller may impose one"),))

    def deadline_disposition(self) -> Reading:
        found = self._deadlines()
        if not found:
            dl = self.deadline()
            return Reading("none" if dl.value == "none" else UNKNOWN, dl.evidence)
        names = {d.detail(Deadline).name for d, _ in found}
        if names <= SILENT_DEADLINES:
            return Reading("silent_stop", tuple(ev(d) for d, _ in found))
        if names & SILENT_DEADLINES:
            return Reading(UNKNOWN, tuple(ev(d) for d, _ in found))
        caught = [self._timeout_caught(d) for d, _ in found]
        values = {c[0] if c else "raise" for c in caught}
        value = values.pop() if len(values) == 1 else UNKNOWN
        return Reading(value, tuple(ev(d) for d, _ in found)
                       + tuple(ev(g, "the TimeoutError is caught here") for c in caught if c
                               for g in c[1:]))

    def _timeout_caught(self, deadline: Hit) -> tuple[str, Hit] | None:
        """A raising deadline's TimeoutError meeting an isolating clause whose try holds the
        deadline (a per-handler ``wait_for`` inside ``try: ... except Exception: log``): logged
        or dropped there, not raised."""
        for call in self.calls:
            if not (deadline.encloses(call) or (call.function == deadline.function
                                                and call.seen.line == deadline.seen.line)):
                continue
            outcome, guard = self._ordinary(call)
            if guard is None or guard.function != deadline.function:
                continue
            start = guard.guard.try_line
            if outcome.kind != "isolate" or not start:
                continue
            if start <= deadline.seen.line:
                logs = any(a.kind == "log" for a in guard.guard.actions)
                return ("log_and_stop" if logs else "silent_stop"), guard
        return None
