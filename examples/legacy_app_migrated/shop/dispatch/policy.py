# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/policy.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""Fan-out dispatch policies: ordered phases, validated as a whole, and the ADR's named
profiles."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from . import profiles
from ._rules import Violations, policy_rules
from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    DispatchConcurrency,
    DispatchFailure,
    ErrorSurface,
    HandlerCancellation,
    HandlerClassification,
    PredicateFailure,
    ReturnedAwaitableDisposition,
    ReturnedValueClassifier,
    SyncEntryPolicy,
    SyncHandlerMode,
    Unset,
)
from .errors import PolicyError
from .phases import DispatchPhase, DispatchStagePolicy

__all__ = ["DispatchPolicy"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchPolicy:
    """Ordered phases that together select every registration exactly once.

    `preserve_registration_order` governs invocation order only: True promises that
    handlers are invoked (sequential) or started (concurrent) in registration order;
    False waives that promise, though this kernel still keeps it. The report is in
    registration order either way.
    """

    phases: tuple[DispatchPhase, ...]
    preserve_registration_order: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.phases, list):
            object.__setattr__(self, "phases", tuple(self.phases))
        bad: Violations = []
        phases: Any = self.phases
        typed = isinstance(phases, tuple)
        if not typed or not all(isinstance(p, DispatchPhase) for p in phases):
            bad.append(("field-type", "phases must be a tuple of DispatchPhase"))
        if not isinstance(self.preserve_registration_order, bool):
            bad.append(("field-type", "preserve_registration_order must be a bool"))
        if bad:
            raise PolicyError(bad)
        found = policy_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def has_sync_entry(self) -> bool:
        return self.phases[0].has_sync_entry

    @classmethod
    def from_axes(
        cls,
        *,
        concurrency: DispatchConcurrency | str,
        failure: DispatchFailure | str,
        completion: CompletionTiming | str,
        error_surface: ErrorSurface | str,
        sync_handlers: SyncHandlerMode | str,
        handler_classification: HandlerClassification | str,
        returned_value_classifier: ReturnedValueClassifier | str,
        returned_awaitable: ReturnedAwaitableDisposition | str,
        sync_entry: SyncEntryPolicy | str,
        handler_cancellation: HandlerCancellation | str,
        predicate_failure: PredicateFailure | str,
        deadline_disposition: DeadlineDisposition | str = "none",
        deadline_seconds: float | None = None,
    ) -> DispatchPolicy:
        """One ``selector="all"`` phase spelled by its axis values, every one given (no
        default is taken for an axis): the form planeshift's reports use and migrated
        owners are written in. ``deadline_disposition="none"`` goes with
        ``deadline_seconds=None`` (no deadline); any other disposition needs the
        seconds. Validated like any policy."""
        given: dict[str, Any] = {
            "concurrency": concurrency,
            "failure": failure,
            "completion": completion,
            "error_surface": error_surface,
            "sync_handlers": sync_handlers,
            "handler_classification": handler_classification,
            "returned_value_classifier": returned_value_classifier,
            "returned_awaitable": returned_awaitable,
            "sync_entry": sync_entry,
            "handler_cancellation": handler_cancellation,
            "predicate_failure": predicate_failure,
        }
        values: dict[str, Any] = {}
        for name, value in given.items():
            values[name] = _member(_AXIS_ENUMS[name], name, value)
        timed: dict[str, Any] = {}
        if deadline_disposition != "none" or deadline_seconds is not None:
            seconds = Unset if deadline_seconds is None else deadline_seconds
            timed = {
                "deadline_disposition": _member(
                    DeadlineDisposition,
                    "deadline_disposition",
                    deadline_disposition,
                ),
                "deadline_seconds": seconds,
            }
        stage = DispatchStagePolicy(**{k: values.pop(k) for k in _STAGE_AXES})
        phase = DispatchPhase(selector="all", invocation=stage, **values, **timed)
        return cls(phases=(phase,))

    # Named constructors: the ADR's pinned compatibility profiles (phases spelled out in
    # profiles.py).
    @classmethod
    def scheduler(cls) -> DispatchPolicy:
        return cls(phases=profiles.scheduler())

    @classmethod
    def terminal_callback(cls, *, deadline_seconds: float = 10.0) -> DispatchPolicy:
        return cls(phases=profiles.terminal_callback(deadline_seconds=deadline_seconds))

    @classmethod
    def session_observer(cls) -> DispatchPolicy:
        return cls(phases=profiles.session_observer())

    @classmethod
    def broadcaster(cls) -> DispatchPolicy:
        return cls(phases=profiles.broadcaster())

    @classmethod
    def message_manager_sync(cls) -> DispatchPolicy:
        return cls(phases=profiles.message_manager_sync())

    @classmethod
    def message_manager_async(cls) -> DispatchPolicy:
        return cls(phases=profiles.message_manager_async())


_AXIS_ENUMS: dict[str, type[Enum]] = {
    "concurrency": DispatchConcurrency,
    "failure": DispatchFailure,
    "completion": CompletionTiming,
    "error_surface": ErrorSurface,
    "sync_handlers": SyncHandlerMode,
    "handler_classification": HandlerClassification,
    "returned_value_classifier": ReturnedValueClassifier,
    "returned_awaitable": ReturnedAwaitableDisposition,
    "sync_entry": SyncEntryPolicy,
    "handler_cancellation": HandlerCancellation,
    "predicate_failure": PredicateFailure,
}
_STAGE_AXES = "failure completion error_surface handler_cancellation".split()


def _member(kind: type[Enum], axis: str, value: Any) -> Any:
    if isinstance(value, kind):
        return value
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(m.value for m in kind)  # type: ignore[attr-defined]
        raise PolicyError(
            [("field-type", f"{axis} must be one of {known}, got {value!r}")],
        ) from None
