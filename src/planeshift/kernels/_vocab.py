"""The closed vocabulary of ADR-0120 D2: the Unset sentinel and every policy enum."""

from __future__ import annotations

from enum import Enum
from typing import Final, Literal

__all__ = [
    "CompletionTiming",
    "DeadlineDisposition",
    "DispatchConcurrency",
    "DispatchFailure",
    "ErrorSurface",
    "HandlerCancellation",
    "HandlerClassification",
    "InterceptorDisposition",
    "OutcomeStatus",
    "PredicateFailure",
    "ReturnedAwaitableDisposition",
    "ReturnedValueClassifier",
    "Selector",
    "StageExceptionPolicy",
    "SyncEntryPolicy",
    "SyncHandlerMode",
    "Unset",
    "UnsetType",
]


class UnsetType:
    """The type of `Unset`: a field not given, distinct from an explicit None."""

    __slots__ = ()
    _instance: UnsetType | None = None

    def __new__(cls) -> UnsetType:
        # A singleton, so `x is Unset` is the one test and copies/pickles stay
        # identical.
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Unset"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "Unset"

    def __copy__(self) -> UnsetType:
        return self

    def __deepcopy__(self, memo: object) -> UnsetType:
        return self


Unset: Final[UnsetType] = UnsetType()

Selector = Literal["all", "declared_sync", "declared_async"]


class InterceptorDisposition(str, Enum):
    CONTINUE = "continue"
    STOP = "stop"
    DENY = "deny"


class DispatchConcurrency(str, Enum):
    SEQUENTIAL = "sequential"
    CONCURRENT = "concurrent"


class DispatchFailure(str, Enum):
    PROPAGATE = "propagate"
    COLLECT = "collect"
    ISOLATE = "isolate"
    # planeshift's addition (docs/kernels.md): isolate every BaseException a handler
    # raises but a cancellation, KeyboardInterrupt and SystemExit included (lionagi's
    # TerminalCallbackRegistry)
    ISOLATE_BASE_EXCEPTIONS = "isolate_base_exceptions"


class SyncHandlerMode(str, Enum):
    INLINE = "inline"
    OFFLOAD = "offload"


class CompletionTiming(str, Enum):
    AWAIT_ALL = "await_all"
    STOP_ON_FAILURE = "stop_on_failure"
    CANCEL_REMAINING_ON_FAILURE = "cancel_remaining_on_failure"
    DETACH_BOUNDED = "detach_bounded"


class ErrorSurface(str, Enum):
    RETURN_REPORT = "return_report"
    RAISE_FIRST = "raise_first"
    RAISE_GROUP = "raise_group"
    UNWRAP_SINGLE_ELSE_GROUP = "unwrap_single_else_group"
    LOG_ONLY = "log_only"


class HandlerCancellation(str, Enum):
    PROPAGATE = "propagate"
    TRANSLATE = "translate"
    COLLECT = "collect"
    # planeshift's addition (docs/kernels.md): a handler's own cancellation cancels the
    # handlers still running (or not yet started), is neither logged nor raised, and the
    # emit returns normally (an anyio task group whose child re-raises its cancellation)
    CANCEL_SIBLINGS_AND_RETURN = "cancel_siblings_and_return"


class DeadlineDisposition(str, Enum):
    RAISE = "raise"
    RETURN_REPORT = "return_report"
    LOG_AND_STOP = "log_and_stop"
    SILENT_STOP = "silent_stop"


class PredicateFailure(str, Enum):
    PROPAGATE = "propagate"
    COLLECT_AS_HANDLER_FAILURE = "collect_as_handler_failure"
    NO_MATCH = "no_match"
    ISOLATE = "isolate"


class HandlerClassification(str, Enum):
    BY_DECLARATION = "by_declaration"
    BY_RETURN_VALUE = "by_return_value"


class ReturnedValueClassifier(str, Enum):
    INSPECT_AWAITABLE = "inspect_awaitable"
    ASYNCIO_COROUTINE_ONLY = "asyncio_coroutine_only"
    NOT_INSPECTED = "not_inspected"


class ReturnedAwaitableDisposition(str, Enum):
    AWAIT_IN_INVOCATION = "await_in_invocation"
    GATHER_AFTER_INVOCATIONS = "gather_after_invocations"
    DISCARD_UNAWAITED = "discard_unawaited"
    REJECT = "reject"


_REJECT_BEFORE_EFFECT = "reject_declared_async_before_owner_effect"


class SyncEntryPolicy(str, Enum):
    UNAVAILABLE = "unavailable"
    ALLOW = "allow"
    REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT = _REJECT_BEFORE_EFFECT


class OutcomeStatus(str, Enum):
    """What became of one matched registration during one emit (not an ADR enum)."""

    RETURNED = "returned"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    ABANDONED_UNKNOWN = "abandoned_unknown"
    DISCARDED = "discarded"
    REJECTED = "rejected"
    SKIPPED = "skipped"
    NOT_STARTED = "not_started"
    DETACHED = "detached"
    # planeshift's addition (docs/kernels.md): the entry raised the owner's stop signal
    # (``fan_out(stop=...)``, a loop's ``except StopHook: break``); the later entries do not start
    STOPPED = "stopped"


class StageExceptionPolicy(str, Enum):
    """How an interceptor stage maps an ordinary handler exception (ADR D2 "exception
    mapping")."""

    PROPAGATE = "propagate"
    DENY = "deny"
    ISOLATE = "isolate"
