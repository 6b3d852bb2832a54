# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/phases.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""The parts of a fan-out policy: stages and phases, validated at construction against
ADR D2's rules."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from ._rules import Violations, phase_rules, stage_rules
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
    Selector,
    SyncEntryPolicy,
    SyncHandlerMode,
    Unset,
    UnsetType,
)
from .errors import PolicyError

__all__ = ["SELECTORS", "DispatchPhase", "DispatchStagePolicy"]

SELECTORS: frozenset[str] = frozenset({"all", "declared_sync", "declared_async"})


def _check_enums(obj: object, fields: dict[str, type[Enum]]) -> None:
    # Type errors are raised alone and first: the combination rules below assume real
    # enums.
    bad = [
        (
            "field-type",
            f"{type(obj).__name__}.{name} must be {kind.__name__}, got {getattr(obj, name)!r}",
        )
        for name, kind in fields.items()
        if not isinstance(getattr(obj, name), kind)
    ]
    if bad:
        raise PolicyError(bad)


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchStagePolicy:
    """Failure, completion, error surface and handler cancellation of one dispatch
    stage."""

    failure: DispatchFailure
    completion: CompletionTiming
    error_surface: ErrorSurface
    handler_cancellation: HandlerCancellation

    _ENUMS: ClassVar[dict[str, type[Enum]]] = {
        "failure": DispatchFailure,
        "completion": CompletionTiming,
        "error_surface": ErrorSurface,
        "handler_cancellation": HandlerCancellation,
    }

    def __post_init__(self) -> None:
        _check_enums(self, self._ENUMS)
        found = stage_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def catches_base_exception(self) -> bool:
        """Whether the stage collects whatever a handler raises and drains before
        re-raising it.

        COLLECT failures, AWAIT_ALL and COLLECT cancellations leave nothing that may end
        the stage early, so a KeyboardInterrupt or SystemExit is collected too
        (MessageManager: "Both catch BaseException, drain later callbacks, then re-raise
        one value or a BaseExceptionGroup").
        """
        return (
            self.failure is DispatchFailure.COLLECT
            and self.completion is CompletionTiming.AWAIT_ALL
            and self.handler_cancellation is HandlerCancellation.COLLECT
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchPhase:
    """One phase of a fan-out: which registrations it selects and how it runs them."""

    selector: Selector
    concurrency: DispatchConcurrency
    sync_handlers: SyncHandlerMode
    handler_classification: HandlerClassification
    returned_value_classifier: ReturnedValueClassifier
    returned_awaitable: ReturnedAwaitableDisposition
    sync_entry: SyncEntryPolicy
    predicate_failure: PredicateFailure
    invocation: DispatchStagePolicy
    returned_awaitables: DispatchStagePolicy | UnsetType = Unset
    deadline_disposition: DeadlineDisposition | UnsetType = Unset
    deadline_seconds: float | UnsetType = Unset

    _ENUMS: ClassVar[dict[str, type[Enum]]] = {
        "concurrency": DispatchConcurrency,
        "sync_handlers": SyncHandlerMode,
        "handler_classification": HandlerClassification,
        "returned_value_classifier": ReturnedValueClassifier,
        "returned_awaitable": ReturnedAwaitableDisposition,
        "sync_entry": SyncEntryPolicy,
        "predicate_failure": PredicateFailure,
    }

    def __post_init__(self) -> None:
        _check_enums(self, self._ENUMS)
        bad: Violations = []
        if self.selector not in SELECTORS:
            bad.append(
                (
                    "selector-unknown",
                    f"selector must be one of {sorted(SELECTORS)}, got {self.selector!r}",
                ),
            )
        if not isinstance(self.invocation, DispatchStagePolicy):
            bad.append(("field-type", "invocation must be a DispatchStagePolicy"))
        if not isinstance(self.returned_awaitables, (DispatchStagePolicy, UnsetType)):
            bad.append(
                (
                    "field-type",
                    "returned_awaitables must be a DispatchStagePolicy or Unset",
                ),
            )
        if not isinstance(self.deadline_disposition, (DeadlineDisposition, UnsetType)):
            bad.append(
                (
                    "field-type",
                    "deadline_disposition must be a DeadlineDisposition or Unset",
                ),
            )
        d = self.deadline_seconds
        number = isinstance(d, (int, float)) and not isinstance(d, bool)
        if not isinstance(d, UnsetType) and not number:
            bad.append(
                (
                    "field-type",
                    f"deadline_seconds must be a number or Unset, got {d!r}",
                ),
            )
        if bad:
            raise PolicyError(bad)
        found = phase_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def stages(self) -> tuple[DispatchStagePolicy, ...]:
        second = self.returned_awaitables
        if isinstance(second, UnsetType):
            return (self.invocation,)
        return (self.invocation, second)

    @property
    def has_sync_entry(self) -> bool:
        return self.sync_entry is not SyncEntryPolicy.UNAVAILABLE
