"""The hazard rules on lionagi 0.36.0: every finding pinned, each site read in the tree.

Paths are relative to the lionagi/ package. Each pin names the lines read to confirm it; when a
rule or the pack changes a pin, read the site again before updating it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.api import owned
from planeshift.config import Config
from planeshift.types import ScanResult

pytestmark = pytest.mark.corpus


def found(result: ScanResult, rule: str) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.severity) for f in result.findings if f.rule == rule]


def flagged(result: ScanResult, kind: str) -> list[tuple[str, int, str]]:
    return [(r.file, r.line, r.mechanism) for r in result.registrations if kind in r.flags]


# the owners a maintainer would write in [tool.planeshift] for the enumeration ADR-0120 D2 asks for
OWNERS = (("cli/**", "@cli-team"), ("engines/**", "@engines-team"), ("hooks/**", "@hooks-team"),
          ("operations/**", "@operations-team"), ("service/**", "@service-team"),
          ("session/**", "@session-team"), ("studio/**", "@studio-team"))

# (file, line, mechanism, handler, severity, owner): every DISCARD_UNAWAITED registration.
DISCARD_UNAWAITED = [
    # _runs.py:1808-1811: on_persisted = _record_persisted (a sync def) handed to
    # PendingMessageEvent (the keyword, :1820); _message_retry calls event.on_persisted() and
    # drops the result
    ("cli/_runs.py", 1820, "message_retry", "on_persisted", "info", "@cli-team"),
    # flow.py:2061-2062, :3703: LionMessenger.on(event, cb); _fire calls cb(**kwargs), dropped
    ("cli/orchestrate/flow.py", 2061, "messenger", "_team_coordinator.on_done", "info",
     "@cli-team"),
    ("cli/orchestrate/flow.py", 2062, "messenger", "_team_coordinator.on_finished", "info",
     "@cli-team"),
    # flow.py:2434: eng_run.run_dag(...) forwards on_op_complete, spawn_branch_setup and
    # on_branch_created to the flow executor, which calls them sync
    ("cli/orchestrate/flow.py", 2434, "flow_callbacks", "_on_op_complete", "info", "@cli-team"),
    ("cli/orchestrate/flow.py", 2434, "flow_callbacks", "_spawn_branch_setup if reactive else None",
     "info", "@cli-team"),
    ("cli/orchestrate/flow.py", 2434, "flow_callbacks",
     ("lambda branch: ( register_branch_hook(env._live_persist, branch) if env._live_persist "
      "else None )"), "info", "@cli-team"),
    ("cli/orchestrate/flow.py", 3703, "messenger", "make_help_coordinator(env)", "info",
     "@cli-team"),
    # coding.py:502/507: on_event: Any forwarded to EngineRun (notify calls it sync)
    ("engines/coding.py", 507, "engine_events", "on_event", "warning", "@engines-team"),
    # engine.py:1398-1401: on_progress from flow_progress_signals, forwarded to session.flow
    ("engines/engine.py", 1401, "flow_callbacks", "on_progress", "warning", "@engines-team"),
    ("engines/planning.py", 197, "flow_callbacks", "_inherit_worker_providers", "info",
     "@engines-team"),
    # run.py:793 (a restore of the saved streaming_process_func in a finally) and imodel.py:820
    # (copy() handing its own on) register nothing new: flagged pass_through, no PS101 (the
    # handler's own registration carries it)
    ("service/imodel.py", 293, "service_hook_registry", "**self.hook_registry", "warning",
     "@service-team"),
    # branch.py:149-151: sync defs (:447, :416, :429) on the MessageManager callback lists
    ("session/branch.py", 149, "message_manager", "self._schedule_emit", "info", "@session-team"),
    ("session/branch.py", 150, "message_manager", "self._track_message_in_view", "info",
     "@session-team"),
    ("session/branch.py", 151, "message_pile_rewritten", "self._sync_view_with_pile", "info",
     "@session-team"),
    # workflow_run.py:181-185: session.flow(..., on_progress=...) and its branch hook lambda
    ("studio/services/workflow_run.py", 182, "flow_callbacks",
     "lambda b: register_branch_hook(ctx, b)", "info", "@studio-team"),
    ("studio/services/workflow_run.py", 182, "flow_callbacks", "on_progress", "warning",
     "@studio-team"),
]


def test_the_discard_unawaited_enumeration_with_owners(lionagi_scan: ScanResult,
                                                        corpus_root: Path) -> None:
    """ADR-0120 D2's gate: every registration resolving to DISCARD_UNAWAITED, each with an
    owner, as `scan --format json` gives it with `owners` in [tool.planeshift]."""
    result = owned(lionagi_scan, Config(root=corpus_root, owners=OWNERS))
    regs = {(r.file, r.line, r.mechanism, r.handler.expr): r for r in result.registrations}
    got = []
    for f in (f for f in result.findings if f.rule == "PS101"):
        handler = next(k[3] for k, r in regs.items() if k[:2] == (f.file, f.line)
                       and k[2] == f.mechanism and f.message.startswith(f"{k[3]} lands"))
        got.append((f.file, f.line, f.mechanism, handler, f.severity, f.owner))
    assert got == DISCARD_UNAWAITED
    assert sorted(flagged(result, "discard_unawaited")) == sorted(
        (file, line, mech) for file, line, mech, *_ in DISCARD_UNAWAITED)


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


def test_gate_suppresses_audit(lionagi_scan: ScanResult) -> None:
    """session/observer.py SessionObserver.emit, read in 0.36.0: :365 `allowed = True`, :366-370
    `if self._gate is not None: try: allowed = bool(await maybe_await(self._gate(payload)))
    except Exception: allowed = False`, :372 `self.flow.add_item(event)`, :373-374 `if not
    allowed: return []`, then the routes loop (:376) and the subscribers loop (:383). The
    durable write is bind_db_persistence's `self.observe(Signal, handler=_persist)` (:594), a
    subscriber in that loop (ADR-0120 Phase 2 arm 3 cites these lines as :371-372 and :376)."""
    assert found(lionagi_scan, "PS104") == [("session/observer.py", 369, "error"),
                                            ("session/observer.py", 374, "warning"),
                                            ("session/observer.py", 594, "warning")]
    assert flagged(lionagi_scan, "gate_suppresses_audit") == [
        ("session/observer.py", 594, "session_observer")]


def test_denial_by_exception(lionagi_scan: ScanResult) -> None:
    """Interceptors whose own body, or a function it calls from a statement of its own, raises a
    PermissionError, read in 0.36.0:
    - agent/hooks.py:41-49 guard_destructive, `raise PermissionError(...)` at :45; registered
      as a security_pre hook by agent/spec.py:52 (_wire_secure_guards).
    - agent/hooks.py:99-134 guard_paths' `_guard`, raising at :121, :131, :133 (deny rules), and
      through the helpers it calls for containment: `_resolve_against_any_root` (:110) raises at
      :74 and `_deny_only_floor` (:112) at :80 and :83 (the `raise hard_floor_error` at :73 names
      no exception class); registered twice, agent/spec.py:55 and :56 (`path_guard`).
    - agent/factory.py:429-450 _chain_pre_hooks' `chained` raises GateDeniedError (a
      PermissionError, agent/gate.py:60) at :434 and :446 when a gate pass denies; it is the
      Tool preprocessor CodingToolkit.bind installs (tools/coding.py:901, the `preprocessor=`
      keyword, via _build_preprocessor, :321).
    - agent/permissions.py:140-181 PermissionPolicy.to_pre_hook's `permission_check` raises
      PermissionError at :167 (an escalation declined) and :179 (a deny rule) and
      ControlUnavailableError (a PermissionError) at :174; agent/factory.py:397 inserts it first
      into the "security_pre:*" bucket of AgentSpec.hook_handlers.
    Not reported: agent/settings.py's shell hooks (:101, :103 may be shell_pre_hook, which
    raises, or shell_post_hook, which does not) and agent/factory.py:369 (`handler` may be the
    external adapter's bus_hook, raising at hooks/external.py:878, but that line only ever
    registers its PreToolUse pre_hook, which returns a typed ToolPreDecision); nor
    agent/permissions.py:188 (`_build_match_string`, two calls away from permission_check,
    through `policy.check`)."""
    assert found(lionagi_scan, "PS105") == [
        ("agent/factory.py", 434, "warning"), ("agent/factory.py", 446, "warning"),
        ("agent/hooks.py", 45, "warning"), ("agent/hooks.py", 74, "warning"),
        ("agent/hooks.py", 80, "warning"), ("agent/hooks.py", 83, "warning"),
        ("agent/hooks.py", 121, "warning"),
        ("agent/hooks.py", 131, "warning"), ("agent/hooks.py", 133, "warning"),
        ("agent/permissions.py", 167, "warning"), ("agent/permissions.py", 174, "warning"),
        ("agent/permissions.py", 179, "warning")]
    assert flagged(lionagi_scan, "denial_by_exception") == [
        ("agent/factory.py", 397, "agent_spec_hooks"),
        ("agent/spec.py", 52, "agent_spec_hooks"), ("agent/spec.py", 55, "agent_spec_hooks"),
        ("agent/spec.py", 56, "agent_spec_hooks"), ("tools/coding.py", 901, "tool_processors")]


def test_status_bypass_and_raw_primitive(lionagi_scan: ScanResult) -> None:
    """Read in 0.36.0: protocols/generic/event.py:254-269 Event.status's setter writes
    `self.execution.status` and sets the completion event on a terminal status (:266-267).
    service/hooks/hook_event.py HookEvent(Event).invoke writes `self.execution.status =
    EventStatus.PROCESSING` directly at :37; its other status writes go through the setter
    (`self.status = st` :55, `= final_status` :79, `= EventStatus.FAILED` :83), so the terminal
    status does signal completion (docs/characterization.md's "Differs from P6"). Event itself
    creates the completion event as a raw `asyncio.Event()` (event.py:237, `import asyncio` :6),
    in its completion_event property.
    Outside the class, `execution.status` (which only Event.status's setter writes) is written
    directly by the flow executors, terminal statuses among them, so no completion is signalled:
    cli/orchestrate/flow.py _reconstruct_spawned_nodes (:1383 COMPLETED, :1386 FAILED) and
    _apply_checkpoint_precompletion (:1504, :1507), operations/flow.py _execute_operation (:615
    SKIPPED, :694 FAILED, :755 CANCELLED), and testing/_legacy.py:131's API-call mock."""
    assert found(lionagi_scan, "PS106") == [
        ("cli/orchestrate/flow.py", 1383, "warning"), ("cli/orchestrate/flow.py", 1386, "warning"),
        ("cli/orchestrate/flow.py", 1504, "warning"), ("cli/orchestrate/flow.py", 1507, "warning"),
        ("operations/flow.py", 615, "warning"), ("operations/flow.py", 694, "warning"),
        ("operations/flow.py", 755, "warning"), ("service/hooks/hook_event.py", 37, "warning"),
        ("testing/_legacy.py", 131, "warning")]
    assert found(lionagi_scan, "PS109") == [("protocols/generic/event.py", 237, "info")]


def test_terminal_second_source_and_unstable_identity(lionagi_scan: ScanResult) -> None:
    """ADR-0124, read in 0.36.0. The owner's path: state/lifecycle/service.py:288-309
    SQLAlchemyLifecycleService._emit_terminal_event, called by _transition (:659) after the
    guarded write, builds the envelope with `event_id=transition_id` (:83-97, :91) and emits at
    :309 (the pack's `terminal: source:`).
    - cli/orchestrate/flow.py, in _run_flow's finally: `_inv_written = await
      _inv_db.update_status(...)` (:3429); `except Exception:` (:3454), commented "The guarded
      update_status() above never committed, so the terminal-callback registry never fired ...
      emit a best-effort envelope directly", then `await DEFAULT_TERMINAL_CALLBACKS.emit(` (:3481)
      `RunTerminalEnvelope(event_id=str(_uuid.uuid4()), ..., durable=False)` (:3483, `import
      uuid as _uuid` at :3469): the fallback second source, with a minted identity.
    - cli/orchestrate/_notify.py:216-290 deliver_flow_notify_now builds
      `RunTerminalEnvelope(event_id=str(uuid.uuid4()), ...)` (:261-262) and hands it to the
      notify handler itself (:270-277), not through the registry: no emission, so no PS110,
      but the identity is minted."""
    assert found(lionagi_scan, "PS110") == [("cli/orchestrate/flow.py", 3481, "error")]
    assert found(lionagi_scan, "PS111") == [("cli/orchestrate/_notify.py", 262, "warning"),
                                            ("cli/orchestrate/flow.py", 3483, "warning")]


def test_a_handler_taken_by_its_method_name_is_not_discarded(lionagi_scan: ScanResult) -> None:
    """persist.py:33: `branch` is `Any`, but only Branch defines `_persist_via_bus`, an `async
    def` (session/branch.py:408) the async path awaits by declaration (and the sync path rejects
    before anything happens): no DISCARD_UNAWAITED, as the owner's reading of the code has it."""
    (reg,) = [r for r in lionagi_scan.registrations
              if (r.file, r.line) == ("hooks/persist.py", 33)]
    assert (reg.handler.qualname, reg.handler.declared_async, reg.handler.by_name) == (
        "lionagi.session.branch.Branch._persist_via_bus", True, True)
    assert "discard_unawaited" not in reg.flags
    assert not [f for f in lionagi_scan.findings if (f.file, f.line) == ("hooks/persist.py", 33)]
