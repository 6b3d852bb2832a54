"""An owner's dispatch policy as the kernels spell it: the scan's axes, checked against (and
refined by) the codemod's own reading of the loop, then matched to the ADR's named profiles.

The scan must have read every axis from the code (provenance ``inferred``; an axis only the pack
declares, or none decides, refuses the owner). Where the scan and the loop disagree, the owner is
refused rather than guessed; two refinements are the loop's to make, since the scan has no value
for them: an ``except BaseException`` after a re-raised cancellation isolates interpreter exits
too (``isolate_base_exceptions``), and a by-declaration loop's "X (sync) / not_inspected (declared
async)" is the kernel's X (it never inspects a declared coroutine function's own result).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...analyzer.policy.profiles import KERNEL_PROFILES, pinned
from ...types import DispatchPath, PolicyAxis
from .idiom import Refused
from .read import FanOut

AXES = ("concurrency", "failure", "completion", "error_surface", "sync_handlers",
        "handler_classification", "returned_value_classifier", "returned_awaitable", "sync_entry",
        "handler_cancellation", "predicate_failure", "deadline", "deadline_disposition")
_FAILURE = {  # the failure value a clause shows -> (failure, completion, error surface)
    "isolate": ("isolate", "await_all", "log_only"),
    "isolate_base_exceptions": ("isolate_base_exceptions", "await_all", "log_only"),
    "propagate": ("propagate", "stop_on_failure", "raise_first"),
    "collect": ("collect", "await_all", "unwrap_single_else_group"),  # owner_collect's surface
}
_REFINED = {("failure", "isolate", "isolate_base_exceptions")}


@dataclass
class OwnerPolicy:
    axes: dict[str, str]  # every axis, kernel values
    profile: str  # the named profile it equals, or the nearest one
    exact: bool
    differences: list[tuple[str, str, str]] = field(default_factory=list)  # axis, profile, code
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"axes": dict(self.axes), "profile": self.profile,
                "matched": "exact" if self.exact else "nearest",
                "differences": [{"axis": a, "profile": p, "code": c}
                                for a, p, c in self.differences]}


def _where(axis: PolicyAxis) -> str:
    return "; ".join(f"{e.file}:{e.line}: {e.seen}" for e in axis.evidence[:1])


def scan_gate(path: DispatchPath) -> str | None:
    """Why the scan's policy of *path* is not complete (None when every axis was read), or why
    there is nothing for the fan-out kernel to run."""
    axes = {a.axis: a for a in path.axes}
    single = axes.get("concurrency")
    if single is not None and single.value == "not_applicable":
        return (f"concurrency: {path.entry} calls one handler per call, no fan-out "
                f"(not_applicable: {_where(single)}); there is nothing for the fan-out kernel to "
                "run: ADR-0120 D2 makes such a dispatcher \"an interceptor profile rather than "
                "Signal fan-out: one handler per hook/chunk key\" (the service HookRegistry's)")
    for axis in AXES:
        got = axes.get(axis)
        if got is None or got.provenance == "unknown" or got.value == "unknown":
            return f"policy incomplete: the scan could not read {axis} of {path.entry} from the code"
        if got.provenance != "inferred":
            return (f"policy incomplete: {axis} of {path.entry} is only declared by the rule pack "
                    f"({got.value}), not read from the code")
    return None


def scan_reason(path: DispatchPath) -> str | None:
    """An axis value the scan read that no owner rewrite produces, as a refusal reason."""
    axes = {a.axis: a for a in path.axes}
    gather = axes.get("returned_awaitable")
    if gather is not None and gather.value == "gather_after_invocations":
        return (f"returned awaitable: {path.entry} keeps the awaitables its handlers return and "
                f"gathers them after every handler was invoked (gather_after_invocations: "
                f"{_where(gather)}); the owner codemods rewrite that as one loop keeping what "
                "its handlers return in two lists, the awaitables gathered right after it "
                "(SessionObserver.emit's shape), and not otherwise")
    return None


def _scan_value(axis: str, value: str, classification: str) -> str:
    if " (sync) / " in value and classification == "by_declaration":
        return value.split(" (sync) / ")[0]
    return value


def build(path: DispatchPath, fan: FanOut) -> OwnerPolicy:
    """The kernel policy of *path* whose loop reads as *fan*; Refused where they disagree."""
    scan = {a.axis: a for a in path.axes}
    code = dict(fan.invocation.axes) | dict(fan.axes)
    if fan.kind != "gather":
        failure, completion, surface = _FAILURE[fan.failure.failure]
        code.update(failure=failure, completion=completion, error_surface=surface)
    code.setdefault("sync_entry", "unavailable")  # a sync entry's reader sets its own
    notes = []
    out: dict[str, str] = {}
    for axis in AXES:
        seen = _scan_value(axis, scan[axis].value, code.get("handler_classification", ""))
        mine = code.get(axis)
        if mine is None:
            out[axis] = seen
            continue
        if mine != seen and (axis, seen, mine) not in _REFINED:
            where = "; ".join(f"{e.file}:{e.line}" for e in scan[axis].evidence[:2])
            raise Refused(f"{axis}: the scan reads {seen}{f' ({where})' if where else ''}, the "
                          f"codemod reads {mine} in {path.entry}'s loop; left as it is rather "
                          "than guessed")
        if mine != seen:
            notes.append(f"{axis}: {mine} (the scan's {seen}, refined by the except clause)")
        out[axis] = mine
    return _matched(out, notes)


def _matched(axes: dict[str, str], notes: list[str]) -> OwnerPolicy:
    scored = []
    for name in KERNEL_PROFILES:
        want = pinned(name)
        diffs = [(a, want[a], axes[a]) for a in AXES
                 if axes[a] != want[a] and not (a == "predicate_failure"
                                                and axes[a] == "not_applicable")]
        scored.append((len(diffs), KERNEL_PROFILES.index(name), name, diffs))
    count, _, name, diffs = min(scored)
    if axes["predicate_failure"] == "not_applicable":
        # no filter runs inside the fan-out: the nearest profile's value is as good as any
        axes["predicate_failure"] = pinned(name)["predicate_failure"]
    return OwnerPolicy(axes, name, count == 0, diffs, notes)


def axes_source(axes: dict[str, str], deadline: str | None, indent: str = "    ") -> str:
    """``DispatchPolicy.from_axes(...)``, every axis spelled; *deadline* is the name of the
    seconds (None: no deadline)."""
    names = [a for a in AXES if a not in ("deadline", "deadline_disposition")]
    lines = [f'{a}="{axes[a]}",' for a in names]
    if deadline is not None:
        lines.append(f'deadline_disposition="{axes["deadline_disposition"]}" '
                     f'if {deadline} is not None else "none",')
        lines.append(f"deadline_seconds={deadline},")
    body = "".join(f"\n{indent}{line}" for line in lines)
    return f"DispatchPolicy.from_axes({body}\n)"
