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


def test_unwired_error_hooks_and_what_feeds_them(lionagi_scan: ScanResult) -> None:
    """Read in 0.36.0:
    - tools/coding.py:317-319 CodingToolkit.on_error puts the handler in `_error_hooks`
      (declared at :360 in __init__); nothing else names `_error_hooks`. agent/factory.py:671
      (`toolkit.on_error(tool_name, handler)` in _register_coding_tools) registers into it.
    - agent/spec.py:39-41 HooksMixin.on_error (AgentSpec's) stores the handler in
      `hook_handlers[f"error:{tool_name}"]`. hook_handlers is read only in agent/factory.py:
      :397 (writes "security_pre:*"), :400-405 `_tool_hooks(spec, phase, ...)`, called with
      "security_pre", "pre" and "post" only (:503-505), and :658-671, which routes the "error"
      phase (:670) to `toolkit.on_error` above, itself unwired. agent/settings.py:104-105
      (`elif phase == "on_error": config.on_error(tool_name, handler)`) feeds that bucket."""
    assert found(lionagi_scan, "PS102") == [("agent/spec.py", 40, "warning"),
                                            ("tools/coding.py", 360, "warning")]
    assert flagged(lionagi_scan, "unwired_error_hook") == [
        ("agent/factory.py", 671, "coding_toolkit_hooks"),
        ("agent/settings.py", 105, "agent_spec_hooks")]
