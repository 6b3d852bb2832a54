"""Named constructors return exactly the ADR-0120 D2 pinned tuples."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest


def _expected(k: ModuleType, name: str) -> dict[str, Any]:
    DC, SH, HC = k.DispatchConcurrency, k.SyncHandlerMode, k.HandlerClassification
    RVC, RAD, SE, PF = (
        k.ReturnedValueClassifier,
        k.ReturnedAwaitableDisposition,
        k.SyncEntryPolicy,
        k.PredicateFailure,
    )
    DF, CT, ES, HCan = k.DispatchFailure, k.CompletionTiming, k.ErrorSurface, k.HandlerCancellation

    def st(f: Any, c: Any, e: Any, h: Any) -> Any:
        return k.DispatchStagePolicy(failure=f, completion=c, error_surface=e, handler_cancellation=h)

    mm = dict(
        concurrency=DC.SEQUENTIAL,
        sync_handlers=SH.INLINE,
        handler_classification=HC.BY_DECLARATION,
        returned_value_classifier=RVC.NOT_INSPECTED,
        returned_awaitable=RAD.DISCARD_UNAWAITED,
        invocation=st(DF.COLLECT, CT.AWAIT_ALL, ES.UNWRAP_SINGLE_ELSE_GROUP, HCan.COLLECT),
        returned_awaitables=k.Unset,
        deadline_disposition=k.Unset,
        deadline_seconds=k.Unset,
    )
    table: dict[str, dict[str, Any]] = {
        "scheduler": dict(
            concurrency=DC.CONCURRENT,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            predicate_failure=PF.COLLECT_AS_HANDLER_FAILURE,
            invocation=st(DF.COLLECT, CT.AWAIT_ALL, ES.RAISE_GROUP, HCan.TRANSLATE),
            returned_awaitables=k.Unset,
            deadline_disposition=k.Unset,
            deadline_seconds=k.Unset,
        ),
        "terminal_callback": dict(
            concurrency=DC.CONCURRENT,
            sync_handlers=SH.OFFLOAD,
            handler_classification=HC.BY_DECLARATION,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            predicate_failure=PF.PROPAGATE,
            invocation=st(DF.ISOLATE, CT.AWAIT_ALL, ES.LOG_ONLY, HCan.PROPAGATE),
            returned_awaitables=k.Unset,
            deadline_disposition=k.DeadlineDisposition.SILENT_STOP,
            deadline_seconds=2.5,
        ),
        "session_observer": dict(
            concurrency=DC.SEQUENTIAL,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.INSPECT_AWAITABLE,
            returned_awaitable=RAD.GATHER_AFTER_INVOCATIONS,
            sync_entry=SE.UNAVAILABLE,
            invocation=st(DF.PROPAGATE, CT.STOP_ON_FAILURE, ES.RAISE_FIRST, HCan.PROPAGATE),
            returned_awaitables=st(
                DF.COLLECT, CT.CANCEL_REMAINING_ON_FAILURE, ES.UNWRAP_SINGLE_ELSE_GROUP, HCan.COLLECT
            ),
            deadline_disposition=k.Unset,
            deadline_seconds=k.Unset,
        ),
        "broadcaster": dict(
            concurrency=DC.SEQUENTIAL,
            sync_handlers=SH.INLINE,
            handler_classification=HC.BY_RETURN_VALUE,
            returned_value_classifier=RVC.ASYNCIO_COROUTINE_ONLY,
            returned_awaitable=RAD.AWAIT_IN_INVOCATION,
            sync_entry=SE.UNAVAILABLE,
            invocation=st(DF.ISOLATE, CT.AWAIT_ALL, ES.LOG_ONLY, HCan.PROPAGATE),
            returned_awaitables=k.Unset,
            deadline_disposition=k.Unset,
            deadline_seconds=k.Unset,
        ),
        "message_manager_sync": dict(mm, sync_entry=SE.REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT),
        "message_manager_async": dict(mm, sync_entry=SE.UNAVAILABLE),
    }
    return table[name]


PROFILES = [
    "scheduler",
    "terminal_callback",
    "session_observer",
    "broadcaster",
    "message_manager_sync",
    "message_manager_async",
]


@pytest.mark.parametrize("name", PROFILES)
def test_named_constructor_returns_the_pinned_tuple(kernels: ModuleType, name: str) -> None:
    factory = getattr(kernels.DispatchPolicy, name)
    policy = factory(deadline_seconds=2.5) if name == "terminal_callback" else factory()
    assert policy.preserve_registration_order is True
    assert len(policy.phases) == 1
    phase = policy.phases[0]
    assert phase.selector == "all"
    for field, value in _expected(kernels, name).items():
        assert getattr(phase, field) == value, field


def test_profiles_are_distinct_so_an_adapter_cannot_borrow_another_rows_defaults(kernels: ModuleType) -> None:
    policies = [getattr(kernels.DispatchPolicy, name)() for name in PROFILES]
    assert len({p.phases[0] for p in policies}) == len(PROFILES)


def test_terminal_callback_default_budget_is_lionagis_and_must_be_finite(kernels: ModuleType) -> None:
    assert kernels.DispatchPolicy.terminal_callback().phases[0].deadline_seconds == 10.0
    with pytest.raises(kernels.PolicyError, match=r"\[deadline-positive-finite\]"):
        kernels.DispatchPolicy.terminal_callback(deadline_seconds=float("inf"))
