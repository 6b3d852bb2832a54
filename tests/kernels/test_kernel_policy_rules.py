"""Every policy combination rule refuses exactly its own case, named by its stable rule id."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .helpers import phase, policy, stage

Build = Callable[[ModuleType], Any]


def _stage(**kw: Any) -> Build:
    return lambda k: stage(k, **{name: _resolve(k, value) for name, value in kw.items()})


def _phase(**kw: Any) -> Build:
    return lambda k: phase(k, **{name: _resolve(k, value) for name, value in kw.items()})


def _resolve(k: ModuleType, value: Any) -> Any:
    # "Enum.MEMBER" strings keep the table readable and bind to whichever kernels copy runs.
    if isinstance(value, str) and re.fullmatch(r"[A-Z]\w+\.[A-Z_]+", value):
        enum, member = value.split(".")
        return getattr(getattr(k, enum), member)
    if callable(value):
        return value(k)
    return value


GATHER = dict(
    returned_awaitable="ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS",
    returned_awaitables=lambda k: stage(k),
)
SYNC = dict(
    sync_entry="SyncEntryPolicy.ALLOW",
    returned_awaitable="ReturnedAwaitableDisposition.DISCARD_UNAWAITED",
)
DEADLINE = dict(deadline_seconds=0.1, deadline_disposition="DeadlineDisposition.RETURN_REPORT")
DETACH = dict(
    failure="DispatchFailure.ISOLATE",
    completion="CompletionTiming.DETACH_BOUNDED",
    error_surface="ErrorSurface.LOG_ONLY",
)

CASES: dict[str, Build] = {
    # ADR D2 "Policy construction validates combinations"
    "raise-group-requires-collect": _stage(
        failure="DispatchFailure.ISOLATE", error_surface="ErrorSurface.RAISE_GROUP"
    ),
    "raise-group-requires-await-all": _stage(
        error_surface="ErrorSurface.RAISE_GROUP", completion="CompletionTiming.CANCEL_REMAINING_ON_FAILURE"
    ),
    "unwrap-group-requires-collect": _stage(
        failure="DispatchFailure.PROPAGATE", error_surface="ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP"
    ),
    "unwrap-group-completion": _stage(
        error_surface="ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP", completion="CompletionTiming.STOP_ON_FAILURE"
    ),
    "log-only-requires-isolate": _stage(error_surface="ErrorSurface.LOG_ONLY"),
    "gather-requires-by-return-value": _phase(
        **GATHER, handler_classification="HandlerClassification.BY_DECLARATION"
    ),
    "gather-requires-async-entry": _phase(**GATHER, sync_entry="SyncEntryPolicy.ALLOW"),
    "gather-requires-returned-awaitables-stage": _phase(
        returned_awaitable="ReturnedAwaitableDisposition.GATHER_AFTER_INVOCATIONS"
    ),
    "returned-awaitables-stage-forbidden": _phase(returned_awaitables=lambda k: stage(k)),
    "by-return-value-requires-classifier": _phase(
        returned_value_classifier="ReturnedValueClassifier.NOT_INSPECTED"
    ),
    "declared-selector-requires-by-declaration": _phase(selector="declared_sync"),
    "deadline-requires-disposition": _phase(deadline_seconds=0.1),
    "disposition-requires-deadline": _phase(deadline_disposition="DeadlineDisposition.RAISE"),
    "deadline-positive-finite": _phase(**{**DEADLINE, "deadline_seconds": float("inf")}),
    "selector-unknown": _phase(selector="sync"),
    "field-type": _phase(concurrency="sequential"),
    "phases-empty": lambda k: k.DispatchPolicy(phases=()),
    "selector-overlap": lambda k: k.DispatchPolicy(phases=(phase(k), phase(k))),
    "selector-incomplete": lambda k: k.DispatchPolicy(
        phases=(
            phase(k, selector="declared_sync", handler_classification=k.HandlerClassification.BY_DECLARATION),
        )
    ),
    # planeshift's own rules (documented in docs/kernels.md)
    "isolate-forbids-raise-first": _stage(
        failure="DispatchFailure.ISOLATE", error_surface="ErrorSurface.RAISE_FIRST"
    ),
    "propagate-forbids-return-report": _stage(failure="DispatchFailure.PROPAGATE"),
    "detach-bounded-requires-log-only": _stage(**{**DETACH, "error_surface": "ErrorSurface.RETURN_REPORT"}),
    "offload-requires-by-declaration": _phase(sync_handlers="SyncHandlerMode.OFFLOAD"),
    "reject-requires-inspecting-classifier": _phase(
        handler_classification="HandlerClassification.BY_DECLARATION",
        returned_value_classifier="ReturnedValueClassifier.NOT_INSPECTED",
        returned_awaitable="ReturnedAwaitableDisposition.REJECT",
    ),
    "gather-requires-sequential": _phase(**GATHER, concurrency="DispatchConcurrency.CONCURRENT"),
    "stop-on-failure-requires-sequential": _phase(
        concurrency="DispatchConcurrency.CONCURRENT",
        invocation=lambda k: stage(k, completion=k.CompletionTiming.STOP_ON_FAILURE),
    ),
    "detach-bounded-requires-deadline": _phase(
        invocation=lambda k: stage(k, **{n: _resolve(k, v) for n, v in DETACH.items()})
    ),
    "sync-entry-requires-sequential-inline": _phase(**SYNC, concurrency="DispatchConcurrency.CONCURRENT"),
    "sync-entry-cannot-await": _phase(sync_entry="SyncEntryPolicy.ALLOW"),
    "sync-entry-forbids-deadline": _phase(**SYNC, **DEADLINE),
    "sync-entry-mixed": lambda k: k.DispatchPolicy(
        phases=(
            phase(
                k,
                selector="declared_sync",
                handler_classification=k.HandlerClassification.BY_DECLARATION,
                sync_entry=k.SyncEntryPolicy.ALLOW,
                returned_awaitable=k.ReturnedAwaitableDisposition.DISCARD_UNAWAITED,
            ),
            phase(
                k, selector="declared_async", handler_classification=k.HandlerClassification.BY_DECLARATION
            ),
        )
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_refuses_its_case(kernels: ModuleType, rule: str) -> None:
    with pytest.raises(kernels.PolicyError) as caught:
        CASES[rule](kernels)
    assert caught.value.rules == (rule,), str(caught.value)
    assert f"[{rule}]" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_every_rule_in_the_source_has_a_case(kernels: ModuleType) -> None:
    package = Path(kernels.__file__).parent
    source = "".join((package / name).read_text(encoding="utf-8") for name in ("policy.py", "phases.py", "_rules.py"))
    declared = set(re.findall(r'\(\s*"([a-z][a-z-]+)",', source))
    assert declared == set(CASES)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), True, "1"])
def test_deadline_must_be_a_positive_finite_number(kernels: ModuleType, value: Any) -> None:
    with pytest.raises(kernels.PolicyError):
        policy(kernels, deadline_seconds=value, deadline_disposition=kernels.DeadlineDisposition.RAISE)


def test_both_declared_selectors_cover_every_handler(kernels: ModuleType) -> None:
    by_decl = kernels.HandlerClassification.BY_DECLARATION
    split = kernels.DispatchPolicy(
        phases=[
            phase(kernels, selector="declared_sync", handler_classification=by_decl),
            phase(kernels, selector="declared_async", handler_classification=by_decl),
        ]
    )
    assert isinstance(split.phases, tuple) and len(split.phases) == 2


def test_unwrap_allows_cancel_remaining_and_violations_are_all_reported(kernels: ModuleType) -> None:
    stage(
        kernels,
        error_surface=kernels.ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP,
        completion=kernels.CompletionTiming.CANCEL_REMAINING_ON_FAILURE,
    )
    with pytest.raises(kernels.PolicyError) as caught:
        stage(
            kernels,
            failure=kernels.DispatchFailure.ISOLATE,
            error_surface=kernels.ErrorSurface.RAISE_GROUP,
            completion=kernels.CompletionTiming.STOP_ON_FAILURE,
        )
    assert set(caught.value.rules) == {"raise-group-requires-collect", "raise-group-requires-await-all"}
