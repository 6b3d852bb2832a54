"""planeshift scan of lionagi 0.36.0: counts per mechanism and plane, and sites checked by hand.

Every site pinned below was read in the 0.36.0 tree (paths relative to the lionagi/ package).
When the analyzer or the pack changes a number here, read the site again before updating it.
"""

from __future__ import annotations

from collections import Counter

import pytest

from planeshift.types import ScanResult

# mechanism -> {plane: count}; mechanisms absent from the tree have no entry
EXPECTED_PLANES = {
    # hooks/loader.py:93, :96 loop over the literal DEFAULT_HOOKS (one registration per entry);
    # agent/factory.py:373 looks a point up in the literal event_to_point (one per value)
    "hookbus": {"interceptor": 2, "subscriber": 11, "delivery_sink": 1, "needs_review": 2},
    # engines/flow_signals.py:148 observes NodeSpawned, a Signal: only the observer's point
    "session_observer": {"subscriber": 25, "interceptor": 1, "delivery_sink": 1},
    # hooks/persist.py:33: only MessageManager has an _on_message_added list
    "message_manager": {"subscriber": 2, "delivery_sink": 1},
    "message_pile_rewritten": {"subscriber": 1},
    "message_retry": {"needs_review": 1},
    "service_hook_registry": {"interceptor": 1},
    "scheduler_signals": {"subscriber": 1},
    "terminal_callbacks": {"delivery_sink": 4},
    # agent/factory.py:509, :511 `tool.preprocessor = ...` on `tool: Any`: only one slot of that name
    "tool_processors": {"interceptor": 4},
    # (+1: factory.py:397 puts the policy's pre hook first: hook_handlers.setdefault(...).insert)
    "agent_spec_hooks": {"interceptor": 6, "needs_review": 1},
    "coding_toolkit_hooks": {"interceptor": 4, "needs_review": 1},
    "action_tool_hooks": {"interceptor": 1, "observing_subscriber": 1},
    "messenger": {"needs_review": 3},
    "engine_events": {"subscriber": 1},
    "flow_callbacks": {"subscriber": 3, "needs_review": 4},
    "imodel_stream_processor": {"interceptor": 4},
    "cli_spawn_observers": {"needs_review": 2},
    "context_providers": {"needs_review": 2},
}
NO_REGISTRATIONS = {
    "broadcaster", "dispatch_outbox", "provider_stream_handlers", "permission_escalation",
    "external_hooks",  # settings files live in users' homes and projects, not in the package
}

# (file, line, mechanism, point, plane, handler qualname) - each read in the source
SITES = [
    ("agent/spec.py", 52, "agent_spec_hooks", "SECURITY_PRE", "interceptor",
     "lionagi.agent.hooks.guard_destructive"),
    ("agent/context_fold.py", 417, "hookbus", "API_PRE_CALL", "interceptor",
     "lionagi.agent.context_fold.ContextFold.on_api_pre_call"),
    ("hooks/persist.py", 42, "hookbus", "MESSAGE_ADD", "delivery_sink",
     "lionagi.hooks.persist.route_message_persistence._handler"),
    ("session/observer.py", 594, "session_observer", "Signal", "delivery_sink",
     "lionagi.session.observer.SessionObserver.bind_db_persistence._persist"),
    ("session/session.py", 178, "session_observer", "GATE", "interceptor", None),
    ("engines/hypothesis.py", 895, "session_observer", "FindingPosted", "subscriber", None),
    ("operations/flow.py", 1165, "session_observer", "EscalationRequest", "subscriber",
     "lionagi.operations.flow.ReactiveExecutor._on_bus_escalation"),
    ("studio/scheduler/signals.py", 265, "scheduler_signals", "ScheduleRunFailed", "subscriber",
     "lionagi.studio.scheduler.signals._log_schedule_run_failed"),
    ("session/branch.py", 149, "message_manager", None, "subscriber",
     "lionagi.session.branch.Branch._schedule_emit"),
    ("session/branch.py", 151, "message_pile_rewritten", None, "subscriber",
     "lionagi.session.branch.Branch._sync_view_with_pile"),
    ("studio/scheduler/engine.py", 125, "terminal_callbacks", None, "delivery_sink",
     "lionagi.studio.scheduler.engine._register_schedule_notify._filtered"),
    ("cli/orchestrate/flow.py", 2061, "messenger", "done", "needs_review",
     "lionagi.cli.orchestrate._orchestration.TeamLifecycleCoordinator.on_done"),
    ("agent/factory.py", 369, "action_tool_hooks", "TOOL_PRE", "interceptor", None),
    # spec.hook_handlers.setdefault("security_pre:*", []).insert(0, policy.to_pre_hook())
    ("agent/factory.py", 397, "agent_spec_hooks", "security_pre:*", "interceptor", None),
    ("agent/factory.py", 371, "action_tool_hooks", "TOOL_POST", "observing_subscriber", None),
    ("agent/factory.py", 671, "coding_toolkit_hooks", "ERROR", "needs_review", None),
    ("tools/coding.py", 679, "coding_toolkit_hooks", "POST", "interceptor",
     "lionagi.tools.coding.CodingToolkit.bind._notify_post"),
    ("operations/run/run.py", 531, "imodel_stream_processor", "CHUNK", "interceptor",
     "lionagi.operations.run.run.run._persist_chunk"),
]

