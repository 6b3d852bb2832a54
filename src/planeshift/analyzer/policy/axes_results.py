"""The axes of what a dispatch path's handlers are and what becomes of what they return: sync
handlers, handler classification, returned-value classifier, returned awaitable and sync entry
(``axes.py`` assembles them)."""

from __future__ import annotations

from ...types import AxisEvidence
from ..extract.observations import Classify, Concurrency, Result
from .dispatch_paths import Hit
from .path_view import UNKNOWN, PathView, Reading, ev, handler_call

VALUE_NOTE = {
    "dropped": "its result is dropped", "used": "its result is never inspected",
    "maybe_await": "maybe_await awaits it when inspect.isawaitable",
}


class ResultAxes(PathView):
    """How a handler is told sync from async, and what becomes of the value it returns."""

    def _wrapped(self) -> Reading | None:
        if not self.via:
            return None
        helper = handler_call(self.via[0]).via
        return Reading(UNKNOWN, tuple(ev(c, f"the handler is fetched through {helper}(), "
                                             "whose body is not on this path") for c in self.via))

    def sync_handlers(self) -> Reading:
        offloads = self.path.of("offload")
        if offloads:
            return Reading("offload", tuple(ev(h, "a sync handler runs in a worker thread")
                                            for h in offloads))
        return self._wrapped() or Reading(
            "inline", tuple(ev(c, "called in the dispatching task") for c in self.calls))

    def _tests(self, *tests: str) -> list[Hit]:
        """The classify observations of these tests."""
        return [h for h in self.path.of("classify") if h.detail(Classify).test in tests]

    def handler_classification(self) -> Reading:
        wrapped = self._wrapped()
        declared = self._tests("by_declaration")
        if declared:
            return Reading("by_declaration", tuple(ev(h) for h in declared))
        if wrapped is not None:
            return wrapped
        inspected = self._tests("maybe_await", "isawaitable", "iscoroutine")
        if inspected:
            return Reading("by_return_value", tuple(ev(h) for h in inspected))
        return Reading("not_applicable",
                       tuple(ev(c, "no handler is classified") for c in self.calls))

    def _values(self) -> dict[str, list[tuple[Hit, Result]]]:
        """Handler calls by kind ("declared async" in an ``if is_coro_func(h):`` branch, "sync"
        beside one, else ""), each with what becomes of the value the handler returned: for a
        declared coroutine function, the awaited coroutine's result."""
        declared = bool(self._tests("by_declaration"))
        out: dict[str, list[tuple[Hit, Result]]] = {}
        for call in self.calls:
            value = handler_call(call).declared_async
            kind = "declared async" if value is not None else "sync" if declared else ""
            out.setdefault(kind, []).append((call, value if value is not None else
                                             handler_call(call).result))
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
        tests = [h for h in self._tests("isawaitable", "iscoroutine") if h.function in functions]
        shown = [ev(c, _note(v)) for c, v in calls if _classifier_of(v) == value]
        shown += [ev(h) for h in tests if value != "not_inspected"]
        return Reading(value, tuple(dict.fromkeys(shown)))

    def returned_awaitable(self) -> Reading:
        return self._wrapped() or self._per_kind(self._disposition)

    def _disposition(self, calls: list[tuple[Hit, Result]]) -> Reading:
        dropped = [c for c, v in calls if v.what == "dropped"]
        if dropped:
            return Reading("discard_unawaited",
                           tuple(ev(c, VALUE_NOTE["dropped"]) for c in dropped))
        gathered = {h.detail(Concurrency).awaitables: h for h in self.path.of("concurrency")
                    if h.detail(Concurrency).awaitables}
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
        rejects = [h for h in self._tests("by_declaration") if h.detail(Classify).rejects]
        first = min(path.entry_calls, default=0)
        early = [h for h in rejects if h.chain and h.chain[0][1] == first]
        if early:
            return Reading("reject_declared_async_before_owner_effect",
                           (entry, *(ev(h) for h in early)))
        return Reading("allow", (entry, *(ev(h) for h in rejects)))


def _note(value: Result) -> str:
    """What the evidence says of a bare result ("dropped", "used", "maybe_await")."""
    bare = not value.classifier and not value.into
    return VALUE_NOTE.get(value.what, "") if bare else ""


def _classifier_of(value: Result) -> str:
    """The returned-value classifier a result shows (see analyzer/extract/loop_results.py)."""
    if value.what == "maybe_await" or value.classifier == "isawaitable":
        return "inspect_awaitable"
    return "asyncio_coroutine_only" if value.classifier == "iscoroutine" else "not_inspected"
