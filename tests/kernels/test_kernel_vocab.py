"""The ADR D2 vocabulary is exactly the ADR's: members, string values, and the Unset sentinel."""

from __future__ import annotations

import copy
import pickle
from types import ModuleType

import pytest

ADR_ENUMS = {
    "InterceptorDisposition": {"CONTINUE": "continue", "STOP": "stop", "DENY": "deny"},
    "DispatchConcurrency": {"SEQUENTIAL": "sequential", "CONCURRENT": "concurrent"},
    "DispatchFailure": {"PROPAGATE": "propagate", "COLLECT": "collect", "ISOLATE": "isolate"},
    "SyncHandlerMode": {"INLINE": "inline", "OFFLOAD": "offload"},
    "CompletionTiming": {
        "AWAIT_ALL": "await_all",
        "STOP_ON_FAILURE": "stop_on_failure",
        "CANCEL_REMAINING_ON_FAILURE": "cancel_remaining_on_failure",
        "DETACH_BOUNDED": "detach_bounded",
    },
    "ErrorSurface": {
        "RETURN_REPORT": "return_report",
        "RAISE_FIRST": "raise_first",
        "RAISE_GROUP": "raise_group",
        "UNWRAP_SINGLE_ELSE_GROUP": "unwrap_single_else_group",
        "LOG_ONLY": "log_only",
    },
    "HandlerCancellation": {"PROPAGATE": "propagate", "TRANSLATE": "translate", "COLLECT": "collect"},
    "DeadlineDisposition": {
        "RAISE": "raise",
        "RETURN_REPORT": "return_report",
        "LOG_AND_STOP": "log_and_stop",
        "SILENT_STOP": "silent_stop",
    },
    "PredicateFailure": {
        "PROPAGATE": "propagate",
        "COLLECT_AS_HANDLER_FAILURE": "collect_as_handler_failure",
        "NO_MATCH": "no_match",
        "ISOLATE": "isolate",
    },
    "HandlerClassification": {"BY_DECLARATION": "by_declaration", "BY_RETURN_VALUE": "by_return_value"},
    "ReturnedValueClassifier": {
        "INSPECT_AWAITABLE": "inspect_awaitable",
        "ASYNCIO_COROUTINE_ONLY": "asyncio_coroutine_only",
        "NOT_INSPECTED": "not_inspected",
    },
    "ReturnedAwaitableDisposition": {
        "AWAIT_IN_INVOCATION": "await_in_invocation",
        "GATHER_AFTER_INVOCATIONS": "gather_after_invocations",
        "DISCARD_UNAWAITED": "discard_unawaited",
        "REJECT": "reject",
    },
    "SyncEntryPolicy": {
        "UNAVAILABLE": "unavailable",
        "ALLOW": "allow",
        "REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT": "reject_declared_async_before_owner_effect",
    },
}


# planeshift's documented additions (docs/kernels.md, "Axis values planeshift adds"): each is a
# behaviour a current dispatcher has that no ADR value names, so an owner keeps it on the kernel.
ADDED = {
    "DispatchFailure": {"ISOLATE_BASE_EXCEPTIONS": "isolate_base_exceptions"},
    "HandlerCancellation": {"CANCEL_SIBLINGS_AND_RETURN": "cancel_siblings_and_return"},
}


@pytest.mark.parametrize("enum_name", sorted(ADR_ENUMS))
def test_enum_has_exactly_the_adr_members_and_values(kernels: ModuleType, enum_name: str) -> None:
    enum = getattr(kernels, enum_name)
    assert issubclass(enum, str)
    assert {m.name: m.value for m in enum} == {**ADR_ENUMS[enum_name], **ADDED.get(enum_name, {})}
    for member in enum:
        assert member == member.value  # a str enum compares equal to its wire value


def test_unset_is_a_falsy_singleton_distinct_from_none(kernels: ModuleType) -> None:
    unset = kernels.Unset
    assert unset is kernels.UnsetType()
    assert unset is not None and unset != None  # noqa: E711 - the point is that it is not None
    assert not unset
    assert repr(unset) == "Unset"
    assert copy.copy(unset) is unset and copy.deepcopy(unset) is unset
    assert pickle.loads(pickle.dumps(unset)) is unset


def test_policy_dataclasses_are_frozen_and_keyword_only(kernels: ModuleType) -> None:
    policy = kernels.DispatchPolicy.scheduler()
    with pytest.raises(AttributeError):
        policy.preserve_registration_order = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        kernels.DispatchStagePolicy(  # positional construction is refused
            kernels.DispatchFailure.COLLECT,
            kernels.CompletionTiming.AWAIT_ALL,
            kernels.ErrorSurface.RETURN_REPORT,
            kernels.HandlerCancellation.COLLECT,
        )
    phase = policy.phases[0]
    assert phase.returned_awaitables is kernels.Unset
    assert phase.deadline_seconds is kernels.Unset
    assert policy.preserve_registration_order is True