# calls a naive scanner would report: none of them is a registration
LOOKALIKES = [
    ("state/lifecycle/policy.py", 184),  # PolicyRegistry.register, same package as terminal callbacks
    ("session/session.py", 105),  # Exchange.register (a mailbox, no callable)
    ("agent/factory.py", 1390),  # atexit.register
    ("state/db.py", 8288),  # sqlite3.connect
    ("providers/ag2/agent.py", 227),  # AG2 stream.subscribe
]


def by_site(result: ScanResult) -> dict[tuple[str, int], list]:
    out: dict[tuple[str, int], list] = {}
    for reg in result.registrations:
        out.setdefault((reg.file, reg.line), []).append(reg)
    return out


def test_scan_is_clean(lionagi_scan: ScanResult) -> None:
    assert lionagi_scan.files_scanned == 611
    assert lionagi_scan.errors == ()


def test_every_mechanism_is_listed_with_its_dispatcher(lionagi_scan: ScanResult) -> None:
    ids = {m.id for m in lionagi_scan.mechanisms if m.pack == "lionagi"}
    assert ids == set(EXPECTED_PLANES) | NO_REGISTRATIONS
    assert len(ids) >= 15  # ADR-0120: "at least fifteen callback or dispatch contracts"
    for mech in lionagi_scan.mechanisms:
        assert mech.dispatcher, mech.id  # a class, or the functions that dispatch


def test_counts_per_mechanism_and_plane(lionagi_scan: ScanResult) -> None:
    found: dict[str, Counter] = {}
    for reg in lionagi_scan.registrations:
        found.setdefault(reg.mechanism, Counter())[reg.plane] += 1
    assert {m: dict(c) for m, c in found.items()} == EXPECTED_PLANES
    planes = Counter(r.plane for r in lionagi_scan.registrations)
    assert dict(planes) == {
        "subscriber": 44, "needs_review": 16, "interceptor": 23, "delivery_sink": 7,
        "observing_subscriber": 1,
    }


@pytest.mark.parametrize(("file", "line", "mechanism", "point", "plane", "qualname"), SITES)
def test_hand_checked_site(lionagi_scan, file, line, mechanism, point, plane, qualname) -> None:
    matches = [r for r in by_site(lionagi_scan).get((file, line), []) if r.mechanism == mechanism]
    assert len(matches) == 1, by_site(lionagi_scan).get((file, line))
    reg = matches[0]
    assert (reg.point, reg.plane) == (point, plane)
    if qualname is not None:
        assert reg.handler.qualname == qualname
    assert reg.evidence, "every classification carries its evidence"


@pytest.mark.parametrize(("file", "line"), LOOKALIKES)
def test_lookalike_is_not_a_registration(lionagi_scan, file, line) -> None:
    assert (file, line) not in by_site(lionagi_scan)


def test_engine_observe_facades_resolve_to_their_callers(lionagi_scan: ScanResult) -> None:
    """run.observe -> EngineRun.observe -> Session.observe -> SessionObserver.observe."""
    hypothesis = [r for r in lionagi_scan.registrations if r.file == "engines/hypothesis.py"]
    assert [r.line for r in hypothesis] == list(range(894, 902))
    assert all(r.plane == "subscriber" for r in hypothesis)
    facades = [r for r in lionagi_scan.registrations if r.file == "engines/engine.py" and r.line == 585]
    assert facades == []  # the façade's own forwarding call is not a registration


