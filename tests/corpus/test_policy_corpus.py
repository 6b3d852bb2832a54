"""lionagi 0.36.0: the dispatch policy of every dispatcher ADR-0120 D2 pins a profile for (and
HookBus), read from the code, each axis pinned here checked by reading the dispatcher's source.

Lines are in the 0.36.0 tree (relative to the lionagi/ package). Every (file, line) listed must
be among the evidence planeshift gives for that axis; when the analyzer changes one, read the
line again before updating it.
"""

from __future__ import annotations

import pytest

from planeshift.types import DispatchPath, ScanResult

pytestmark = pytest.mark.corpus

BUS, OBS, BRD = "hooks/bus.py", "session/observer.py", "service/broadcaster.py"
MM, SIG = "protocols/messages/manager.py", "studio/scheduler/signals.py"
TCR, REG = "state/lifecycle/callbacks.py", "service/hooks/hook_registry.py"

# (mechanism, entry) -> axis -> (value, provenance, lines that must be in its evidence)
VERIFIED: dict[tuple[str, str], dict[str, tuple[str, str, list[tuple[str, int]]]]] = {
    ("hookbus", "HookBus.emit"): {  # bus.py:187-197
        "concurrency": ("sequential", "inferred", [(BUS, 187)]),  # for handler in handlers:
        "failure": ("isolate", "inferred", [(BUS, 192)]),  # except Exception: ... logger.exception
        "completion": ("await_all", "inferred", [(BUS, 192)]),
        "error_surface": ("log_only", "inferred", [(BUS, 192)]),
        "sync_handlers": ("inline", "inferred", [(BUS, 189)]),
        "handler_classification": ("by_return_value", "inferred", [(BUS, 189)]),  # maybe_await
        "returned_value_classifier": ("inspect_awaitable", "inferred", [(BUS, 189)]),
        "returned_awaitable": ("await_in_invocation", "inferred", [(BUS, 189)]),
        "sync_entry": ("unavailable", "inferred", [(BUS, 167)]),  # async def emit
        "handler_cancellation": ("propagate", "inferred", [(BUS, 189)]),  # Exception only
        "predicate_failure": ("not_applicable", "inferred", []),
        "deadline": ("none", "inferred", [(BUS, 187)]),
    },
    ("hookbus", "HookBus.blocking_emit"): {  # bus.py:150-164: except Exception: record; raise
        "concurrency": ("sequential", "inferred", [(BUS, 150)]),
        "failure": ("propagate", "inferred", [(BUS, 155)]),
        "completion": ("stop_on_failure", "inferred", [(BUS, 155)]),
        "error_surface": ("raise_first", "inferred", [(BUS, 155)]),
        "returned_awaitable": ("await_in_invocation", "inferred", [(BUS, 152)]),
    },
    ("session_observer", "SessionObserver.emit"): {  # observer.py:383-393
        "concurrency": ("sequential", "inferred", [(OBS, 383)]),
        "failure": ("propagate", "inferred", [(OBS, 385)]),  # out = handler(matched, ctx), no try
        "completion": ("stop_on_failure", "inferred", [(OBS, 385)]),
        "error_surface": ("raise_first", "inferred", [(OBS, 385)]),
        "sync_handlers": ("inline", "inferred", [(OBS, 385)]),
        "handler_classification": ("by_return_value", "inferred", [(OBS, 386)]),
        "returned_value_classifier": ("inspect_awaitable", "inferred", [(OBS, 386)]),
        # coros.append(out) under isawaitable, then await _gather(*coros)
        "returned_awaitable": ("gather_after_invocations", "inferred", [(OBS, 385), (OBS, 393)]),
        "sync_entry": ("unavailable", "inferred", [(OBS, 359)]),
        "handler_cancellation": ("propagate", "inferred", [(OBS, 385)]),
        "predicate_failure": ("propagate", "inferred", [(OBS, 384)]),  # for matched in self._match
        "deadline": ("none", "inferred", [(OBS, 383)]),
    },
    ("broadcaster", "Broadcaster.broadcast"): {  # broadcaster.py:87-93
        "concurrency": ("sequential", "inferred", [(BRD, 87)]),
        "failure": ("isolate", "inferred", [(BRD, 92)]),  # except Exception: logger.error
        "completion": ("await_all", "inferred", [(BRD, 92)]),
        "error_surface": ("log_only", "inferred", [(BRD, 92)]),
        "sync_handlers": ("inline", "inferred", [(BRD, 89)]),
        "handler_classification": ("by_return_value", "inferred", [(BRD, 90)]),
        "returned_value_classifier": ("asyncio_coroutine_only", "inferred", [(BRD, 90)]),
        "returned_awaitable": ("await_in_invocation", "inferred", [(BRD, 89)]),
        "sync_entry": ("unavailable", "inferred", [(BRD, 81)]),
        "handler_cancellation": ("propagate", "inferred", [(BRD, 89)]),
        "predicate_failure": ("not_applicable", "inferred", []),
        "deadline": ("none", "inferred", [(BRD, 87)]),
    },
    ("message_manager", "MessageManager.add_message"): {  # manager.py:402, 418-439, 27-49
        "concurrency": ("sequential", "inferred", [(MM, 433)]),
        "failure": ("collect", "inferred", [(MM, 436)]),  # except BaseException: errors.append
        "completion": ("await_all", "inferred", [(MM, 436)]),
        # _raise_callback_errors: raise errors[0] if one, a store refusal as itself, else a group
        "error_surface": ("unwrap_single_else_group", "inferred", [(MM, 37), (MM, 48), (MM, 49)]),
        "sync_handlers": ("inline", "inferred", [(MM, 435)]),
        "handler_classification": ("by_declaration", "inferred", [(MM, 423)]),
        "returned_value_classifier": ("not_inspected", "inferred", [(MM, 435)]),
        "returned_awaitable": ("discard_unawaited", "inferred", [(MM, 435)]),  # cb(msg) dropped
        "sync_entry": ("reject_declared_async_before_owner_effect", "inferred",
                       [(MM, 373), (MM, 423)]),
        "handler_cancellation": ("collect", "inferred", [(MM, 436)]),
        "predicate_failure": ("not_applicable", "inferred", []),
        "deadline": ("none", "inferred", [(MM, 433)]),
    },
    ("message_manager", "MessageManager.a_add_message"): {  # manager.py:121-132
        "concurrency": ("sequential", "inferred", [(MM, 123)]),
        "failure": ("collect", "inferred", [(MM, 129)]),
        "error_surface": ("unwrap_single_else_group", "inferred", [(MM, 37), (MM, 49)]),
        "handler_classification": ("by_declaration", "inferred", [(MM, 125)]),  # is_coro_func(cb)
        "returned_value_classifier": ("not_inspected", "inferred", [(MM, 128)]),
        "returned_awaitable": ("discard_unawaited", "inferred", [(MM, 128)]),  # else: cb(_msg)
        "sync_entry": ("unavailable", "inferred", [(MM, 111)]),
        "handler_cancellation": ("collect", "inferred", [(MM, 129)]),
    },
    ("scheduler_signals", "SchedulerSignalBus.emit"): {  # signals.py:209-245
        "concurrency": ("concurrent", "inferred", [(SIG, 224)]),  # gather(*(_invoke(entry) ...))
        "failure": ("collect", "inferred", [(SIG, 224)]),  # return_exceptions=True
        "completion": ("await_all", "inferred", [(SIG, 224)]),
        "error_surface": ("raise_group", "inferred", [(SIG, 242)]),  # raise ExceptionGroup(...)
        "sync_handlers": ("inline", "inferred", [(SIG, 219)]),
        "handler_classification": ("by_return_value", "inferred", [(SIG, 219)]),
        "returned_value_classifier": ("inspect_awaitable", "inferred", [(SIG, 219)]),
        "returned_awaitable": ("await_in_invocation", "inferred", [(SIG, 219)]),
        "sync_entry": ("unavailable", "inferred", [(SIG, 183)]),
        # cancellations raised as SchedulerHandlerCancelled (the errors group as its cause)
        "handler_cancellation": ("translate", "inferred", [(SIG, 236), (SIG, 240)]),
        # pred(signal) inside _invoke, in the same gathered region as the handler
        "predicate_failure": ("collect_as_handler_failure", "inferred", [(SIG, 213)]),
        "deadline": ("none", "inferred", [(SIG, 224)]),
    },
    ("terminal_callbacks", "TerminalCallbackRegistry.emit"): {  # callbacks.py:175-208
        "concurrency": ("concurrent", "inferred", [(TCR, 206)]),  # create_task_group, start_soon
        "failure": ("isolate", "inferred", [(TCR, 195)]),  # except BaseException: logger.warning
        "completion": ("await_all", "inferred", [(TCR, 195)]),
        "error_surface": ("log_only", "inferred", [(TCR, 195)]),
        "sync_handlers": ("offload", "inferred", [(TCR, 189)]),  # to_thread.run_sync(...)
        "handler_classification": ("by_declaration", "inferred", [(TCR, 184)]),
        # a sync handler's result goes to maybe_await (189, after the thread); a declared
        # coroutine function is itself passed to maybe_await, so what it returns is dropped (185)
        "returned_value_classifier": (
            "inspect_awaitable (sync) / not_inspected (declared async)", "inferred",
            [(TCR, 185), (TCR, 189)]),
        "returned_awaitable": (
            "await_in_invocation (sync) / discard_unawaited (declared async)", "inferred",
            [(TCR, 185), (TCR, 189)]),
        "sync_entry": ("unavailable", "inferred", [(TCR, 170)]),
        # except get_cancelled_exc_class(): raise, inside the anyio task group
        "handler_cancellation": ("cancel_siblings_and_return", "inferred",
                                 [(TCR, 193), (TCR, 206)]),
        "predicate_failure": ("propagate", "inferred", [(TCR, 175)]),  # r.matches(envelope)
        "deadline": ("shared", "inferred", [(TCR, 205)]),  # move_on_after around the group
        "deadline_disposition": ("silent_stop", "inferred", [(TCR, 205)]),
    },
    ("service_hook_registry", "HookRegistry.call"): {  # hook_registry.py:87-193
        "concurrency": ("not_applicable", "inferred", [(REG, 101)]),  # one handler per key
        "failure": ("isolate", "inferred", [(REG, 148)]),  # except Exception as e: return (e, ...)
        "error_surface": ("return_report", "inferred", [(REG, 148)]),
        # except get_cancelled_exc_class() as e: return ((Undefined, e), True, CANCELLED)
        "handler_cancellation": ("collect", "inferred", [(REG, 146)]),
        "sync_entry": ("unavailable", "inferred", [(REG, 216)]),
        # the handler comes from get_handler() in _utils.py, off the registry's path: declared
        "sync_handlers": ("offload", "declared", [(REG, 101)]),
        "handler_classification": ("by_declaration", "declared", [(REG, 101)]),
        "returned_awaitable": ("discard_unawaited", "declared", [(REG, 101)]),
        # HookEvent.invoke's fail_after (hook_event.py:40) is outside the registry: declared
        "deadline": ("per_handler", "declared", []),
    },
}
ADR_PROFILES = {  # entries the pack holds to an ADR-0120 D2 named profile
    ("session_observer", "SessionObserver.emit"): "session_observer",
    ("broadcaster", "Broadcaster.broadcast"): "broadcaster",
    ("message_manager", "MessageManager.add_message"): "message_manager_sync",
    ("message_manager", "MessageManager.a_add_message"): "message_manager_async",
    ("scheduler_signals", "SchedulerSignalBus.emit"): "scheduler",
    ("terminal_callbacks", "TerminalCallbackRegistry.emit"): "terminal_callback",
    ("service_hook_registry", "HookRegistry.call"): "service_hook_registry",
    ("service_hook_registry", "HookRegistry.handle_streaming_chunk"): "service_hook_registry",
}
# where lionagi 0.36.0 differs from the profile the ADR pins, each read in the source:
# TerminalCallbackRegistry applies maybe_await to a declared coroutine function's coroutine, so
# the value it returns is never inspected and an awaitable among them is dropped (185); and it
# re-raises a handler's cancellation inside the anyio task group (193, 206), which cancels the
# siblings and lets emit() return normally (checked by running it) instead of propagating
DIFFERENCES = {
    ("terminal_callbacks", "TerminalCallbackRegistry.emit"): [
        ("returned_value_classifier", "inspect_awaitable",
         "inspect_awaitable (sync) / not_inspected (declared async)", [(TCR, 185)]),
        ("returned_awaitable", "await_in_invocation",
         "await_in_invocation (sync) / discard_unawaited (declared async)", [(TCR, 185)]),
        ("handler_cancellation", "propagate", "cancel_siblings_and_return",
         [(TCR, 193), (TCR, 206)]),
    ],
}


