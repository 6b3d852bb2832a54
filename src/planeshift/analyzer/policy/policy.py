"""Dispatch-policy resolution (ADR-0120 D2): each mechanism's policy read from the code first,
the pack's declaration as the fallback, every axis with its provenance, and the named profile
each dispatch path is held to.

Where the code in view decides an axis, its value wins and the lines that decided it are the
evidence (``inferred``); where it does not (no dispatcher source in view, a handler fetched
through a helper in another module), the pack's value stands (``declared``); otherwise the axis
is ``unknown``. A declaration no dispatch path reads as is stale (rule PS108).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...packs.model import Mechanism
from ...types import AxisEvidence, DispatchPath, MechanismPolicy, PolicyAxis
from ..link.index import ProjectIndex
from .axes import AXES, UNKNOWN, PathReader, Reading
from .dispatch_paths import Mro, Path, mechanism_paths
from .profiles import match

NOT_IN_VIEW = "no handler call of this mechanism is in the scanned tree"


def resolve(mech: Mechanism, classes: Iterable[str], index: ProjectIndex,
            mechanisms: Iterable[Mechanism], mro: Mro | None = None
            ) -> tuple[dict[str, str], list[Any]]:
    """(the effective axis -> value map, the resolved policy as a cache row for the summary)."""
    from ..store.codec import (
        encode,  # the row survives the link snapshot as is
    )

    resolved = resolve_policy(mech, classes, index, mechanisms, mro)
    effective = {a.axis: a.value for a in resolved.axes if a.provenance != "unknown"}
    return effective, encode(resolved)


def policy_fields(row: list[Any]) -> dict[str, Any]:
    """The MechanismSummary fields of a row :func:`resolve` returned."""
    from ..store.codec import decode

    resolved: MechanismPolicy = decode(MechanismPolicy, row)
    return {"policy_evidence": resolved.evidence, "policy_axes": resolved.axes,
            "dispatch_paths": resolved.paths, "profile": resolved.profile}


def resolve_policy(mech: Mechanism, classes: Iterable[str], index: ProjectIndex,
                   mechanisms: Iterable[Mechanism], mro: Mro | None = None) -> MechanismPolicy:
    walked = mechanism_paths(mech, classes, index, mechanisms, mro)
    found = [_dispatch_path(mech, p) for p in walked]
    paths = [p for p in found if any(a.provenance == "inferred" for a in p.axes)]
    blind = [p.entry for p in found if p not in paths]
    if paths:
        axes, profile = paths[0].axes, paths[0].profile
    else:
        axes = merge(mech, {})
        declared = dict(mech.profile).get("*")
        profile = match({a.axis: a for a in axes}, declared) if declared else None
    notes = tuple(f"{entry}: no handler call found on its path" for entry in blind)
    return MechanismPolicy(_evidence(mech, paths) + notes, axes, tuple(paths), profile)


def merge(mech: Mechanism, readings: dict[str, Reading], method: str = ""
          ) -> tuple[PolicyAxis, ...]:
    """Every axis: the code's reading where it decides one, else the pack's (for *method*, an
    entry's own declaration over the policy), else unknown."""
    declared = mech.policy_for(method)
    note = AxisEvidence(None, None, f"declared in pack {mech.pack}"
                        + (f": {mech.policy_evidence}" if mech.policy_evidence else ""))
    out = []
    for axis in AXES:
        reading = readings.get(axis)
        if reading is not None and reading.value != UNKNOWN:
            out.append(PolicyAxis(axis, reading.value, "inferred", reading.evidence,
                                  declared.get(axis)))
        elif axis in declared:
            why = reading.evidence if reading is not None else ()
            out.append(PolicyAxis(axis, declared[axis], "declared", (note, *why), declared[axis]))
        else:
            why = (reading.evidence if reading is not None
                   else (AxisEvidence(None, None, NOT_IN_VIEW),))
            out.append(PolicyAxis(axis, UNKNOWN, "unknown", why))
    return tuple(out)


def _dispatch_path(mech: Mechanism, path: Path) -> DispatchPath:
    method = path.entry.rsplit(".", 1)[-1]
    axes = merge(mech, PathReader(path).read(), method)
    profiles = dict(mech.profile)
    declared = profiles.get(method, profiles.get("*"))
    notes = tuple(f"calls {d}, another entry of this mechanism (its own dispatch path)"
                  for d in path.delegates)
    return DispatchPath(path.entry, path.file, path.line, axes,
                        match({a.axis: a for a in axes}, declared), notes)


def stale(mech_axes: Iterable[PolicyAxis], paths: Iterable[DispatchPath]
          ) -> list[tuple[PolicyAxis, PolicyAxis, str]]:
    """(declared axis, the code's reading, its path's entry) for each declaration that no
    dispatch path reads as (an axis the code finds nothing to apply to contradicts nothing).
    Each path is held to what the pack declares for it: an entry's own axes
    (``policy.entries``: Django's ``send_robust``) over the policy."""
    paths = list(paths)
    out = []
    for axis in mech_axes:
        if axis.declared is None:
            continue
        read = [(p_axis, p.entry) for p in paths for p_axis in p.axes
                if p_axis.axis == axis.axis and p_axis.provenance == "inferred"
                and p_axis.value != "not_applicable"]
        if read and all(r.value != (r.declared or axis.declared) for r, _ in read):
            first, entry = read[0]
            out.append((first if first.declared else axis, first, entry))
    return out


def _evidence(mech: Mechanism, paths: list[DispatchPath]) -> tuple[str, ...]:
    lines = [f"declared in pack {mech.pack}: {mech.policy_evidence}"] if mech.policy else []
    lines += [f"declared in pack {mech.pack} for {method}: "
              + ", ".join(f"{axis}={value}" for axis, value in axes)
              for method, axes in mech.entry_policies]
    for path in paths:
        read = [f"{a.axis}={a.value}" for a in path.axes if a.provenance == "inferred"]
        if read:
            lines.append(f"{path.entry} ({path.file}:{path.line}) reads as " + ", ".join(read))
        lines += [f"{path.entry} {note}" for note in path.notes]
    for declared, code, _ in stale(paths[0].axes if paths else (), paths):
        where = next((f" at {e.file}:{e.line}" for e in code.evidence if e.file), "")
        lines.append(f"pack declares {declared.axis}={declared.declared} but the code reads as "
                     f"{code.value}{where}")
    return tuple(lines)
