"""Read each ADR-0120 D2 policy axis from a dispatch path's observations, with the lines that
decided it; an axis the path does not decide is "unknown" with the reason, never guessed.

``planeshift explain axes`` (``axes_doc.py``) documents every rule applied here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...types import AxisEvidence
from ..extract.facts import HandlerCall, Result
from .dispatch_paths import Hit, Path, catches_cancel, catches_ordinary

AXES = (
    "concurrency", "failure", "completion", "error_surface", "sync_handlers",
    "handler_classification", "returned_value_classifier", "returned_awaitable", "sync_entry",
    "handler_cancellation", "predicate_failure", "deadline", "deadline_disposition",
)
UNKNOWN = "unknown"
SILENT_DEADLINES = frozenset({"move_on_after", "move_on_at"})


@dataclass(frozen=True, slots=True)
class Reading:
    value: str
    evidence: tuple[AxisEvidence, ...] = ()


def ev(hit: Hit, note: str = "") -> AxisEvidence:
    return AxisEvidence(hit.file, hit.seen.line,
                        f"{hit.function}: {hit.seen.text}" + (f" ({note})" if note else ""))


class PathReader:
    """The axes of one dispatch path; ``read()`` is empty when no handler call is in view."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls = path.of("call")
        handlers = path.of("call", "offload")
        self.live = [h for h in path.of("loop") if any(h.encloses(c) for c in handlers)]
        self.dispositions = {_call(c).result.what for c in self.calls}
        self.via = [c for c in self.calls if _call(c).via]

    def read(self) -> dict[str, Reading]:
        if not self.calls:
            return {}
        out: dict[str, Reading] = {}
        for axis in AXES:
            out[axis] = getattr(self, axis)()
        return out

    # -- how handlers run -------------------------------------------------------------------
    def _spawns(self) -> list[tuple[Hit, Hit]]:
        return [(c, g) for c in self.calls for g in c.guards if g.synthetic()]

    def concurrency(self) -> Reading:
        spawns = self._spawns()
        if spawns or "gathered" in self.dispositions or "task" in self.dispositions:
            conc = [h for h in self.path.of("concurrency")
                    if not h.seen.detail.startswith("gather_awaitables")]
            return Reading("concurrent", tuple(ev(h, "handlers run concurrently") for h in conc)
                           or tuple(ev(c) for c, _ in spawns))
        if self.live:
            return Reading("sequential",
                           tuple(ev(h, "one handler after another") for h in self.live))
        return Reading("not_applicable",
                       tuple(ev(c, "one handler per call, no fan-out") for c in self.calls))

    def _ordinary(self, call: Hit) -> tuple[str, Hit | None]:
        """What an ordinary exception of *call* meets: its first catching clause."""
        for g in call.guards:
            caught, acts = g.clause()
            kind = g.synthetic()
            if kind:
                return ("collect" if kind == "gathered" else f"propagate:{kind}"), g
            if not catches_ordinary(caught):
                continue
            if any(a.startswith("collect:") for a in acts):
                return "collect", g
            if "raise" in acts or any(a.startswith("raise_new:") for a in acts):
                return "propagate", g
            if "break" in acts or "continue" in acts or "return" in acts:
                return f"isolate:{next(a for a in acts if a in ('break', 'continue', 'return'))}", g
            return "isolate", g
        return "propagate", None

    def _failures(self) -> tuple[set[str], list[AxisEvidence]]:
        kinds, evidence = set(), []
        for call in self.calls:
            kind, guard = self._ordinary(call)
            kinds.add(kind)
            if guard is None:
                evidence.append(ev(call, "no except clause around it"))
            else:
                conditional = "raise_if" in guard.clause()[1] and not kind.startswith("propagate")
                note = "the clause re-raises some exceptions" if conditional else ""
                evidence.append(ev(guard, note))
        return kinds, list(dict.fromkeys(evidence))

    def failure(self) -> Reading:
        kinds, evidence = self._failures()
        base = {k.split(":")[0] for k in kinds}
        if len(base) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        return Reading(base.pop(), tuple(evidence))

    def completion(self) -> Reading:
        kinds, evidence = self._failures()
        if len(kinds) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        kind = kinds.pop()
        value = {"collect": "await_all", "isolate": "await_all", "isolate:break": "stop_on_failure",
                 "isolate:continue": "await_all", "isolate:return": "stop_on_failure",
                 "propagate": "stop_on_failure",
                 "propagate:task_group": "cancel_remaining_on_failure",
                 "propagate:gather": UNKNOWN, "propagate:task": "detach_bounded"}[kind]
        concurrency = self.concurrency().value
        if kind == "propagate" and concurrency == "concurrent":
            value = UNKNOWN
        if concurrency == "not_applicable":
            value = "not_applicable"  # one handler: nothing else to complete
        return Reading(value, tuple(evidence))

    def error_surface(self) -> Reading:
        kinds, evidence = self._failures()
        if len(kinds) != 1:
            return Reading(UNKNOWN, tuple(evidence))
        kind = kinds.pop().split(":")
        if kind[0] == "isolate":
            guards = [g for c in self.calls for g in [self._ordinary(c)[1]] if g is not None]
            acts = {a for g in guards for a in g.clause()[1]}
            value = ("log_only" if "log" in acts else
                     "return_report" if "return" in acts else "silent")
            return Reading(value, tuple(evidence))
        if kind[0] == "collect":
            return self._collected_surface(evidence)
        value = {"task_group": "raise_group"}.get(kind[1] if len(kind) > 1 else "", "raise_first")
        return Reading(value, tuple(evidence))

    def _collected_surface(self, evidence: list[AxisEvidence]) -> Reading:
        raises = [h for h in self.path.of("raise") if not h.seen.detail.startswith("translate")]
        details = {h.seen.detail for h in raises}
        shown = tuple(ev(h, "one collected error raised alone, outside the one-error case"
                         if h.seen.detail == "one" else "") for h in raises) or tuple(evidence)
        if "group" in details and "one:single" in details:
            return Reading("unwrap_single_else_group", shown)
        if "group" in details:
            return Reading("raise_group", shown)
        if details & {"one", "one:single"}:
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
        done: set[str] = set()  # a try whose clause re-raised: its other clauses are not tried
        for hit in call.guards:
            caught, acts = hit.clause()
            if hit.seen.root and hit.seen.root in done:
                continue
            if hit.synthetic() == "task_group":
                lib = acts[0].split(":")[1]
                value = "cancel_siblings_and_return" if lib == "anyio" else "absorbed_by_task_group"
                return value, [*seen, hit]
            if hit.synthetic() == "gathered":
                translated = [h for h in self.path.of("raise")
                              if h.seen.detail.startswith("translate")]
                if translated:
                    return "translate", [hit, *translated]
                drops = [h for h in self.path.of("drops") if h.function == hit.function]
                return ("swallowed", [hit, *drops]) if drops else ("collect", [hit])
            if not catches_cancel(caught):
                continue
            if "raise" in acts:
                seen.append(hit)  # re-raised: the next try out (or the caller) meets it
                done.add(hit.seen.root)
                continue
            if any(a.startswith("collect:") for a in acts) or "return" in acts:
                return "collect", [hit]
            if any(a.startswith("raise_new:") for a in acts):
                return "translate", [hit]
            return "swallowed", [hit]
        return "propagate", seen

    # -- what handlers are and what becomes of their results ----------------------------------
    def _wrapped(self) -> Reading | None:
        if not self.via:
            return None
        helper = _call(self.via[0]).via
        return Reading(UNKNOWN, tuple(ev(c, f"the handler is fetched through {helper}(), "
                                             "whose body is not on this path") for c in self.via))

    def sync_handlers(self) -> Reading:
        offloads = self.path.of("offload")
        if offloads:
            return Reading("offload", tuple(ev(h, "a sync handler runs in a worker thread")
                                            for h in offloads))
        return self._wrapped() or Reading(
            "inline", tuple(ev(c, "called in the dispatching task") for c in self.calls))

    def handler_classification(self) -> Reading:
        wrapped = self._wrapped()
        classify = self.path.of("classify")
        declared = [h for h in classify if h.seen.detail.startswith("by_declaration")]
        if declared:
            return Reading("by_declaration", tuple(ev(h) for h in declared))
        if wrapped is not None:
            return wrapped
        inspected = [h for h in classify
                     if h.seen.detail in ("maybe_await", "isawaitable", "iscoroutine")]
        if inspected:
            return Reading("by_return_value", tuple(ev(h) for h in inspected))
        return Reading("not_applicable",
                       tuple(ev(c, "no handler is classified") for c in self.calls))

    def _values(self) -> dict[str, list[tuple[Hit, Result]]]:
        """Handler calls by kind ("declared async" in an ``if is_coro_func(h):`` branch, "sync"
        beside one, else ""), each with what becomes of the value the handler returned: for a
        declared coroutine function, the awaited coroutine's result."""
        declared = any(h.seen.detail.startswith("by_declaration") for h in self.path.of("classify"))
        out: dict[str, list[tuple[Hit, Result]]] = {}
        for call in self.calls:
            value = _call(call).declared_async
            kind = "declared async" if value is not None else "sync" if declared else ""
            out.setdefault(kind, []).append((call, value if value is not None else
                                             _call(call).result))
        return out

    def _per_kind(self, read) -> Reading:
        """One value when every kind of handler reads alike, else "x (sync) / y (declared
        async)"."""
        found = {kind: read(calls) for kind, calls in self._values().items()}
        values = {r.value for r in found.values()}
        evidence = tuple(e for r in found.values() for e in r.evidence)
        if len(values) == 1:
            return Reading(values.pop(), evidence)
        if UNKNOWN in values:
            return Reading(UNKNOWN, evidence)
        kinds = sorted(found.items(), reverse=True)  # sync first
        return Reading(" / ".join(f"{r.value} ({kind})" for kind, r in kinds), evidence)

    def returned_value_classifier(self) -> Reading:
        return self._wrapped() or self._per_kind(self._classifier)

    def _classifier(self, calls: list[tuple[Hit, Result]]) -> Reading:
        kinds = {_classifier_of(value) for _, value in calls}
        value = next((k for k in ("inspect_awaitable", "asyncio_coroutine_only") if k in kinds),
                     "not_inspected")
        functions = {c.function for c, _ in calls}
        tests = [h for h in self.path.of("classify")
                 if h.seen.detail in ("isawaitable", "iscoroutine") and h.function in functions]
        shown = [ev(c, _note(v)) for c, v in calls if _classifier_of(v) == value]
        shown += [ev(h) for h in tests if value != "not_inspected"]
        return Reading(value, tuple(dict.fromkeys(shown)))

    def returned_awaitable(self) -> Reading:
        return self._wrapped() or self._per_kind(self._disposition)

    def _disposition(self, calls: list[tuple[Hit, Result]]) -> Reading:
        dropped = [c for c, v in calls if v.what == "dropped"]
        if dropped:
            return Reading("discard_unawaited",
                           tuple(ev(c, _VALUE_NOTE["dropped"]) for c in dropped))
        gathered = {h.seen.detail.split(":", 1)[1]: h for h in self.path.of("concurrency")
                    if h.seen.detail.startswith("gather_awaitables:")}
        stored = [(c, v.into) for c, v in calls if v.what == "stored" and v.into in gathered]
        if stored:
            return Reading("gather_after_invocations", tuple(ev(c) for c, _ in stored)
                           + tuple(ev(gathered[name]) for name in sorted({n for _, n in stored})))
        if all(v.what in ("awaited", "maybe_await", "gathered") for _, v in calls):
            return Reading("await_in_invocation", tuple(ev(c) for c, _ in calls))
        return Reading(UNKNOWN, tuple(ev(c, "the result leaves the dispatcher") for c, _ in calls))

    def sync_entry(self) -> Reading:
        path = self.path
        entry = AxisEvidence(path.file, path.line, f"{path.entry} is "
                             + ("async: no sync entry" if path.is_async else "a sync entry"))
        if path.is_async:
            return Reading("unavailable", (entry,))
        rejects = [h for h in path.of("classify") if h.seen.detail == "by_declaration:reject"]
        first = min(path.entry_calls, default=0)
        early = [h for h in rejects if h.chain and h.chain[0][1] == first]
        if early:
            return Reading("reject_declared_async_before_owner_effect",
                           (entry, *(ev(h) for h in early)))
        return Reading("allow", (entry, *(ev(h) for h in rejects)))

    # -- predicates and deadlines -------------------------------------------------------------
    def _predicates(self) -> list[Hit]:
        """Filters of the live dispatch loops (or of an entry a caller passed per handler)."""
        live = {(loop.function, loop.seen.line) for loop in self.live}
        return [h for h in self.path.of("predicate")
                if h.seen.root or h.per_item or (h.function, h.seen.at) in live]

    def predicate_failure(self) -> Reading:
        found = self._predicates()
        if not found:
            return Reading("not_applicable", ())
        values, evidence = set(), []
        for p in found:
            kind, guard = self._ordinary(p)
            value = {"collect": "collect_as_handler_failure", "isolate": "isolate",
                     "isolate:break": "isolate", "isolate:continue": "no_match",
                     "isolate:return": "no_match"}.get(kind, "propagate")
            values.add(value)
            note = ("the filter's own method is not on this path: one that catches its errors "
                    "reads as no_match" if p.seen.detail.startswith("method:") else "")
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
        names = {d.seen.detail for d, _ in found}
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
            kind, guard = self._ordinary(call)
            if guard is None or guard.function != deadline.function:
                continue
            start = guard.seen.root.removeprefix("try:")
            if not kind.startswith("isolate") or not start.isdigit():
                continue
            if int(start) <= deadline.seen.line:
                logs = "log" in guard.clause()[1]
                return ("log_and_stop" if logs else "silent_stop"), guard
        return None


_VALUE_NOTE = {
    "dropped": "its result is dropped", "used": "its result is never inspected",
    "maybe_await": "maybe_await awaits it when inspect.isawaitable",
}


def _call(hit: Hit) -> HandlerCall:
    """The handler call a ``call`` observation records."""
    assert hit.seen.call is not None, "a call observation carries its HandlerCall"
    return hit.seen.call


def _note(value: Result) -> str:
    """What the evidence says of a bare result ("dropped", "used", "maybe_await")."""
    bare = not value.classifier and not value.into
    return _VALUE_NOTE.get(value.what, "") if bare else ""


def _classifier_of(value: Result) -> str:
    """The returned-value classifier a result shows (see analyzer/extract/loop_results.py)."""
    if value.what == "maybe_await" or value.classifier == "isawaitable":
        return "inspect_awaitable"
    return "asyncio_coroutine_only" if value.classifier == "iscoroutine" else "not_inspected"