def test_table_driven_registrations_are_one_per_entry_of_the_literal_table(lionagi_scan) -> None:
    """hooks/loader.py:96 registers DEFAULT_HOOKS (a literal dict, loader.py:25) in a loop: one
    registration per entry, its point and handler read from the entry; :102 loops over the
    agent's overrides, which no literal spells out, so its point stays dynamic."""
    at_96 = sorted((r.point, r.handler.qualname) for r in lionagi_scan.registrations
                   if (r.file, r.line) == ("hooks/loader.py", 96))
    assert at_96 == [
        ("BRANCH_CREATE", "lionagi.hooks.builtins.persist_branch_provenance"),
        ("BRANCH_END", "lionagi.hooks.builtins.persist_branch_end"),
        ("SESSION_END", "lionagi.hooks.builtins.persist_session_end"),
        ("SESSION_START", "lionagi.hooks.builtins.persist_session_start"),
    ]
    (at_102,) = [r for r in lionagi_scan.registrations if (r.file, r.line) == ("hooks/loader.py", 102)]
    assert at_102.plane == "needs_review" and "dynamic_point" in at_102.flags


def test_discard_unawaited_registrations_are_flagged(lionagi_scan: ScanResult) -> None:
    flagged = {(r.file, r.line) for r in lionagi_scan.registrations if "discard_unawaited" in r.flags}
    assert ("session/branch.py", 149) in flagged  # MessageManager sync callback
    assert ("cli/orchestrate/flow.py", 2061) in flagged  # LionMessenger drops the result
    assert ("session/observer.py", 594) not in flagged  # SessionObserver gathers awaitables


def test_emissions_and_dormant_points(lionagi_scan: ScanResult) -> None:
    hookbus = next(m for m in lionagi_scan.mechanisms if m.id == "hookbus")
    assert "ARTIFACT_CREATED" in hookbus.dormant_points
    emitted = {(e.file, e.line, e.point) for e in lionagi_scan.emissions if e.mechanism == "hookbus"}
    assert ("operations/act/act.py", 79, "TOOL_PRE") in emitted
    assert ("operations/chat/chat.py", 33, "USER_PROMPT_SUBMIT") in emitted
    assert set(hookbus.emitted_points) >= {"TOOL_PRE", "TOOL_POST", "TOOL_ERROR", "SESSION_END"}


def test_unwired_error_hook_is_found(lionagi_scan: ScanResult) -> None:
    """ADR-0120 P4: CodingToolkit._error_hooks is filled by on_error and never read (and the
    AgentSpec "error:" bucket that feeds it: tests/corpus/test_hazards_corpus.py)."""
    unwired = [(f.file, f.line) for f in lionagi_scan.findings if f.kind == "unwired_error_hook"]
    assert ("tools/coding.py", 360) in unwired


def test_json_report_satisfies_its_schema(lionagi_scan: ScanResult) -> None:
    import json

    from reports.test_schema import validate

    from planeshift.reports.json_report import load_schema, render_json

    schema = load_schema()
    assert validate(json.loads(render_json(lionagi_scan)), schema, schema) == []


# helper -> the calls of it that activate its registration (file, line), each read in the source
ACTIVATIONS = {
    "register_settings_terminal_callback": [("cli/main.py", 319), ("studio/app.py", 374)],
    "SessionObserver.bind_db_persistence": [
        ("cli/_runs.py", 2230), ("cli/engine.py", 383),
        # `session.observer.bind_db_persistence(...)` on an untyped session: by its name
        ("cli/orchestrate/_orchestration.py", 2062), ("studio/services/workflow_run.py", 70)],
    "register_flow_notify_scope": [
        ("cli/agent.py", 1768), ("cli/orchestrate/fanout.py", 251),
        ("cli/orchestrate/flow.py", 3200)],
    "register_default_handlers": [("studio/scheduler/engine.py", 3379)],
}


@pytest.mark.parametrize("helper", sorted(ACTIVATIONS))
def test_helper_activations_are_listed_under_their_registration(lionagi_scan: ScanResult,
                                                                helper: str) -> None:
    (reg,) = [r for r in lionagi_scan.registrations if r.scope == helper]
    direct = [(a.file, a.line) for a in reg.activations if a.helper.endswith(f".{helper}")]
    assert direct == ACTIVATIONS[helper]
    assert sum(len(r.activations) for r in lionagi_scan.registrations) >= 14
