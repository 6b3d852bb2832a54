"""Cases about time: a handler's own cancellation, the emitter's cancellation, deadlines.

The emitter's cancellation is not an axis the scan reads; its expectation is derived, and the
test's docstring says from what: in a sequential loop the emitter's cancellation is raised inside
the handler being awaited, so it meets the same clauses as that handler's own cancellation; a
concurrent fan-out (or a gather of returned awaitables) cancels its running handlers and lets the
cancellation propagate, as structured concurrency does.
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import Case
from .policy import Unknown
from .scenario import BUDGET, CaseBase, lit, observe


class TimingCases(CaseBase):
    def handler_cancellation(self) -> Iterator[Case]:
        value = self.p.value("handler_cancellation")
        axis = "handler_cancellation"
        if self.p.sequential:
            plain = self.p.plain
            run = observe(f'{plain}("h1", raises="cancel")', f'{plain}("h2")')
            later, ran, gone = "h2", 'assert "h2" in seen.trace', 'assert "h2" not in seen.trace'
        else:
            run = observe('Coro("h1", raises="cancel")', 'Coro("h2", hold=0.2)')
            later, ran, gone = "h2 end", 'assert "h2 end" in seen.trace', None
        if value == "propagate":
            body = [run, "assert isinstance(seen.error, asyncio.CancelledError)",
                    "assert seen.logged == []", *([gone] if gone else [])]
            what = "propagates to the emitter unlogged" + (
                ", and the handlers after it never run" if gone else "")
        elif value == "collect":
            body = [run, ran, 'assert "h1" in seen.surfaced']
            what = f"is collected: {later!r} still happens, then the cancellation is raised"
        elif value == "translate":
            body = [run, 'assert seen.error is not None and seen.error is not seen.raised["h1"]',
                    "assert isinstance(seen.error.__cause__, asyncio.CancelledError)"]
            what = "is raised as another exception, whose cause is the cancellation"
        elif value == "swallowed":
            body = [run, "assert seen.error is None", ran]
            what = "is swallowed: the emission goes on and returns"
        elif value in ("cancel_siblings_and_return", "absorbed_by_task_group") and (
                not self.p.sequential):
            sibling = ('assert "h2 cancelled" in seen.trace' if value.startswith("cancel")
                       else ran)
            body = [run, "assert seen.error is None", sibling, "assert seen.logged == []"]
            what = ("cancels the other running handlers, and the emission returns normally"
                    if value.startswith("cancel") else
                    "ends that handler only: the others finish and the emission returns")
        else:
            raise Unknown(axis, f"no scenario observes {value} here")
        yield self.case(axis, "handler_cancelling_itself", f"{axis} = {value}: a handler's "
                        f"own cancellation {what}.", body, ("concurrency",))

    def emitter_cancellation(self) -> Iterator[Case]:
        """Derived from concurrency, handler_cancellation and the declared-async mode."""
        if not self.p.is_async:
            raise Unknown("sync_entry", "a sync emission cannot be cancelled from outside")
        mode = self.p.declared_async()
        plain = self.p.plain
        also = ("concurrency", "handler_cancellation", "handler_classification")
        if mode == "never":
            raise Unknown("returned_awaitable", "no handler of this path is awaited")
        if not self.p.sequential:
            body = [observe('Blocking("h1")', 'Blocking("h2")', cancel_when='("h1", "h2")'),
                    "assert seen.cancelled",
                    'assert "h1 cancelled" in seen.trace and "h2 cancelled" in seen.trace']
            value, what = "propagate", "cancels every running handler and propagates"
        elif mode == "gathered":
            body = [observe('Blocking("h1")', f'{plain}("h2")', cancel_when='("h1",)'),
                    "assert seen.cancelled",
                    f"assert seen.trace == {lit(['h2', 'h1 entered', 'h1 cancelled', 'emit raised'])}"]
            value = "propagate"
            what = "cancels the gathered awaitables and propagates"
        else:
            inner = self.p.value("handler_cancellation")
            if inner == "propagate":
                trace = ["h1 entered", "h1 cancelled", "emit raised"]
                what = "cancels the running handler, skips the rest and propagates"
            elif inner == "collect":
                trace = ["h1 entered", "h1 cancelled", "h2", "emit raised"]
                what = ("is collected like a handler's: the later handlers still run, then the "
                        "cancellation is raised")
            else:
                raise Unknown("handler_cancellation", f"the emitter's cancellation under "
                              f"handler_cancellation = {inner} is not derived")
            value = inner
            body = [observe('Blocking("h1")', f'{plain}("h2")', cancel_when='("h1",)'),
                    "assert seen.cancelled", f"assert seen.trace == {lit(trace)}"]
        yield self.case("emitter_cancellation", "emitter_cancelled_mid_emission",
                        f"emitter cancellation ({value}, derived from concurrency and "
                        f"handler_cancellation): cancelling the emitting task {what}.",
                        body, also, value=value)

    # -- deadlines -----------------------------------------------------------------------------
    def _deadline_run(self) -> str:
        value = self.p.value("deadline")
        if value not in ("shared", "per_handler"):
            raise Unknown("deadline", f"deadline = {value}: nothing to pin")
        if self.budget is None:
            raise Unknown("deadline", self.budget_note or "no budget knob")
        second = 'Blocking("h2")' if not self.p.sequential else f'{self.p.plain}("h2")'
        return observe('Blocking("h1")', second, budget=repr(BUDGET))

    def deadline(self) -> Iterator[Case]:
        value = self.p.raw("deadline")
        if value in ("none", "not_applicable"):
            return
        run = self._deadline_run()
        body = [run, 'assert "h1 cancelled" in seen.trace']
        what = "cuts a handler that outlives the budget"
        if not self.p.sequential:
            body.insert(2, 'assert "h2 cancelled" in seen.trace')
            what = "ends the whole fan-out within one budget, cancelling what still runs"
        elif value == "shared":
            body.insert(2, 'assert "h2" not in seen.trace')
            what = "is one budget for the whole fan-out: once spent, no later handler starts"
        yield self.case("deadline", "handler_outliving_the_budget",
                        f"deadline = {value}: the deadline (given {BUDGET:g} s through "
                        f"{self.budget}) {what}.", body)

    def deadline_disposition(self) -> Iterator[Case]:
        if self.p.raw("deadline") in ("none", "not_applicable"):
            return
        value = self.p.value("deadline_disposition")
        run = self._deadline_run()
        if value == "silent_stop":
            body = [run, "assert seen.error is None",
                    "assert [r for r in seen.records if r.level >= logging.WARNING] == []"]
            what = "the emission returns normally and nothing is logged"
        elif value == "raise":
            body = [run, "assert any(isinstance(e, TimeoutError) for e in leaves(seen.error))"]
            what = "the emission raises a TimeoutError"
        elif value == "log_and_stop":
            body = [run, "assert seen.error is None",
                    "assert any(isinstance(r.exc, TimeoutError) for r in seen.records)"]
            what = "the TimeoutError is logged and the emission returns normally"
        else:
            raise Unknown("deadline_disposition", f"no scenario observes {value}")
        yield self.case("deadline_disposition", "budget_runs_out",
                        f"deadline_disposition = {value}: when the budget runs out, {what}.",
                        body, ("deadline",))

    def predicate_failure(self) -> Iterator[Case]:
        value = self.p.raw("predicate_failure")
        if value in ("not_applicable", "unknown"):
            if value == "unknown":
                raise Unknown("predicate_failure", self.p.why.get("predicate_failure", ""))
            return iter(())
        raise Unknown("predicate_failure",
                      f"predicate_failure = {value}: the scenarios register no predicates")
