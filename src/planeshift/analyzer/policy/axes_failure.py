"""The axes of how a dispatch path runs its handlers and what their failures do: concurrency,
failure, completion, error surface and handler cancellation (``axes.py`` assembles them)."""

from __future__ import annotations

from ...types import AxisEvidence
from ..extract.observations import Concurrency, Raise
from .dispatch_paths import Hit, catches_cancel
from .path_view import UNKNOWN, Outcome, PathView, Reading, ev

COMPLETION = {
    Outcome("collect"): "await_all", Outcome("isolate"): "await_all",
    Outcome("isolate", "break"): "stop_on_failure", Outcome("isolate", "continue"): "await_all",
    Outcome("isolate", "return"): "stop_on_failure", Outcome("propagate"): "stop_on_failure",
    Outcome("propagate", "task_group"): "cancel_remaining_on_failure",
    Outcome("propagate", "gather"): UNKNOWN, Outcome("propagate", "task"): "detach_bounded",
}


class FailureAxes(PathView):
    """How handlers run, and where an ordinary exception or a cancellation of one goes."""

    def _spawns(self) -> list[tuple[Hit, Hit]]:
        return [(c, g) for c in self.calls for g in c.guards if g.synthetic()]

    def concurrency(self) -> Reading:
        spawns = self._spawns()
        if spawns or "gathered" in self.dispositions or "task" in self.dispositions:
            conc = [h for h in self.path.of("concurrency") if not h.detail(Concurrency).awaitables]
            return Reading("concurrent", tuple(ev(h, "handlers run concurrently") for h in conc)
                           or tuple(ev(c) for c, _ in spawns))
        if self.live:
            return Reading("sequential",
                           tuple(ev(h, "one handler after another") for h in self.live))
        return Reading("not_applicable",
                       tuple(ev(c, "one handler per call, no fan-out") for c in self.calls))

    def _failures(self) -> tuple[set[Outcome], list[AxisEvidence]]:
        kinds: set[Outcome] = set()
        evidence: list[AxisEvidence] = []
        for call in self.calls:
            outcome, guard = self._ordinary(call)
            kinds.add(outcome)
            if guard is None:
                evidence.append(ev(call, "no except clause around it"))
            else:
                conditional = (any(a.kind == "raise_if" for a in guard.guard.actions)
                               and outcome.kind != "propagate")
                note = "the clause re-raises some exceptions" if conditional else ""
                evidence.append(ev(guard, note))
        return kinds, list(dict.fromkeys(evidence))

    def failure(self) -> Reading:
        kinds, evidence = self._failures()
        base = {k.kind for k in kinds}
        if len(base) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        return Reading(base.pop(), tuple(evidence))

    def completion(self) -> Reading:
        kinds, evidence = self._failures()
        if len(kinds) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        kind = kinds.pop()
        value = COMPLETION[kind]
        concurrency = self.concurrency().value
        if kind == Outcome("propagate") and concurrency == "concurrent":
            value = UNKNOWN
        if concurrency == "not_applicable":
            value = "not_applicable"  # one handler: nothing else to complete
        return Reading(value, tuple(evidence))

    def error_surface(self) -> Reading:
        kinds, evidence = self._failures()
        if len(kinds) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        kind = kinds.pop()
        if kind.kind == "isolate":
            guards = [g for c in self.calls for g in [self._ordinary(c)[1]] if g is not None]
            acts = {a.kind for g in guards for a in g.guard.actions}
            value = ("return_report" if "report" in acts else "log_only" if "log" in acts else
                     "return_report" if "return" in acts else "silent")
            return Reading(value, tuple(evidence))
        if kind.kind == "collect":
            return self._collected_surface(evidence)
        value = "raise_group" if kind.how == "task_group" else "raise_first"
        return Reading(value, tuple(evidence))

    def _collected_surface(self, evidence: list[AxisEvidence]) -> Reading:
        raises = [h for h in self.path.of("raise") if h.detail(Raise).form != "translate"]
        forms = {h.detail(Raise).form for h in raises}
        single = any(h.detail(Raise).single for h in raises)
        shown = tuple(ev(h, "one collected error raised alone, outside the one-error case"
                         if h.detail(Raise) == Raise("one") else "") for h in raises) \
            or tuple(evidence)
        if "group" in forms and single:
            return Reading("unwrap_single_else_group", shown)
        if "group" in forms:
            return Reading("raise_group", shown)
        if "one" in forms:
            return Reading("raise_first", shown)
        return Reading(UNKNOWN, tuple(evidence))

    def handler_cancellation(self) -> Reading:
        values, evidence = set(), []
        for call in self.calls:
            value, hits = self._cancellation(call)
            values.add(value)
            evidence += [ev(h) for h in hits] or [ev(call, "no clause catches a cancellation")]
        value = values.pop() if len(values) == 1 else UNKNOWN
        return Reading(value, tuple(dict.fromkeys(evidence)))

    def _cancellation(self, call: Hit) -> tuple[str, list[Hit]]:
        seen: list[Hit] = []
        done: set[int] = set()  # a try whose clause re-raised: its other clauses are not tried
        for hit in call.guards:
            guard = hit.guard
            if guard.try_line and guard.try_line in done:
                continue
            if guard.implied == "task_group":
                value = ("cancel_siblings_and_return" if guard.library == "anyio"
                         else "absorbed_by_task_group")
                return value, [*seen, hit]
            if guard.implied == "gathered":
                translated = [h for h in self.path.of("raise")
                              if h.detail(Raise).form == "translate"]
                if translated:
                    return "translate", [hit, *translated]
                drops = [h for h in self.path.of("drops") if h.function == hit.function]
                return ("swallowed", [hit, *drops]) if drops else ("collect", [hit])
            if not catches_cancel(guard.caught):
                continue
            acts = {a.kind for a in guard.actions}
            if "raise" in acts:
                seen.append(hit)  # re-raised: the next try out (or the caller) meets it
                done.add(guard.try_line)
                continue
            if "collect" in acts or "return" in acts:
                return "collect", [hit]
            if "raise_new" in acts:
                return "translate", [hit]
            return "swallowed", [hit]
        return "propagate", seen
