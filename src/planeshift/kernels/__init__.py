"""Reference ADR-0120 D2/D5 kernels (interceptor chain, fan-out dispatcher, delivery
ports), stdlib only.

Every import inside this package is relative so the package can be vendored under any
name.
"""

from __future__ import annotations

from ._vocab import (
    CompletionTiming,
    DeadlineDisposition,
    DispatchConcurrency,
    DispatchFailure,
    ErrorSurface,
    HandlerCancellation,
    HandlerClassification,
    InterceptorDisposition,
    OutcomeStatus,
    PredicateFailure,
    ReturnedAwaitableDisposition,
    ReturnedValueClassifier,
    Selector,
    StageExceptionPolicy,
    SyncEntryPolicy,
    SyncHandlerMode,
    Unset,
    UnsetType,
)
from .declarations import Declaration, Declarations
from .entries import Call, Step, fan_out
from .entries_sync import SyncCall, SyncStep, fan_out_sync
from .errors import (
    DeadlineExceededError,
    HandlerCancelled,
    PolicyError,
    ReturnedAwaitableRejectedError,
    SnapshotError,
    SyncEntryError,
)
from .fanout import FanoutDispatcher
from .interceptors import (
    Interceptor,
    InterceptorDecision,
    InterceptorRegistration,
    InterceptorReport,
    OrderedInterceptorChain,
    RecordedDecision,
)
from .phases import DispatchPhase, DispatchStagePolicy
from .policy import DispatchPolicy
from .ports import (
    CommitParticipant,
    CommitRefs,
    CommittedDeliveryIntent,
    DeliveryResult,
    DeliverySink,
    DeliveryStatus,
    PendingDomainFact,
    TransactionRef,
)
from .report import DispatchReport, DispatchSnapshot, HandlerOutcome, Registration

__all__ = [
    "Call",
    "CommitParticipant",
    "CommitRefs",
    "CommittedDeliveryIntent",
    "CompletionTiming",
    "DeadlineDisposition",
    "DeadlineExceededError",
    "Declaration",
    "Declarations",
    "DeliveryResult",
    "DeliverySink",
    "DeliveryStatus",
    "DispatchConcurrency",
    "DispatchFailure",
    "DispatchPhase",
    "DispatchPolicy",
    "DispatchReport",
    "DispatchSnapshot",
    "DispatchStagePolicy",
    "ErrorSurface",
    "FanoutDispatcher",
    "HandlerCancellation",
    "HandlerCancelled",
    "HandlerClassification",
    "HandlerOutcome",
    "Interceptor",
    "InterceptorDecision",
    "InterceptorDisposition",
    "InterceptorRegistration",
    "InterceptorReport",
    "OrderedInterceptorChain",
    "OutcomeStatus",
    "PendingDomainFact",
    "PolicyError",
    "PredicateFailure",
    "RecordedDecision",
    "Registration",
    "ReturnedAwaitableDisposition",
    "ReturnedAwaitableRejectedError",
    "ReturnedValueClassifier",
    "Selector",
    "SnapshotError",
    "StageExceptionPolicy",
    "Step",
    "SyncCall",
    "SyncEntryError",
    "SyncEntryPolicy",
    "SyncHandlerMode",
    "SyncStep",
    "TransactionRef",
    "Unset",
    "UnsetType",
    "fan_out",
    "fan_out_sync",
]
