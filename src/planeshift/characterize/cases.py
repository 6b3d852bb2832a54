"""The tests of one dispatch path: for each ADR-0120 D2 axis the scan read from the code, a
scenario whose outcome that reading decides, with the outcome asserted.

Every expected value below follows from the path's readings (``policy.py``) and the documented
meaning of each axis value (``planeshift explain axes``), never from a named profile. A value no
scenario here observes, or an expectation that needs an axis the scan left unknown, becomes a
skipped case with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import Case
from .policy import Unknown
from .scenario import Build, S, lit, observe, trace_is
from .timing import TimingCases


class Cases(TimingCases):
    """Builds the cases of one path from its policy."""

    def all(self) -> list[Case]:
        out: list[Case] = []
        groups: list[tuple[str, Build]] = [
            ("concurrency", self.concurrency), ("sync_handlers", self.sync_handlers),
            ("handler_classification", self.classification),
            ("returned_value_classifier", self.classifier),
            ("returned_awaitable", self.disposition), ("sync_entry", self.sync_entry),
            ("failure", self.failure), ("failure", self.base_exception),
            ("completion", self.completion),
            ("error_surface", self.error_surface),
            ("handler_cancellation", self.handler_cancellation),
            ("emitter_cancellation", self.emitter_cancellation),
            ("deadline", self.deadline), ("deadline_disposition", self.deadline_disposition),
            ("predicate_failure", self.predicate_failure),
        ]
        for axis, build in groups:
            try:
                out.extend(build())
            except Unknown as exc:
                out.append(self.skipped(axis, str(exc), exc.axis))
        return out

    # -- order and handler kinds --------------------------------------------------------------
    def concurrency(self) -> Iterator[Case]:
        plain = self.p.plain
        if self.p.sequential:
            specs = [f'{plain}("h1")', f'{plain}("h2")', f'{plain}("h3")']
            trace = ["h1", "h2", "h3"]
            if self.p.is_async and self._inline():  # an async handler in the middle yields
                specs[1], trace[1:2] = 'Async("h2")', ["h2 start", "h2 end"]
            yield self.case("concurrency", "one_at_a_time_in_registration_order",
                            "concurrency = sequential: each handler finishes before the next "
                            "one, registered later, starts.", [observe(*specs), *trace_is(
                                self.p, trace)])
            return
        if not self.p.is_async or self.p.declared_async() == "never":
            raise Unknown("concurrency", "no handler this path awaits can show concurrency")
        yield self.case("concurrency", "all_running_together",
                        "concurrency = concurrent: every handler is running before any of them "
                        "returns, started in registration order.", [
                            observe('Rendezvous("h1")', 'Rendezvous("h2")', 'Rendezvous("h3")'),
                            f"assert seen.trace[:3] == {lit(['h1 waiting', 'h2 waiting', 'h3 waiting'])}",
                            "assert sorted(seen.trace[3:]) == " + lit(
                                ["emit returned", "h1 released", "h2 released", "h3 released"]),
                            'assert seen.trace[-1] == "emit returned"'])

    def sync_handlers(self) -> Iterator[Case]:
        value = self.p.value("sync_handlers")
        if self.p.plain != "Sync":
            raise Unknown("sync_handlers", "every value a handler returns is awaited: the path "
                                           "takes no sync handler")
        where = {"inline": "the emitting", "offload": "a worker"}.get(value)
        if where is None:
            raise Unknown("sync_handlers", f"no scenario observes {value}")
        trace = [f"h1 on {where} thread"]
        if value == "offload" and self.p.offloads_through_anyio():
            where = "an anyio worker"  # the owner's worker threads, from_thread included
            trace = ["h1 on an anyio worker thread", "h1 reached the loop through anyio.from_thread"]
        yield self.case("sync_handlers", f"on_{where.replace(' ', '_')}_thread",
                        f"sync_handlers = {value}: a sync handler runs on {where} thread.",
                        [observe('Where("h1")'),
                         f"assert seen.trace == {lit([*trace, 'emit returned'])}"])

    def classification(self) -> Iterator[Case]:
        mode = self.p.declared_async()
        name = {"inline": "awaited_inline", "gathered": "gathered", "never": "never_runs"}[mode]
        trace = {"inline": ["h1 start", "h1 end", "h2"], "gathered": ["h2", "h1 start", "h1 end"],
                 "never": ["h2"]}[mode]
        if mode == "gathered":
            body = [f"assert seen.trace == {lit([*trace, 'emit returned'])}"]
        else:
            body = trace_is(self.p, trace)
        what = {"inline": "is awaited as it is invoked",
                "gathered": "runs only after every handler was invoked",
                "never": "is called but its body never runs"}[mode]
        also = ("returned_awaitable",) if self.p.value("handler_classification") != (
            "by_declaration") else ()
        yield self.case("handler_classification", f"declared_coroutine_function_{name}",
                        f"handler_classification = {self.p.value('handler_classification')}: a "
                        f"declared coroutine function {what}.",
                        [observe('Async("h1")', f'{self.p.plain}("h2")'), *body], also)

    # -- returned awaitables --------------------------------------------------------------------
    def classifier(self) -> Iterator[Case]:
        classifier = self.p.part("returned_value_classifier", "sync")
        disposition = self.p.part("returned_awaitable", "sync")
        if disposition == "discard_unawaited":
            awaited = {"coroutine": False, "custom awaitable": False, "future": False}
        elif disposition in ("await_in_invocation", "gather_after_invocations"):
            awaited = {"coroutine": True,
                       "custom awaitable": classifier != "asyncio_coroutine_only",
                       "future": classifier != "asyncio_coroutine_only"}
        else:
            raise Unknown("returned_awaitable", f"no scenario observes {disposition}")
        rows = tuple((kind, awaited[kind]) for kind in ("coroutine", "custom awaitable", "future"))
        yield self.case(
            "returned_value_classifier", "which_returned_awaitables_are_awaited",
            f"returned_value_classifier = {classifier}: which awaitables a sync handler returns "
            f"are awaited (returned_awaitable = {disposition}).",
            [observe('Returns("h1", kind)', f'{self.p.plain}("h2")'),
             'assert ("h1 awaited" in seen.trace) is awaited'],
            ("returned_awaitable",), value=classifier, params=("kind, awaited", rows))

    def disposition(self) -> Iterator[Case]:
        value = self.p.part("returned_awaitable", "sync")
        yield self._disposition(value, "Returns", "h1 called", "a sync handler returns")
        if " / " in self.p.value("returned_awaitable") and self._inline():
            inner = self.p.part("returned_awaitable", "declared async")
            yield self._disposition(inner, "AsyncReturns", "h1 start",
                                    "a declared coroutine function's coroutine returns",
                                    "declared_async_")

    def _disposition(self, value: str, spec: str, first: str, who: str, prefix: str = "") -> Case:
        plain = f'{self.p.plain}("h2")'
        if value == "gather_after_invocations":
            body = [f"assert seen.trace == {lit([first, 'h2', 'h1 awaited', 'emit returned'])}"]
            what = "is awaited only after every handler was invoked"
        elif value == "await_in_invocation":
            body = trace_is(self.p, [first, "h1 awaited", "h2"])
            what = "is awaited before the handler counts as done"
        elif value == "discard_unawaited":
            body = trace_is(self.p, [first, "h2"])
            what = "is never awaited"
        else:
            raise Unknown("returned_awaitable", f"no scenario observes {value}")
        return self.case("returned_awaitable", f"{prefix}returned_coroutine",
                         f"returned_awaitable = {value}: a coroutine {who} {what}.",
                         [observe(f'{spec}("h1", "coroutine")', plain), *body], value=value)

    def sync_entry(self) -> Iterator[Case]:
        value = self.p.value("sync_entry")
        if value == "unavailable":
            yield self.case("sync_entry", "is_a_coroutine_function",
                            "sync_entry = unavailable: the emission is a coroutine function.",
                            [f"assert entry_is_async({S})"])
        elif value == "allow":
            yield self.case("sync_entry", "calls_a_declared_coroutine_function",
                            "sync_entry = allow: a sync emission calls a declared coroutine "
                            "function without an error.",
                            [f"assert not entry_is_async({S})",
                             observe('Async("h1")', 'Sync("h2")'), "assert seen.error is None"])
        elif value == "reject_declared_async_before_owner_effect":
            yield self.case("sync_entry", "refuses_a_declared_coroutine_function",
                            "sync_entry = reject_declared_async_before_owner_effect: a declared "
                            "coroutine function makes the sync emission raise before any handler "
                            "runs.",
                            [f"assert not entry_is_async({S})",
                             observe('Sync("h1")', 'Async("h2")'),
                             "assert isinstance(seen.error, Exception)",
                             "assert seen.label(seen.error) is None",
                             'assert seen.trace == ["emit raised"]'])
        else:
            raise Unknown("sync_entry", f"no scenario observes {value}")

    # -- failures --------------------------------------------------------------------------------
    def _failing(self, count: int, ok: str = "h3") -> str:
        plain = self.p.plain
        specs = [f'{plain}("h{i}", raises="error")' for i in range(1, count + 1)]
        return observe(*specs, f'{plain}("{ok}")')

    def base_exception(self) -> Iterator[Case]:
        """A handler's own BaseException (neither an Exception nor a cancellation): what the
        failure and handler_cancellation readings imply for it; nothing where they imply
        nothing (the failure axis says why it is not pinned, if it is not)."""
        try:
            yield from self._base_exception()
        except Unknown:
            return

    def _base_exception(self) -> Iterator[Case]:
        plain = self.p.plain
        run = observe(f'{plain}("h1", raises="base")', f'{plain}("h2")')
        if self.p.value("handler_cancellation") == "translate":
            yield self.case("handler_cancellation", "base_exception_translated",
                            "handler_cancellation = translate: a handler's own BaseException "
                            "that is no cancellation is translated as one: another exception "
                            "is raised, caused by it, after the other handlers ran.",
                            [run, 'assert seen.error is not None and seen.error is not '
                                  'seen.raised["h1"]',
                             'assert seen.error.__cause__ is seen.raised["h1"]',
                             'assert "h2" in seen.trace'], ("failure",))
            return
        value = self.p.value("failure")
        if self.p.sequential and value in ("isolate", "propagate"):
            yield self.case("failure", "base_exception_reaches_the_emitter_as_itself",
                            f"failure = {value}: only an Exception is caught, so a handler's "
                            "own BaseException leaves the emission as itself and the handlers "
                            "after it never run.",
                            [run, 'assert seen.error is seen.raised["h1"]',
                             'assert "h2" not in seen.trace'])
            return

    def failure(self) -> Iterator[Case]:
        value = self.p.value("failure")
        one = self._failing(1, "h2")
        if value == "isolate":
            yield self.case("failure", "one_failure_never_reaches_the_emitter",
                            "failure = isolate: a handler's exception does not reach the emitter.",
                            [one, "assert seen.error is None"])
            yield self.case("failure", "several_failures_never_reach_the_emitter",
                            "failure = isolate: no handler exception reaches the emitter.",
                            [self._failing(2), "assert seen.surfaced == []"])
            return
        if value not in ("propagate", "collect"):
            raise Unknown("failure", f"no scenario observes {value}")
        yield self.case("failure", "one_failure_reaches_the_emitter",
                        f"failure = {value}: a handler's exception reaches the emitter.",
                        [one, 'assert seen.surfaced == ["h1"]'])
        if value == "collect":
            check = ('assert seen.surfaced == ["h1", "h2"]' if self.p.sequential else
                     'assert sorted(seen.surfaced) == ["h1", "h2"]')
            yield self.case("failure", "every_failure_reaches_the_emitter",
                            "failure = collect: every handler's exception reaches the emitter.",
                            [self._failing(2), check])
        elif self.p.sequential:
            yield self.case("failure", "only_the_first_failure_reaches_the_emitter",
                            "failure = propagate: the first exception ends the emission; the "
                            "second failing handler never runs.",
                            [self._failing(2), 'assert seen.surfaced == ["h1"]',
                             'assert "h2" not in seen.trace'])

    def completion(self) -> Iterator[Case]:
        value = self.p.value("completion")
        one = self._failing(1, "h2")
        if value == "await_all":
            yield self.case("completion", "later_handlers_still_run",
                            "completion = await_all: a failure does not keep the other handlers "
                            "from running.", [one, 'assert "h2" in seen.trace'])
        elif value == "stop_on_failure" and self.p.sequential:
            yield self.case("completion", "later_handlers_never_run",
                            "completion = stop_on_failure: no handler after a failing one runs.",
                            [one, 'assert "h2" not in seen.trace'])
        elif value == "cancel_remaining_on_failure" and not self.p.sequential:
            yield self.case("completion", "running_handlers_cancelled",
                            "completion = cancel_remaining_on_failure: a failure cancels the "
                            "handlers still running.",
                            [observe('Coro("h1", raises="error")', 'Blocking("h2")'),
                             'assert "h2 cancelled" in seen.trace'])
        else:
            raise Unknown("completion", f"no scenario observes {value} here")

    def error_surface(self) -> Iterator[Case]:
        value = self.p.value("error_surface")
        order = "seen.{0}" if self.p.sequential else "sorted(seen.{0})"
        one, two = self._failing(1, "h2"), self._failing(2)
        if value in ("raise_first", "unwrap_single_else_group"):
            yield self.case("error_surface", "one_failure_raised_as_itself",
                            f"error_surface = {value}: one failure is raised as itself.",
                            [one, 'assert seen.error is seen.raised["h1"]'])
        if value == "raise_first":
            yield self.case("error_surface", "first_of_several_failures_raised",
                            "error_surface = raise_first: of several failures, the first is "
                            "raised as itself.", [two, 'assert seen.error is seen.raised["h1"]'])
        elif value in ("unwrap_single_else_group", "raise_group"):
            if value == "raise_group":
                yield self.case("error_surface", "one_failure_raised_in_a_group",
                                "error_surface = raise_group: one failure is raised inside an "
                                "exception group.", [one, 'assert seen.grouped == ["h1"]'])
            yield self.case("error_surface", "several_failures_raised_as_one_group",
                            f"error_surface = {value}: several failures are raised together as "
                            "one exception group.",
                            [two, f"assert {order.format('grouped')} == {lit(['h1', 'h2'])}"])
        elif value in ("log_only", "silent"):
            logged = ["h1", "h2"] if value == "log_only" else []
            yield self.case("error_surface", "failures_are_logged" if logged else
                            "failures_not_logged",
                            f"error_surface = {value}: each failure is "
                            + ("logged, with its exception" if logged else "dropped unlogged")
                            + ", and nothing is raised.",
                            [two, "assert seen.error is None",
                             f"assert {order.format('logged')} == {lit(logged)}"])
        elif value not in ("raise_first", "unwrap_single_else_group"):
            raise Unknown("error_surface", f"no scenario observes {value}")