def path(result: ScanResult, mechanism: str, entry: str) -> DispatchPath:
    mech = next(m for m in result.mechanisms if m.id == mechanism)
    found = [p for p in mech.dispatch_paths if p.entry == entry]
    assert len(found) == 1, [p.entry for p in mech.dispatch_paths]
    return found[0]


CASES = [(key, axis, want) for key, axes in VERIFIED.items() for axis, want in axes.items()]


@pytest.mark.parametrize(("key", "axis", "want"), CASES, ids=[f"{k[1]}-{a}" for k, a, _ in CASES])
def test_axis_verified_by_reading_the_source(lionagi_scan, key, axis, want) -> None:
    value, provenance, lines = want
    found = {a.axis: a for a in path(lionagi_scan, *key).axes}[axis]
    assert (found.value, found.provenance) == (value, provenance), found.evidence
    where = {(e.file, e.line) for e in found.evidence}
    assert set(lines) <= where, found.evidence


@pytest.mark.parametrize("key", list(VERIFIED), ids=[k[1] for k in VERIFIED])
def test_every_inferred_axis_carries_file_and_line(lionagi_scan, key) -> None:
    for axis in path(lionagi_scan, *key).axes:
        if axis.provenance == "inferred" and axis.value != "not_applicable":
            assert any(e.file and e.line for e in axis.evidence), axis
        assert axis.provenance != "unknown", axis  # the code or the pack decides every axis


