"""The ADR D2 combination rules (and planeshift's additions), each with a stable id for
PolicyError."""

from __future__ import annotations

import math
from typing import Any, Protocol

from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    DispatchConcurrency,
    DispatchFailure,
    ErrorSurface,
    HandlerClassification,
    ReturnedAwaitableDisposition,
    ReturnedValueClassifier,
    Selector,
    SyncHandlerMode,
    UnsetType,
)

__all__ = ["Violations", "phase_rules", "policy_rules", "stage_rules"]

Violations = list[tuple[str, str]]
_GATHER = ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS


# What the rules read of a stage, a phase and a policy (phases.py and policy.py, which
# call the rules while they construct one, so this module names no module that imports
# it).
class DispatchStagePolicy(Protocol):
    @property
    def failure(self) -> DispatchFailure: ...
    @property
    def completion(self) -> CompletionTiming: ...
    @property
    def error_surface(self) -> ErrorSurface: ...


class DispatchPhase(Protocol):
    @property
    def selector(self) -> Selector: ...
    @property
    def concurrency(self) -> DispatchConcurrency: ...
    @property
    def sync_handlers(self) -> SyncHandlerMode: ...
    @property
    def handler_classification(self) -> HandlerClassification: ...
    @property
    def returned_value_classifier(self) -> ReturnedValueClassifier: ...
    @property
    def returned_awaitable(self) -> ReturnedAwaitableDisposition: ...
    @property
    def invocation(self) -> DispatchStagePolicy: ...
    @property
    def returned_awaitables(self) -> DispatchStagePolicy | UnsetType: ...
    @property
    def deadline_disposition(self) -> DeadlineDisposition | UnsetType: ...
    @property
    def deadline_seconds(self) -> float | UnsetType: ...
    @property
    def stages(self) -> tuple[DispatchStagePolicy, ...]: ...
    @property
    def has_sync_entry(self) -> bool: ...


class DispatchPolicy(Protocol):
    @property
    def phases(self) -> tuple[DispatchPhase, ...]: ...


def stage_rules(s: DispatchStagePolicy) -> Violations:
    out: Violations = []
    surface, failure, completion = s.error_surface, s.failure, s.completion
    if surface is ErrorSurface.RAISE_GROUP and failure is not DispatchFailure.COLLECT:
        out.append(
            (
                "raise-group-requires-collect",
                "error_surface=RAISE_GROUP requires failure=COLLECT",
            ),
        )
    awaits_all = completion is CompletionTiming.AWAIT_ALL
    if surface is ErrorSurface.RAISE_GROUP and not awaits_all:
        out.append(
            (
                "raise-group-requires-await-all",
                "error_surface=RAISE_GROUP requires completion=AWAIT_ALL",
            ),
        )
    collects = failure is DispatchFailure.COLLECT
    if surface is ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP and not collects:
        out.append(
            (
                "unwrap-group-requires-collect",
                "UNWRAP_SINGLE_ELSE_GROUP requires failure=COLLECT",
            ),
        )
    if surface is ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP and completion not in (
        CompletionTiming.AWAIT_ALL,
        CompletionTiming.CANCEL_REMAINING_ON_FAILURE,
    ):
        out.append(
            (
                "unwrap-group-completion",
                "UNWRAP_SINGLE_ELSE_GROUP needs AWAIT_ALL or CANCEL_REMAINING_ON_FAILURE",
            ),
        )
    isolating = failure in (
        DispatchFailure.ISOLATE,
        DispatchFailure.ISOLATE_BASE_EXCEPTIONS,
    )
    if surface is ErrorSurface.LOG_ONLY and not isolating:
        out.append(
            (
                "log-only-requires-isolate",
                "error_surface=LOG_ONLY requires failure=ISOLATE",
            ),
        )
    # The two rules below are planeshift's: an isolated failure is never raised, a
    # propagated one always is.
    if isolating and surface is ErrorSurface.RAISE_FIRST:
        out.append(
            (
                "isolate-forbids-raise-first",
                f"failure={failure.name} cannot use error_surface=RAISE_FIRST",
            ),
        )
    if failure is DispatchFailure.PROPAGATE and surface is ErrorSurface.RETURN_REPORT:
        out.append(
            (
                "propagate-forbids-return-report",
                "failure=PROPAGATE cannot use error_surface=RETURN_REPORT",
            ),
        )
    detached = completion is CompletionTiming.DETACH_BOUNDED
    if detached and surface is not ErrorSurface.LOG_ONLY:
        out.append(
            (
                "detach-bounded-requires-log-only",
                "DETACH_BOUNDED requires error_surface=LOG_ONLY: nobody is left to raise to",
            ),
        )
    return out


