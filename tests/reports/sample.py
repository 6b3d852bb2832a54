"""A hand-built ScanResult covering every report feature, so report tests need no analyzer run."""

from __future__ import annotations

from planeshift.types import (
    Activation,
    AxisEvidence,
    DispatchPath,
    Emission,
    FileError,
    Finding,
    Handler,
    MechanismSummary,
    PolicyAxis,
    ProfileDifference,
    ProfileMatch,
    Registration,
    ScanResult,
)

LOOP = AxisEvidence("app/bus.py", 30, "Bus.emit: for handler in handlers: (one handler after another)")
LOGGED = AxisEvidence("app/bus.py", 34, "Bus.emit: except Exception: log.exception('failed')")
DECLARED = AxisEvidence(None, None, "declared in pack lionagi: Bus.emit logs failures")
AXES = (
    PolicyAxis("concurrency", "sequential", "inferred", (LOOP,), "sequential"),
    PolicyAxis("failure", "isolate", "inferred", (LOGGED,), "propagate"),
    PolicyAxis("sync_handlers", "inline", "declared", (DECLARED,), "inline"),
    PolicyAxis("deadline", "unknown", "unknown", (AxisEvidence(None, None, "not in view"),)),
)
PROFILE = ProfileMatch("broadcaster", "declared", 3, (
    ProfileDifference("returned_value_classifier", "asyncio_coroutine_only", "inspect_awaitable",
                      "inferred", (AxisEvidence("app/bus.py", 32, "Bus.emit: maybe_await(handler(e))"),)),
))
PATH = DispatchPath("Bus.emit", "app/bus.py", 28, AXES, PROFILE, ("calls Bus.flush, another entry",))
GUARD = Handler("guard", "app.hooks.guard", True, True, "function")
LOG = Handler("self._log", "app.session.Session._log", False, False, "method")
LAMBDA = Handler("lambda m: send(m) | 1", None, False, True, "lambda")
UNKNOWN = Handler("handlers[name]", None, None, None, "unknown")
PERSIST = Handler("_persist", "lionagi.session.observer.SessionObserver.bind_db_persistence._persist",
                  False, True, "function")


def sample_result() -> ScanResult:
    registrations = (
        Registration("app/hooks.py", 12, 4, "hookbus", "on", "TOOL_PRE", GUARD, "interceptor",
                     "high", ("rule hookbus.blocking (point TOOL_PRE) -> interceptor: ADR-0120 D4",
                              "bus is a HookBus instance"), (), "method", "app.hooks.setup",
                     "hookbus.blocking", 12, 35,
                     (Activation("app/main.py", 30, 4, 30, 16, "app.main.run", "app.hooks.setup"),)),
        Registration("app/hooks.py", 20, 4, "hookbus", "on", "ARTIFACT_CREATED", UNKNOWN,
                     "needs_review", "low", ("handler is a subscript: handlers[name]",
                                             "point | handler not resolved"),
                     ("dormant_point",), "method", "app.hooks.setup", "hookbus.unknown", 20, 50),
        Registration("app/session.py", 40, 8, "broadcaster", "subscribe", None, LOG, "subscriber",
                     "medium", ("Broadcaster.subscribe is fan-out",), (), "method",
                     "app.session.Session.__init__", "broadcaster.default", 40, 37),
        Registration("app/session.py", 44, 8, "broadcaster", "subscribe", None, LAMBDA,
                     "subscriber", "high", ("rule broadcaster.default -> subscriber",),
                     ("discard_unawaited",), "method", "app.session.Session.__init__",
                     "broadcaster.default", 45, 30),
    )
    emissions = (
        Emission("app/run.py", 7, 10, "hookbus", "emit", "TOOL_PRE", "app.run.main", 7, 41),
        Emission("app/run.py", 9, 4, "broadcaster", "broadcast", None, "app.run.main", 9, 33),
    )
    mechanisms = (
        MechanismSummary(
            "hookbus", "HookBus session lifecycle hooks", ("lionagi.hooks.bus.HookBus",),
            ("on", "lionagi.hooks.bus.hook"), ("emit",), 2,
            (("interceptor", 1), ("needs_review", 1)),
            (("concurrency", "sequential"), ("failure", "isolate")),
            ("declared in pack lionagi: HookBus.emit",), "lionagi", ("ARTIFACT_CREATED",),
            ("TOOL_PRE",),
        ),
        MechanismSummary(
            "broadcaster", "Broadcaster class-level fan-out",
            ("lionagi.service.broadcaster.Broadcaster", "app.session.Bus"), ("subscribe",),
            ("broadcast",), 2, (("subscriber", 2),),
            (("returned_awaitable", "discard_unawaited"),), (), "lionagi",
            policy_axes=AXES, dispatch_paths=(PATH,), profile=PROFILE,
        ),
        MechanismSummary(
            "outbox", "Dispatch outbox", ("lionagi.dispatch.outbox.Outbox",), ("add_sink",), (),
            0, pack="lionagi",
        ),
    )
    findings = (
        Finding("PS101", "discard_unawaited", "app/session.py", 44, 8, "error",
                "lambda m: send(m) | 1 lands on broadcaster, whose policy never awaits",
                "broadcaster", 45, 30, "@session-team"),
        Finding("PS103", "dormant_point", "app/hooks.py", 20, 4, "warning",
                "ARTIFACT_CREATED is never emitted", "hookbus"),
    )
    errors = (FileError("app/broken.py", "syntax error (line 3): invalid syntax"),)
    # made in a helper of the library (read as context), where the app calls the helper
    library = (
        Registration("lionagi/session/observer.py", 594, 18, "hookbus", "observe", "Signal",
                     PERSIST, "subscriber", "high", ("rule hookbus.default -> subscriber",), (),
                     "method", "SessionObserver.bind_db_persistence",
                     "hookbus.default", 594, 60,
                     (Activation("app/main.py", 31, 4, 31, 44, "app.main.run",
                                 "lionagi.session.observer.SessionObserver.bind_db_persistence",
                                 False),)),
    )
    return ScanResult(
        root="/repo", registrations=registrations, emissions=emissions, mechanisms=mechanisms,
        findings=findings, errors=errors, files_scanned=5, files_with_sites=3,
        packs=("lionagi",), library=library,
        stats={"seconds": 0.25, "cache_hits": 2, "jobs": 1},
    )


def empty_result() -> ScanResult:
    return ScanResult(root="/empty", registrations=(), emissions=(), mechanisms=(),
                      stats={"seconds": 0.0, "cache_hits": 0, "jobs": 1})
