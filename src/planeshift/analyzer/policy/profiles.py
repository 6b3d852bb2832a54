"""The ADR-0120 D2 named profiles as flat axis -> value maps, and a dispatch path's match to one.

The values come from the reference kernels' named constructors (``planeshift.kernels.profiles``),
the one place the pinned values are spelled out. The service HookRegistry profile is an
interceptor profile the ADR states in one sentence rather than as a DispatchPolicy; the axes
that sentence pins are listed below with the words that pin them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from ...packs.model import KERNEL_PROFILES, PROFILE_NAMES
from ...types import PolicyAxis, ProfileDifference, ProfileMatch

__all__ = ["KERNEL_PROFILES", "PROFILE_NAMES", "compare", "flatten", "match", "pinned"]

# ADR-0120 D2: "Service HookRegistry/HookedEvent is an interceptor profile rather than Signal
# fan-out: one handler per hook/chunk key, a per-HookEvent deadline, captured Event status/error
# according to exit, and emitter cancellation propagation."
SERVICE_HOOK_REGISTRY = {
    "concurrency": "not_applicable",  # "one handler per hook/chunk key"
    "deadline": "per_handler",  # "a per-HookEvent deadline"
    "failure": "isolate",  # "captured Event status/error": the failure does not propagate ...
    "error_surface": "return_report",  # ... it is returned to the owner as the event's status
}
# axes whose "not_applicable" in the code means there is nothing to compare (no filter exists)
_NOTHING_TO_COMPARE = frozenset({"predicate_failure"})


@functools.cache
def pinned(name: str) -> Mapping[str, str]:
    """The axis -> value map a named profile pins."""
    if name == "service_hook_registry":
        return SERVICE_HOOK_REGISTRY
    from ...kernels import DispatchPolicy  # imported when a profile is first needed

    return flatten(getattr(DispatchPolicy, name)())


def flatten(policy) -> dict[str, str]:
    """A one-phase DispatchPolicy as the axes planeshift reads (the invocation stage's)."""
    from ...kernels._vocab import UnsetType

    phase = policy.phases[0]
    stage = phase.invocation
    timed = not isinstance(phase.deadline_seconds, UnsetType)
    disposition = phase.deadline_disposition
    return {
        "concurrency": phase.concurrency.value,
        "failure": stage.failure.value,
        "completion": stage.completion.value,
        "error_surface": stage.error_surface.value,
        "sync_handlers": phase.sync_handlers.value,
        "handler_classification": phase.handler_classification.value,
        "returned_value_classifier": phase.returned_value_classifier.value,
        "returned_awaitable": phase.returned_awaitable.value,
        "sync_entry": phase.sync_entry.value,
        "handler_cancellation": stage.handler_cancellation.value,
        "predicate_failure": phase.predicate_failure.value,
        "deadline": "shared" if timed else "none",
        "deadline_disposition": "none" if isinstance(disposition, UnsetType) else disposition.value,
    }


def compare(axes: Mapping[str, PolicyAxis], name: str, inferred_only: bool = False
            ) -> tuple[int, tuple[ProfileDifference, ...]]:
    """(axes compared, the differences) of a path's axes against profile *name*."""
    compared = 0
    differences: list[ProfileDifference] = []
    for axis, want in pinned(name).items():
        got = axes.get(axis)
        if got is None or got.provenance == "unknown":
            continue
        if inferred_only and got.provenance != "inferred":
            continue
        if got.value == "not_applicable" and axis in _NOTHING_TO_COMPARE:
            continue
        compared += 1
        if got.value != want:
            differences.append(
                ProfileDifference(axis, want, got.value, got.provenance, got.evidence))
    return compared, tuple(differences)


def match(axes: Mapping[str, PolicyAxis], declared: str | None) -> ProfileMatch | None:
    """The profile the pack names for this path, else the nearest by the code's own axes (the
    smallest share of differing axes; None when the code decides no axis)."""
    if declared is not None:
        return ProfileMatch(declared, "declared", *compare(axes, declared))
    scored = []
    for name in PROFILE_NAMES:
        compared, diffs = compare(axes, name, inferred_only=True)
        if compared:
            scored.append((len(diffs) / compared, -compared, PROFILE_NAMES.index(name), name))
    if not scored:
        return None
    name = min(scored)[3]
    return ProfileMatch(name, "nearest", *compare(axes, name))
