"""What each ADR-0120 D2 dispatch-policy axis means, its values, and how planeshift reads it from
the code: the text of ``planeshift explain axes`` and ``planeshift explain <axis>``."""

from __future__ import annotations

from dataclasses import dataclass

from .axes import AXES


@dataclass(frozen=True, slots=True)
class AxisDoc:
    meaning: str
    values: tuple[tuple[str, str], ...]  # (value, what it means); ADR values first
    reading: str  # how planeshift decides it


NA = ("not_applicable", "planeshift: the path has nothing this axis describes")
DOCS: dict[str, AxisDoc] = {
    "concurrency": AxisDoc(
        "Whether handlers run one after another or at the same time.",
        (("sequential", "one handler after another"), ("concurrent", "all handlers at once"),
         ("not_applicable", "planeshift: one handler per call (a slot, a hook key): no fan-out")),
        "concurrent when the handler call (or the helper making it) runs inside gather(...), a "
        "task group's start_soon or create_task; sequential when it sits in a for / while loop; "
        "not_applicable otherwise. Evidence: the gather / task group line, or the loop."),
    "failure": AxisDoc(
        "What an ordinary exception from one handler does to the dispatch.",
        (("propagate", "it leaves the dispatcher (at once)"),
         ("collect", "it is kept and surfaced after the others ran"),
         ("isolate", "it is caught and does not reach the caller")),
        "The first except clause around the handler call (the callers' clauses on the path "
        "included) that catches Exception or BaseException: appending the exception to a list "
        "is collect, a bare raise (or raising another exception) is propagate, anything else "
        "(log, return, pass) is isolate; gather(..., return_exceptions=True) is collect; no "
        "clause is propagate."),
    "completion": AxisDoc(
        "Whether the other handlers still run after one fails.",
        (("await_all", "every handler runs"), ("stop_on_failure", "the ones after it do not run"),
         ("cancel_remaining_on_failure", "running siblings are cancelled"),
         ("detach_bounded", "handlers run detached"), NA),
        "From the failure reading: collect and isolate await all; propagate out of a loop stops "
        "on failure; out of a task group cancels the remaining; `except ...: break` stops. "
        "A propagating gather(...) without return_exceptions is unknown (asyncio.gather leaves "
        "the others running, a task-group gather cancels them)."),
    "error_surface": AxisDoc(
        "How handler failures reach the caller of the dispatch.",
        (("return_report", "returned as a value"), ("raise_first", "the first one is raised"),
         ("raise_group", "all are raised as one ExceptionGroup"),
         ("unwrap_single_else_group", "one is raised as itself, several as a group"),
         ("log_only", "logged, never raised"),
         ("silent", "planeshift: caught and neither logged nor returned")),
        "isolate: a logging call in the clause is log_only, a return is return_report. collect: "
        "the raises after the loop (followed into helpers such as _raise_callback_errors): "
        "`raise errors[0]` under `if len(errors) == 1` plus `raise ExceptionGroup(..., errors)` "
        "is unwrap_single_else_group, only the group is raise_group. propagate: raise_first "
        "(raise_group out of a task group)."),
    "sync_handlers": AxisDoc(
        "Where a synchronous handler's body runs.",
        (("inline", "in the dispatching task (it blocks the event loop)"),
         ("offload", "in a worker thread")),
        "offload when a handler is passed to anyio.to_thread.run_sync, asyncio.to_thread, "
        "run_in_executor or run_sync; inline otherwise. Unknown when the handler is fetched "
        "through a helper whose body is not on the path (it may wrap the handler)."),
    "handler_classification": AxisDoc(
        "How the dispatcher tells sync handlers from async ones.",
        (("by_declaration", "is_coro_func / inspect.iscoroutinefunction on the handler"),
         ("by_return_value", "it calls the handler and inspects what comes back"),
         ("not_applicable", "planeshift: no handler is classified (all are called alike)")),
        "by_declaration when iscoroutinefunction / is_coro_func is applied to the handler on "
        "the path (including a preflight that rejects declared coroutine functions); "
        "by_return_value when the result goes through maybe_await, inspect.isawaitable or "
        "asyncio.iscoroutine."),
    "returned_value_classifier": AxisDoc(
        "The test applied to what a handler returns.",
        (("inspect_awaitable", "inspect.isawaitable (maybe_await uses it)"),
         ("asyncio_coroutine_only", "asyncio.iscoroutine: other awaitables are not awaited"),
         ("not_inspected", "the result is not examined")),
        "maybe_await(handler(...)) (lionagi's awaits when inspect.isawaitable) or `if "
        "inspect.isawaitable(out)` is inspect_awaitable; `if asyncio.iscoroutine(result)` alone "
        "is asyncio_coroutine_only; otherwise not_inspected. In the branch of `if "
        "is_coro_func(h):` the handler's returned value is the awaited coroutine's result, so "
        "`await maybe_await(h(x))` as a statement does not inspect it; when sync and "
        "declared-async handlers differ the value reads `x (sync) / y (declared async)`."),
    "returned_awaitable": AxisDoc(
        "What happens to an awaitable a handler returns.",
        (("await_in_invocation", "awaited as part of the handler's call"),
         ("gather_after_invocations", "collected and gathered after every handler was called"),
         ("discard_unawaited", "dropped: it never runs (ADR D2 enumerates these)"),
         ("reject", "refused")),
        "A handler call whose result is dropped (an expression statement, or an unused name) is "
        "discard_unawaited; a result appended to a list that is later passed to gather(...) is "
        "gather_after_invocations; awaited, maybe_await'ed or awaited under a classifier is "
        "await_in_invocation. For a declared coroutine function it is the awaited coroutine's "
        "result that is followed (see returned_value_classifier)."),
    "sync_entry": AxisDoc(
        "Whether the dispatch can be entered from synchronous code.",
        (("unavailable", "the entry is async"), ("allow", "a sync entry calls the handlers"),
         ("reject_declared_async_before_owner_effect",
          ("a sync entry refuses declared coroutine functions before its own effect"))),
        "The entry method's def: async is unavailable; a sync entry whose first call is a "
        "preflight raising when iscoroutinefunction(handler) is true rejects before the owner's "
        "effect; otherwise allow."),
    "handler_cancellation": AxisDoc(
        "What a handler's own cancellation (CancelledError) does.",
        (("propagate", "it leaves the dispatcher"), ("translate", "raised as another exception"),
         ("collect", "kept with the failures (or returned as a value)"),
         ("cancel_siblings_and_return", ("planeshift: re-raised inside an anyio task group, which "
                                         "cancels the other handlers and lets the dispatch return "
                                         "normally")),
         ("absorbed_by_task_group", ("planeshift: re-raised inside asyncio.TaskGroup, which lets "
                                     "the others finish and returns normally")),
         ("swallowed", "planeshift: caught and dropped")),
        "The first except clause around the handler that catches a cancellation (BaseException, "
        "CancelledError, get_cancelled_exc_class()): a bare raise passes it on to the next try out "
        "(a task group's, see above); appending or returning it collects; raising a *Cancel* "
        "class (or any other) translates. Under gather(..., return_exceptions=True) it is a "
        "result: translate when a *Cancel* class is raised afterwards, swallowed when the results "
        "are kept only where isinstance(r, Exception) and nothing picks out the cancellations, "
        "else collect. No clause: propagate."),
    "predicate_failure": AxisDoc(
        "What a failing registration filter does.",
        (("propagate", "the dispatch fails"),
         ("collect_as_handler_failure", "counted as that handler's failure"),
         ("no_match", "the handler is skipped"), ("isolate", "caught"),
         ("not_applicable", "planeshift: the path evaluates no filter")),
        "A tested call involving a registration (an if / while test, a comprehension filter that "
        "feeds the dispatch loop, all()/any(), the iterable of a matching loop): its except "
        "clauses as for failure; inside a helper gathered with return_exceptions=True it is "
        "collect_as_handler_failure. isinstance/hasattr/callable checks run no user code and are "
        "not filters."),
    "deadline": AxisDoc(
        "Whether a time budget bounds the handlers.",
        (("none", "no budget"), ("shared", "one budget for the whole fan-out"),
         ("per_handler", "a budget per handler")),
        "move_on_after / fail_after / timeout / wait_for around the loop, gather or task group "
        "is shared; inside the loop, or in a helper called once per handler, per_handler. A path "
        "with one handler and no deadline is unknown: its owner may impose one."),
    "deadline_disposition": AxisDoc(
        "What happens when the budget runs out.",
        (("none", "no deadline"), ("raise", "a TimeoutError reaches the caller"),
         ("return_report", "reported as a result"), ("log_and_stop", "logged, then stopped"),
         ("silent_stop", "stopped without a trace")),
        "move_on_after / move_on_at are silent_stop; fail_after / fail_at / timeout / wait_for "
        "raise, unless the TimeoutError meets an isolating except clause whose try holds the "
        "deadline (a per-handler wait_for inside try / except Exception): log_and_stop when the "
        "clause logs, else silent_stop."),
}
assert tuple(DOCS) == AXES


def render_axis(axis: str) -> str:
    doc = DOCS[axis]
    values = "\n".join(f"  {value:<44} {meaning}" for value, meaning in doc.values)
    return (f"{axis}: {doc.meaning}\n\nValues (\"planeshift:\" marks a value the ADR's vocabulary "
            f"lacks, shown where the code does something else):\n{values}\n\nHow it is read: "
            f"{doc.reading}\n\nProvenance: inferred (read from the code, with file:line evidence), "
            "declared (the rule pack's value, where the code in view does not decide it) or "
            "unknown.\n")


def render_all() -> str:
    lines = [f"{axis:<27} {DOCS[axis].meaning}" for axis in AXES]
    return ("ADR-0120 D2 dispatch-policy axes "
            "(planeshift explain <axis> for values and reading):\n\n"
            + "\n".join(lines) + "\n")