def phase_rules(p: DispatchPhase) -> Violations:
    out: Violations = []
    disposition = p.returned_awaitable
    gather = disposition is ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS
    has_deadline = not isinstance(p.deadline_seconds, UnsetType)
    if (
        p.handler_classification is HandlerClassification.BY_RETURN_VALUE
        and p.returned_value_classifier is ReturnedValueClassifier.NOT_INSPECTED
    ):
        out.append(
            (
                "by-return-value-requires-classifier",
                "BY_RETURN_VALUE requires a classifier other than NOT_INSPECTED",
            ),
        )
    by_declaration = p.handler_classification is HandlerClassification.BY_DECLARATION
    if p.selector != "all" and not by_declaration:
        out.append(
            (
                "declared-selector-requires-by-declaration",
                f"selector={p.selector!r} requires BY_DECLARATION",
            ),
        )
    if gather and p.handler_classification is not HandlerClassification.BY_RETURN_VALUE:
        out.append(
            (
                "gather-requires-by-return-value",
                "GATHER_AFTER_INVOCATIONS requires BY_RETURN_VALUE",
            ),
        )
    if gather and p.has_sync_entry:
        out.append(
            (
                "gather-requires-async-entry",
                "GATHER_AFTER_INVOCATIONS requires sync_entry=UNAVAILABLE",
            ),
        )
    if gather and isinstance(p.returned_awaitables, UnsetType):
        out.append(
            (
                "gather-requires-returned-awaitables-stage",
                "GATHER_AFTER_INVOCATIONS requires a returned_awaitables stage",
            ),
        )
    if not gather and not isinstance(p.returned_awaitables, UnsetType):
        out.append(
            (
                "returned-awaitables-stage-forbidden",
                f"{p.returned_awaitable.name} forbids a returned_awaitables stage",
            ),
        )
    if has_deadline and isinstance(p.deadline_disposition, UnsetType):
        out.append(
            (
                "deadline-requires-disposition",
                "a deadline requires a deadline_disposition",
            ),
        )
    if not has_deadline and not isinstance(p.deadline_disposition, UnsetType):
        out.append(
            (
                "disposition-requires-deadline",
                "a deadline_disposition requires deadline_seconds",
            ),
        )
    seconds: Any = p.deadline_seconds
    if has_deadline and not (math.isfinite(seconds) and seconds > 0):
        out.append(
            (
                "deadline-positive-finite",
                f"deadline_seconds must be positive and finite, got {p.deadline_seconds!r}",
            ),
        )
    out.extend(_planeshift_phase_rules(p, has_deadline))
    return out


def _planeshift_phase_rules(p: DispatchPhase, has_deadline: bool) -> Violations:
    # Rules the ADR implies but does not list; each refuses a combination the kernel
    # cannot honour.
    out: Violations = []
    if (
        p.sync_handlers is SyncHandlerMode.OFFLOAD
        and p.handler_classification is not HandlerClassification.BY_DECLARATION
    ):
        out.append(
            (
                "offload-requires-by-declaration",
                "OFFLOAD needs BY_DECLARATION (only a declared-sync handler is known to be sync)",
            ),
        )
    if (
        p.returned_awaitable is ReturnedAwaitableDisposition.REJECT
        and p.returned_value_classifier is ReturnedValueClassifier.NOT_INSPECTED
    ):
        out.append(
            (
                "reject-requires-inspecting-classifier",
                "REJECT can never fire when returned values are NOT_INSPECTED",
            ),
        )
    concurrent = p.concurrency is DispatchConcurrency.CONCURRENT
    stops = [s.completion is CompletionTiming.STOP_ON_FAILURE for s in p.stages]
    # the gather stage (the second, when there is one) is always concurrent
    stop_in_concurrent = (concurrent and stops[0]) or any(stops[1:])
    if p.returned_awaitable is _GATHER and concurrent:
        out.append(
            (
                "gather-requires-sequential",
                "GATHER_AFTER_INVOCATIONS invokes sequentially, in registration order",
            ),
        )
    if stop_in_concurrent:
        out.append(
            (
                "stop-on-failure-requires-sequential",
                "STOP_ON_FAILURE needs a sequential stage; use CANCEL_REMAINING_ON_FAILURE",
            ),
        )
    detaches = any(s.completion is CompletionTiming.DETACH_BOUNDED for s in p.stages)
    if detaches and not has_deadline:
        out.append(
            (
                "detach-bounded-requires-deadline",
                "DETACH_BOUNDED requires a finite deadline to bound it",
            ),
        )
    if p.has_sync_entry:
        if concurrent or p.sync_handlers is SyncHandlerMode.OFFLOAD:
            out.append(
                (
                    "sync-entry-requires-sequential-inline",
                    "a sync entry requires SEQUENTIAL and INLINE",
                ),
            )
        if p.returned_awaitable is ReturnedAwaitableDisposition.AWAIT_IN_INVOCATION:
            out.append(
                (
                    "sync-entry-cannot-await",
                    "a sync entry cannot AWAIT_IN_INVOCATION; use DISCARD_UNAWAITED or REJECT",
                ),
            )
        if has_deadline:
            out.append(
                (
                    "sync-entry-forbids-deadline",
                    "a sync entry cannot enforce a deadline",
                ),
            )
    return out


def policy_rules(policy: DispatchPolicy) -> Violations:
    out: Violations = []
    if not policy.phases:
        return [("phases-empty", "a policy needs at least one phase")]
    selectors: list[Any] = [p.selector for p in policy.phases]
    repeated = len(set(selectors)) != len(selectors)
    if repeated or ("all" in selectors and len(selectors) > 1):
        out.append(
            (
                "selector-overlap",
                f"selectors {selectors} select some registration twice",
            ),
        )
    if "all" not in selectors and not {"declared_sync", "declared_async"} <= set(
        selectors,
    ):
        out.append(
            (
                "selector-incomplete",
                f"selectors {selectors} leave some registration unselected",
            ),
        )
    if len({p.has_sync_entry for p in policy.phases}) > 1:
        out.append(
            ("sync-entry-mixed", "phases disagree on whether a sync entry exists"),
        )
    return out