@pytest.mark.parametrize("key", list(ADR_PROFILES), ids=[k[1] for k in ADR_PROFILES])
def test_profile_differences_are_the_verified_ones(lionagi_scan, key) -> None:
    profile = path(lionagi_scan, *key).profile
    assert (profile.name, profile.matched) == (ADR_PROFILES[key], "declared")
    got = [(d.axis, d.profile, d.code, {(e.file, e.line) for e in d.evidence})
           for d in profile.differences]
    want = DIFFERENCES.get(key, [])
    assert [g[:3] for g in got] == [w[:3] for w in want]
    for (*_, where), (*_, lines) in zip(got, want):
        assert set(lines) <= where


def test_the_pack_agrees_with_the_code(lionagi_scan: ScanResult) -> None:
    """No PS108 finding: every declaration of the built-in pack is what the code reads as."""
    assert [f for f in lionagi_scan.findings if f.kind == "stale_pack_policy"] == []


def test_mechanism_policy_is_the_first_paths_reading(lionagi_scan: ScanResult) -> None:
    mm = next(m for m in lionagi_scan.mechanisms if m.id == "message_manager")
    assert [p.entry for p in mm.dispatch_paths] == [
        "MessageManager.add_message", "MessageManager.a_add_message"]
    assert dict(mm.policy)["sync_entry"] == "reject_declared_async_before_owner_effect"
    assert any("set_system" in note for note in mm.dispatch_paths[0].notes)  # its own mechanism


def test_matrix_lists_each_adr_dispatcher(lionagi_scan: ScanResult) -> None:
    from planeshift.reports.matrix import render_matrix

    text = render_matrix(lionagi_scan)
    for mechanism, entry in {*VERIFIED, *ADR_PROFILES}:
        assert f"| `{mechanism}` | `{entry}` |" in text
    assert "**cancel_siblings_and_return ≠ propagate**" in text
    assert "`state/lifecycle/callbacks.py:193`" in text
