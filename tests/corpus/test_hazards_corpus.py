"""The hazard rules on lionagi 0.36.0: every finding pinned, each site read in the tree.

Paths are relative to the lionagi/ package. Each pin names the lines read to confirm it; when a
rule or the pack changes a pin, read the site again before updating it.
"""

from __future__ import annotations

import pytest

from planeshift.types import ScanResult

pytestmark = pytest.mark.corpus


def found(result: ScanResult, rule: str) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.severity) for f in result.findings if f.rule == rule]


def flagged(result: ScanResult, kind: str) -> list[tuple[str, int, str]]:
    return [(r.file, r.line, r.mechanism) for r in result.registrations if kind in r.flags]


def test_dormant_point_member(lionagi_scan: ScanResult) -> None:
    """hooks/bus.py:61 `ARTIFACT_CREATED = "artifact.created"`, listed in DORMANT_POINTS (:71,
    "HookPoints with no production emit site"); grep finds no other mention in the package.
    HookBus's source is scanned and its only variable-point emission is its own forwarding
    (bus.py:180 `blocking_emit(point, ...)` inside HookBus.emit), so the inference holds too.
    No registration on it exists in the tree, so no registration is flagged."""
    assert found(lionagi_scan, "PS103") == [("hooks/bus.py", 61, "info")]
    message = next(f.message for f in lionagi_scan.findings if f.rule == "PS103")
    assert "declares it dormant; no emission in the scanned tree fires it" in message
    assert flagged(lionagi_scan, "dormant_point") == []
