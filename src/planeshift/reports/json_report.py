"""The machine-readable report: a ScanResult as the stable ``planeshift.report/1`` JSON contract."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..types import PLANES, ScanResult
from .jsontext import dumps_indented

SCHEMA_ID = "planeshift.report/1"


def to_dict(result: ScanResult) -> dict[str, Any]:
    """The report as plain data, keys in contract order, lists in the order the result holds."""
    return {
        "schema": SCHEMA_ID,
        "root": result.root,
        "packs": list(result.packs),
        "summary": summary(result),
        "registrations": [r.to_json() for r in result.registrations],
        "emissions": [e.to_json() for e in result.emissions],
        "mechanisms": [m.to_json() for m in result.mechanisms],
        "findings": [f.to_json() for f in result.findings],
        "errors": [e.to_json() for e in result.errors],
        "context": [c.to_json() for c in result.context],
        "library_registrations": [r.to_json() for r in result.library],
        "stats": dict(result.stats),
    }


def render_json(result: ScanResult) -> str:
    """The report as JSON text: 2-space indent, stable key order, trailing newline."""
    return dumps_indented(to_dict(result), default=str) + "\n"


def summary(result: ScanResult) -> dict[str, Any]:
    """Counts over the result; every plane is present, mechanisms follow the result's order."""
    planes = Counter(r.plane for r in result.registrations)
    per_mechanism = Counter(r.mechanism for r in result.registrations)
    return {
        "files_scanned": result.files_scanned,
        "files_with_sites": result.files_with_sites,
        "registrations": len(result.registrations),
        "activations": sum(len(r.activations) for r in result.registrations),
        "library_activations": result.library_activations,
        "emissions": len(result.emissions),
        "findings": len(result.findings),
        "errors": len(result.errors),
        "planes": plane_counts(planes),
        "mechanisms": {mid: per_mechanism[mid] for mid in mechanism_ids(result)},
    }


def plane_counts(counts: Counter[str]) -> dict[str, int]:
    """Every known plane in ADR order, then any plane a pack invented, sorted."""
    known = {plane: counts.get(plane, 0) for plane in PLANES}
    extra = {plane: counts[plane] for plane in sorted(set(counts) - set(PLANES))}
    return {**known, **extra}


def mechanism_ids(result: ScanResult) -> list[str]:
    """Mechanisms in summary order, then ids only registrations or emissions name, sorted."""
    ids = [m.id for m in result.mechanisms]
    seen = set(ids)
    stray = {r.mechanism for r in result.registrations} | {e.mechanism for e in result.emissions}
    return ids + sorted(stray - seen)


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) that every report this module writes satisfies."""
    from importlib import (
        resources,  # here: it imports tempfile, which a scan does not need
    )

    text = (resources.files("planeshift") / "schema" / "report.schema.json").read_text("utf-8")
    return json.loads(text)
