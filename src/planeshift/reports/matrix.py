"""The ADR-0120 Phase 0 behaviour matrix in Markdown: dispatchers x D2 axes, read from the code,
with every difference from the named profiles and the lines that show it."""

from __future__ import annotations

from collections.abc import Iterable

from ..types import AxisEvidence, DispatchPath, MechanismSummary, PolicyAxis, ScanResult
from .md_table import cell, code, table

AXES = (  # (axis, column title): analyzer/policy/axes.py's order
    ("concurrency", "concurrency"), ("failure", "failure"), ("completion", "completion"),
    ("error_surface", "error surface"), ("sync_handlers", "sync handlers"),
    ("handler_classification", "classification"),
    ("returned_value_classifier", "returned-value classifier"),
    ("returned_awaitable", "returned awaitable"), ("sync_entry", "sync entry"),
    ("handler_cancellation", "handler cancellation"), ("predicate_failure", "predicate failure"),
    ("deadline", "deadline"), ("deadline_disposition", "deadline disposition"),
)
LEGEND = (
    "Each row is one dispatch path (an emission method and the helpers it calls), each value read "
    "from its code unless marked: *(declared)* the rule pack's value where the code in view does "
    "not decide the axis, `?` no one decides it, **bold ≠ x** the code differs from the named "
    "profile's `x`. `not_applicable`: the path has nothing the axis describes (one handler per "
    "call, no filter). `planeshift explain axes` says how each axis is read."
)


def render_matrix(result: ScanResult) -> str:
    """The matrix section, or "" when no dispatch path is in view."""
    rows = [(mech, path) for mech in result.mechanisms for path in mech.dispatch_paths]
    if not rows:
        return ""
    header = ["mechanism", "entry", "profile", *(title for _, title in AXES)]
    lines = [[code(mech.id), code(path.entry), _profile(path), *_cells(path)]
             for mech, path in rows]
    parts = ["## Dispatch policy matrix (ADR-0120 D2, Phase 0)", LEGEND, table(header, lines)]
    pinned = list(_differences(rows))
    parts.append("### Differences from the named profiles\n\n"
                 + ("\n".join(pinned) if pinned else "None: every path matches its profile."))
    nearest = [f"- {code(path.entry)} ({code(mech.id)}) is nearest to {code(path.profile.name)}: "
               + (", ".join(f"{d.axis} {code(d.code)} (profile {code(d.profile)})"
                            for d in path.profile.differences) or "no difference")
               for mech, path in rows
               if path.profile is not None and path.profile.matched == "nearest"]
    if nearest:
        parts.append("### Paths the pack names no profile for\n\n"
                     "The ADR pins no profile for these; each is shown against the profile it "
                     "differs from least (the matrix above has the lines).\n\n"
                     + "\n".join(nearest))
    return "\n\n".join(parts)


def _profile(path: DispatchPath) -> str:
    if path.profile is None:
        return "—"
    name = path.profile.name
    return name if path.profile.matched == "declared" else f"{name} (nearest)"


def _cells(path: DispatchPath) -> list[str]:
    axes = {a.axis: a for a in path.axes}
    differs = {d.axis: d.profile for d in path.profile.differences} if path.profile else {}
    out = []
    for axis, _ in AXES:
        found = axes.get(axis)
        out.append(_cell(found, differs.get(axis)) if found is not None else "?")
    return out


def _cell(axis: PolicyAxis, profile_value: str | None) -> str:
    if axis.provenance == "unknown":
        return "?"
    text = axis.value + (" *(declared)*" if axis.provenance == "declared" else "")
    return f"**{text} ≠ {profile_value}**" if profile_value is not None else text


def _differences(rows: Iterable[tuple[MechanismSummary, DispatchPath]]):
    for mech, path in rows:
        if path.profile is None or path.profile.matched != "declared":
            continue
        for diff in path.profile.differences:
            where = "; ".join(_where(e) for e in diff.evidence[:3]) or "no line recorded"
            source = "" if diff.provenance == "inferred" else " (the pack's declaration)"
            yield (f"- {code(path.entry)} ({code(mech.id)}, profile {code(path.profile.name)}): "
                   f"{diff.axis} is {code(diff.code)}{source}, the profile pins "
                   f"{code(diff.profile)}. Evidence: {where}")


def _where(evidence: AxisEvidence) -> str:
    place = f"{evidence.file}:{evidence.line}" if evidence.file else "pack"
    return f"{code(place)} {cell(evidence.seen)}"
