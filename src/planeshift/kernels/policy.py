"""Fan-out dispatch policy values, validated at construction against the ADR D2 combination rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from ._vocab import (
    CompletionTiming as CT,
    DeadlineDisposition,
    DispatchConcurrency,
    DispatchFailure as DF,
    ErrorSurface as ES,
    HandlerCancellation,
    HandlerClassification as HC,
    PredicateFailure,
    ReturnedAwaitableDisposition as RAD,
    ReturnedValueClassifier as RVC,
    Selector,
    SyncEntryPolicy,
    SyncHandlerMode,
    Unset,
    UnsetType,
)
from .errors import PolicyError

__all__ = ["DispatchPhase", "DispatchPolicy", "DispatchStagePolicy", "SELECTORS"]

SELECTORS: frozenset[str] = frozenset({"all", "declared_sync", "declared_async"})
Violations = list[tuple[str, str]]


def _check_enums(obj: object, fields: dict[str, type[Enum]]) -> None:
    # Type errors are raised alone and first: the combination rules below assume real enums.
    bad = [
        ("field-type", f"{type(obj).__name__}.{name} must be {kind.__name__}, got {getattr(obj, name)!r}")
        for name, kind in fields.items()
        if not isinstance(getattr(obj, name), kind)
    ]
    if bad:
        raise PolicyError(bad)


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchStagePolicy:
    """Failure, completion, error surface and handler cancellation of one dispatch stage."""

    failure: DF
    completion: CT
    error_surface: ES
    handler_cancellation: HandlerCancellation

    _ENUMS: ClassVar[dict[str, type[Enum]]] = {
        "failure": DF, "completion": CT, "error_surface": ES, "handler_cancellation": HandlerCancellation,
    }

    def __post_init__(self) -> None:
        _check_enums(self, self._ENUMS)
        found = _stage_rules(self)
        if found:
            raise PolicyError(found)


def _stage_rules(s: DispatchStagePolicy) -> Violations:
    out: Violations = []
    surface, failure, completion = s.error_surface, s.failure, s.completion
    if surface is ES.RAISE_GROUP and failure is not DF.COLLECT:
        out.append(("raise-group-requires-collect", "error_surface=RAISE_GROUP requires failure=COLLECT"))
    if surface is ES.RAISE_GROUP and completion is not CT.AWAIT_ALL:
        out.append(("raise-group-requires-await-all", "error_surface=RAISE_GROUP requires completion=AWAIT_ALL"))
    if surface is ES.UNWRAP_SINGLE_ELSE_GROUP and failure is not DF.COLLECT:
        out.append(("unwrap-group-requires-collect", "UNWRAP_SINGLE_ELSE_GROUP requires failure=COLLECT"))
    if surface is ES.UNWRAP_SINGLE_ELSE_GROUP and completion not in (CT.AWAIT_ALL, CT.CANCEL_REMAINING_ON_FAILURE):
        out.append(("unwrap-group-completion",
                    "UNWRAP_SINGLE_ELSE_GROUP requires completion AWAIT_ALL or CANCEL_REMAINING_ON_FAILURE"))
    if surface is ES.LOG_ONLY and failure is not DF.ISOLATE:
        out.append(("log-only-requires-isolate", "error_surface=LOG_ONLY requires failure=ISOLATE"))
    # The two rules below are planeshift's: an isolated failure is never raised, a propagated one always is.
    if failure is DF.ISOLATE and surface is ES.RAISE_FIRST:
        out.append(("isolate-forbids-raise-first", "failure=ISOLATE cannot use error_surface=RAISE_FIRST"))
    if failure is DF.PROPAGATE and surface is ES.RETURN_REPORT:
        out.append(("propagate-forbids-return-report", "failure=PROPAGATE cannot use error_surface=RETURN_REPORT"))
    if completion is CT.DETACH_BOUNDED and surface is not ES.LOG_ONLY:
        out.append(("detach-bounded-requires-log-only",
                    "completion=DETACH_BOUNDED requires error_surface=LOG_ONLY: nobody is left to raise to"))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchPhase:
    """One phase of a fan-out: which registrations it selects and how it runs them."""

    selector: Selector
    concurrency: DispatchConcurrency
    sync_handlers: SyncHandlerMode
    handler_classification: HC
    returned_value_classifier: RVC
    returned_awaitable: RAD
    sync_entry: SyncEntryPolicy
    predicate_failure: PredicateFailure
    invocation: DispatchStagePolicy
    returned_awaitables: DispatchStagePolicy | UnsetType = Unset
    deadline_disposition: DeadlineDisposition | UnsetType = Unset
    deadline_seconds: float | UnsetType = Unset

    _ENUMS: ClassVar[dict[str, type[Enum]]] = {
        "concurrency": DispatchConcurrency, "sync_handlers": SyncHandlerMode,
        "handler_classification": HC, "returned_value_classifier": RVC, "returned_awaitable": RAD,
        "sync_entry": SyncEntryPolicy, "predicate_failure": PredicateFailure,
    }

    def __post_init__(self) -> None:
        _check_enums(self, self._ENUMS)
        bad: Violations = []
        if self.selector not in SELECTORS:
            bad.append(("selector-unknown", f"selector must be one of {sorted(SELECTORS)}, got {self.selector!r}"))
        if not isinstance(self.invocation, DispatchStagePolicy):
            bad.append(("field-type", "invocation must be a DispatchStagePolicy"))
        if not isinstance(self.returned_awaitables, (DispatchStagePolicy, UnsetType)):
            bad.append(("field-type", "returned_awaitables must be a DispatchStagePolicy or Unset"))
        if not isinstance(self.deadline_disposition, (DeadlineDisposition, UnsetType)):
            bad.append(("field-type", "deadline_disposition must be a DeadlineDisposition or Unset"))
        d = self.deadline_seconds
        if not isinstance(d, UnsetType) and (isinstance(d, bool) or not isinstance(d, (int, float))):
            bad.append(("field-type", f"deadline_seconds must be a number or Unset, got {d!r}"))
        if bad:
            raise PolicyError(bad)
        found = _phase_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def stages(self) -> tuple[DispatchStagePolicy, ...]:
        second = self.returned_awaitables
        return (self.invocation,) if isinstance(second, UnsetType) else (self.invocation, second)

    @property
    def has_sync_entry(self) -> bool:
        return self.sync_entry is not SyncEntryPolicy.UNAVAILABLE


def _phase_rules(p: DispatchPhase) -> Violations:
    out: Violations = []
    gather = p.returned_awaitable is RAD.GATHER_AFTER_INVOCATIONS
    has_deadline = not isinstance(p.deadline_seconds, UnsetType)
    if p.handler_classification is HC.BY_RETURN_VALUE and p.returned_value_classifier is RVC.NOT_INSPECTED:
        out.append(("by-return-value-requires-classifier", "BY_RETURN_VALUE requires a classifier other than NOT_INSPECTED"))
    if p.selector != "all" and p.handler_classification is not HC.BY_DECLARATION:
        out.append(("declared-selector-requires-by-declaration", f"selector={p.selector!r} requires BY_DECLARATION"))
    if gather and p.handler_classification is not HC.BY_RETURN_VALUE:
        out.append(("gather-requires-by-return-value", "GATHER_AFTER_INVOCATIONS requires BY_RETURN_VALUE"))
    if gather and p.has_sync_entry:
        out.append(("gather-requires-async-entry", "GATHER_AFTER_INVOCATIONS requires sync_entry=UNAVAILABLE"))
    if gather and isinstance(p.returned_awaitables, UnsetType):
        out.append(("gather-requires-returned-awaitables-stage", "GATHER_AFTER_INVOCATIONS requires a returned_awaitables stage"))
    if not gather and not isinstance(p.returned_awaitables, UnsetType):
        out.append(("returned-awaitables-stage-forbidden", f"{p.returned_awaitable.name} forbids a returned_awaitables stage"))
    if has_deadline and isinstance(p.deadline_disposition, UnsetType):
        out.append(("deadline-requires-disposition", "a deadline requires a deadline_disposition"))
    if not has_deadline and not isinstance(p.deadline_disposition, UnsetType):
        out.append(("disposition-requires-deadline", "a deadline_disposition requires deadline_seconds"))
    if has_deadline and not (math.isfinite(p.deadline_seconds) and p.deadline_seconds > 0):  # type: ignore[arg-type, operator]
        out.append(("deadline-positive-finite", f"deadline_seconds must be positive and finite, got {p.deadline_seconds!r}"))
    out.extend(_planeshift_phase_rules(p, has_deadline))
    return out


def _planeshift_phase_rules(p: DispatchPhase, has_deadline: bool) -> Violations:
    # Rules the ADR implies but does not list; each refuses a combination the kernel cannot honour.
    out: Violations = []
    if p.sync_handlers is SyncHandlerMode.OFFLOAD and p.handler_classification is not HC.BY_DECLARATION:
        out.append(("offload-requires-by-declaration", "OFFLOAD needs BY_DECLARATION: only a declared-sync handler is known sync before the call"))
    if p.returned_awaitable is RAD.REJECT and p.returned_value_classifier is RVC.NOT_INSPECTED:
        out.append(("reject-requires-inspecting-classifier", "REJECT can never fire when returned values are NOT_INSPECTED"))
    concurrent = p.concurrency is DispatchConcurrency.CONCURRENT
    stop_in_concurrent = (concurrent and p.invocation.completion is CT.STOP_ON_FAILURE) or any(
        s.completion is CT.STOP_ON_FAILURE for s in p.stages[1:]  # the gather stage is always concurrent
    )
    if p.returned_awaitable is RAD.GATHER_AFTER_INVOCATIONS and concurrent:
        out.append(("gather-requires-sequential", "GATHER_AFTER_INVOCATIONS invokes sequentially, in registration order"))
    if stop_in_concurrent:
        out.append(("stop-on-failure-requires-sequential", "STOP_ON_FAILURE needs a sequential stage; use CANCEL_REMAINING_ON_FAILURE"))
    if any(s.completion is CT.DETACH_BOUNDED for s in p.stages) and not has_deadline:
        out.append(("detach-bounded-requires-deadline", "DETACH_BOUNDED requires a finite deadline to bound it"))
    if p.has_sync_entry:
        if concurrent or p.sync_handlers is SyncHandlerMode.OFFLOAD:
            out.append(("sync-entry-requires-sequential-inline", "a sync entry requires SEQUENTIAL and INLINE"))
        if p.returned_awaitable is RAD.AWAIT_IN_INVOCATION:
            out.append(("sync-entry-cannot-await", "a sync entry cannot AWAIT_IN_INVOCATION; use DISCARD_UNAWAITED or REJECT"))
        if has_deadline:
            out.append(("sync-entry-forbids-deadline", "a sync entry cannot enforce a deadline"))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchPolicy:
    """Ordered phases that together select every registration exactly once."""

    phases: tuple[DispatchPhase, ...]
    preserve_registration_order: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.phases, list):
            object.__setattr__(self, "phases", tuple(self.phases))
        bad: Violations = []
        if not isinstance(self.phases, tuple) or not all(isinstance(p, DispatchPhase) for p in self.phases):
            bad.append(("field-type", "phases must be a tuple of DispatchPhase"))
        if not isinstance(self.preserve_registration_order, bool):
            bad.append(("field-type", "preserve_registration_order must be a bool"))
        if bad:
            raise PolicyError(bad)
        found = _policy_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def has_sync_entry(self) -> bool:
        return self.phases[0].has_sync_entry

    # Named constructors: the ADR's pinned compatibility profiles (bodies live in profiles.py).
    @classmethod
    def scheduler(cls) -> DispatchPolicy:
        from .profiles import scheduler
        return scheduler()

    @classmethod
    def terminal_callback(cls, *, deadline_seconds: float = 10.0) -> DispatchPolicy:
        from .profiles import terminal_callback
        return terminal_callback(deadline_seconds=deadline_seconds)

    @classmethod
    def session_observer(cls) -> DispatchPolicy:
        from .profiles import session_observer
        return session_observer()

    @classmethod
    def broadcaster(cls) -> DispatchPolicy:
        from .profiles import broadcaster
        return broadcaster()

    @classmethod
    def message_manager_sync(cls) -> DispatchPolicy:
        from .profiles import message_manager_sync
        return message_manager_sync()

    @classmethod
    def message_manager_async(cls) -> DispatchPolicy:
        from .profiles import message_manager_async
        return message_manager_async()


def _policy_rules(policy: DispatchPolicy) -> Violations:
    out: Violations = []
    if not policy.phases:
        return [("phases-empty", "a policy needs at least one phase")]
    selectors: list[Any] = [p.selector for p in policy.phases]
    if len(set(selectors)) != len(selectors) or ("all" in selectors and len(selectors) > 1):
        out.append(("selector-overlap", f"selectors {selectors} select some registration twice"))
    if "all" not in selectors and not {"declared_sync", "declared_async"} <= set(selectors):
        out.append(("selector-incomplete", f"selectors {selectors} leave some registration unselected"))
    if len({p.has_sync_entry for p in policy.phases}) > 1:
        out.append(("sync-entry-mixed", "phases disagree on whether a sync entry exists"))
    return out
