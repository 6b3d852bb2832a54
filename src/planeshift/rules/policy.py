"""Dispatch-policy inference (ADR-0120 D2): read a dispatcher's own loops and name its policy.

The pack may declare a mechanism's policy; the loops in the dispatcher's methods are read either
way, so a declared policy is checked against the code and an undeclared one is inferred. Where a
declaration and the code disagree, the evidence says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..analyzer.extract.facts import Function, LoopFacts


def infer_from_loops(loops: Iterable[tuple[str, Function]]) -> tuple[dict[str, str], list[str]]:
    """Policy axes the loops show, and evidence lines ``file-less qualname:line: observation``."""
    results: set[str] = set()
    guards: set[str] = set()
    classifiers: set[str] = set()
    concurrency: set[str] = set()
    deadline: set[str] = set()
    evidence: list[str] = []
    for qualname, func in loops:
        loop: LoopFacts | None = func.loop
        if loop is None:
            continue
        results.update(loop.call_result)
        guards.update(g.split(":", 1)[0] for guard in loop.guards for g in guard.split(";"))
        classifiers.update(loop.classifiers)
        concurrency.update(loop.concurrency)
        deadline.update(loop.deadline)
        lines = ", ".join(str(n) for n in loop.lines[:4])
        evidence.append(
            f"{qualname} (line {lines}): calls each of {', '.join(loop.iterates)}; result "
            f"{'/'.join(loop.call_result)}; errors {'/'.join(loop.guards)}"
            + (f"; classifier {'/'.join(loop.classifiers)}" if loop.classifiers else "")
            + (f"; {'/'.join(loop.concurrency)}" if loop.concurrency else "")
        )
    if not results:
        return {}, evidence
    policy: dict[str, str] = {}
    policy["concurrency"] = "concurrent" if concurrency & {"gather", "task_group"} else "sequential"
    policy["sync_handlers"] = "offload" if "offload" in concurrency else "inline"
    if "collect" in guards:
        policy["failure"] = "collect"
    elif "isolate" in guards and "propagate" not in guards:
        policy["failure"] = "isolate"
    elif guards:
        policy["failure"] = "propagate" if guards <= {"propagate", "stop"} else "isolate"
    if "by_declaration" in classifiers:
        policy["handler_classification"] = "by_declaration"
        policy["returned_value_classifier"] = "not_inspected"
    elif "inspect.isawaitable" in classifiers:
        policy["handler_classification"] = "by_return_value"
        policy["returned_value_classifier"] = "inspect_awaitable"
    elif "asyncio.iscoroutine" in classifiers:
        policy["handler_classification"] = "by_return_value"
        policy["returned_value_classifier"] = "asyncio_coroutine_only"
    else:
        policy["returned_value_classifier"] = "not_inspected"
    if "dropped" in results:
        policy["returned_awaitable"] = "discard_unawaited"
    elif "stored" in results and "gather" in concurrency and "inspect.isawaitable" in classifiers:
        policy["returned_awaitable"] = "gather_after_invocations"
    elif results & {"awaited", "maybe_await", "awaited_if_awaitable", "gathered", "task"}:
        policy["returned_awaitable"] = "await_in_invocation"
    policy["deadline"] = "shared" if deadline else "none"
    return policy, evidence


def merge(declared: dict[str, str], inferred: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The effective policy (a declaration wins) and notes where the code disagrees with it."""
    notes = [
        f"pack declares {axis}={value} but the dispatch loop reads as {inferred[axis]}"
        for axis, value in declared.items()
        if axis in inferred and inferred[axis] != value
    ]
    return {**inferred, **declared}, notes
