"""Codemod `registration`: edge cases of finding the handler and writing its typed registration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analyzer.helpers import DEMO_FILES, write_tree

from .helpers import DEMO_PACK, check_noop, check_transformed, run

ONLY = ("registration",)
IMPORTS = ("from planeshift.kernels import InterceptorRegistration\n"
           "from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber\n")


def test_keyword_lists_mappings_slots_and_queued_tuples_are_all_rewritten(tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import Deferred, EventBus, Point


        def log(**payload):
            return None


        def check(payload):
            return True


        bus = EventBus(on_event=[log], hooks={Point.AFTER: log})
        bus.gate = check
        queue = Deferred()
        queue._queued.append((Point.BEFORE, log))
        ''', '''
        from planeshift.kernels import InterceptorRegistration
        from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber

        from demo.bus import Deferred, EventBus, Point


        def log(**payload):
            return None


        def check(payload):
            return True


        # planeshift: discard-unawaited owner=@demo-team unawaited as today (ADR-0120 D2)
        bus = EventBus(on_event=[as_subscriber(Subscription(name="app.log", policy="demo_callbacks", handler=log))], hooks={Point.AFTER: as_subscriber(Subscription(name="app.log", policy="demo_bus", handler=log))})
        bus.gate = as_interceptor(
            InterceptorRegistration(name="app.check", stage="GATE", handler=check, order=0)
        )
        queue = Deferred()
        queue._queued.append(
            (
                Point.BEFORE,
                as_interceptor(
                    InterceptorRegistration(
                        name="app.log", stage="BEFORE", handler=log, order=0
                    )
                ),
            )
        )
        ''', ONLY + ("discard_gate",))


def test_a_multi_line_registration_keeps_its_comments_and_layout(tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus, Point

        bus = EventBus()
        bus.on(
            Point.AFTER,  # after the operation
            lambda **payload: print(  # a lambda over two lines
                payload),
        )
        ''', '''
        from planeshift.kernels.adapters import Subscription, as_subscriber

        from demo.bus import EventBus, Point

        bus = EventBus()
        bus.on(
            Point.AFTER,  # after the operation
            as_subscriber(
                Subscription(
                    name="app.<lambda@AFTER>",
                    policy="demo_bus",
                    handler=lambda **payload: print(  # a lambda over two lines
                        payload),
                )
            ),
        )
        ''', ONLY)


def test_an_aliased_adapter_import_is_recognised_as_already_migrated(tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus
        from planeshift.kernels.adapters import Subscription
        from planeshift.kernels.adapters import as_subscriber as sub


        def audit(**payload):
            return None


        bus = EventBus()
        bus.subscribe(sub(Subscription(name="app.audit", policy="demo_bus", handler=audit)))
        ''', ONLY)
    assert result.already == 1 and result.not_migrated == ()


def test_a_module_binding_an_adapter_name_itself_imports_the_adapter_under_an_alias(
        tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        def as_subscriber(x):
            return x


        def audit(**payload):
            return None


        EventBus().subscribe(audit)
        ''', '''
        from planeshift.kernels.adapters import Subscription
        from planeshift.kernels.adapters import as_subscriber as _as_subscriber

        from demo.bus import EventBus


        def as_subscriber(x):
            return x


        def audit(**payload):
            return None


        EventBus().subscribe(
            _as_subscriber(Subscription(name="app.audit", policy="demo_bus", handler=audit))
        )
        ''', ONLY)


def test_a_name_rebound_through_global_is_not_shadowed_by_the_import(tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        def audit(**payload):
            return None


        def reset():
            global Subscription
            Subscription = None


        EventBus().subscribe(audit)
        ''', '''
        from planeshift.kernels.adapters import as_subscriber
        from planeshift.kernels.adapters import Subscription as _Subscription

        from demo.bus import EventBus


        def audit(**payload):
            return None


        def reset():
            global Subscription
            Subscription = None


        EventBus().subscribe(
            as_subscriber(_Subscription(name="app.audit", policy="demo_bus", handler=audit))
        )
        ''', ONLY)


def test_a_star_import_after_other_code_cannot_rebind_the_imported_adapters(
        tmp_path: Path) -> None:
    """`from .helpers import *` may bind any public name (helpers here binds as_subscriber):
    the adapters come under private names no star import binds, and the bus gets the handler."""
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        def audit(**payload):
            return None


        from .helpers import *

        bus = EventBus()
        bus.subscribe(audit)
        ''', '''
        from planeshift.kernels.adapters import Subscription as _Subscription
        from planeshift.kernels.adapters import as_subscriber as _as_subscriber

        from demo.bus import EventBus


        def audit(**payload):
            return None


        from .helpers import *

        bus = EventBus()
        bus.subscribe(
            _as_subscriber(
                _Subscription(name="pkg.app.audit", policy="demo_bus", handler=audit)
            )
        )
        ''', ONLY, path="pkg/app.py",
        files={"pkg/__init__.py": "", "pkg/helpers.py": "def as_subscriber(x):\n    return 0\n"})
    probe = "import pkg.app as m; print(m.bus._subscribers == [m.audit])"
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.stdout.strip() == "True", done.stderr


def test_unclassified_uncertain_and_decorator_registrations_are_listed_not_rewritten(
        tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus, Point, hook


        def register(bus: EventBus, handler, point):
            bus.on(point, handler)


        @hook(Point.AFTER)
        def after(**payload):
            return None


        for point in Point:
            EventBus().on(point, after)
        ''', ONLY)
    reasons = sorted(n.reason.split(":")[0].split(" (")[0] for n in result.not_migrated)
    assert any(r.startswith("a decorator registration") for r in reasons)
    assert any(r.startswith(("needs_review", "low confidence")) for r in reasons)


def test_paths_limit_the_rewrite_to_the_files_named(tmp_path: Path) -> None:
    code = "from demo.bus import EventBus\n\n\ndef a(**p):\n    return None\n\n\nEventBus().subscribe(a)\n"
    write_tree(tmp_path, {**DEMO_FILES, "pkg/one.py": code, "pkg/two.py": code})
    result = run(tmp_path, ONLY, paths=("pkg/two.py",))
    assert [c.file for c in result.changes] == ["pkg/two.py"]
    assert "as_subscriber" not in (tmp_path / "pkg" / "one.py").read_text()


def test_the_rewritten_bus_holds_the_very_same_handler_objects(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": '''
        import functools

        from demo.bus import EventBus, Point


        class Service:
            def handle(self, **payload):
                return payload


        async def notify(event, channel):
            return None


        service = Service()
        bus = EventBus()
        bus.on(Point.BEFORE, service.handle)
        bus.subscribe(functools.partial(notify, channel="ops"))
        '''})
    run(tmp_path, ONLY)
    text = (tmp_path / "app.py").read_text()
    assert text.count("as_interceptor(") == 1 and text.count("as_subscriber(") == 1
    probe = ("import app, functools\n"
             "from demo.bus import Point\n"
             "first = app.bus._table[Point.BEFORE][0]\n"
             "assert first == app.service.handle and first.__func__ is app.Service.handle\n"
             "sub = app.bus._subscribers[0]\n"
             "assert isinstance(sub, functools.partial) and sub.func is app.notify\n"
             "print('same objects')\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "same objects"
    assert IMPORTS.splitlines()[1] in text


def test_a_call_registering_one_handler_per_table_entry_is_rewritten_once(
        tmp_path: Path) -> None:
    result = check_transformed(tmp_path, '''
        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        bus = EventBus()
        for point in (Point.AFTER, Point.NEVER_EMITTED):
            bus.on(point, log)
        ''', '''
        from planeshift.kernels.adapters import Subscription, as_subscriber

        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        bus = EventBus()
        for point in (Point.AFTER, Point.NEVER_EMITTED):
            bus.on(
                point,
                as_subscriber(Subscription(name="app.log", policy="demo_bus", handler=log)),
            )
        ''', ONLY)
    done = sorted((m.line, m.registration.point) for m in result.migrated
                  if m.registration is not None)
    assert done == [(10, "AFTER"), (10, "NEVER_EMITTED")]
    assert all(m.action.endswith("one rewrite for the 2 registrations of this call")
               for m in result.migrated)


def test_table_entries_of_different_planes_are_left_alone_with_the_reason(
        tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        bus = EventBus()
        for point in (Point.BEFORE, Point.AFTER):
            bus.on(point, log)
        ''', ONLY)
    assert sorted(str(n.registration.point) for n in result.not_migrated if n.registration) == [
        "AFTER", "BEFORE"]
    assert {n.reason for n in result.not_migrated} == {(
        "the 2 registrations log makes at this call (points BEFORE, AFTER) would declare "
        "different plane (interceptor for BEFORE; subscriber for AFTER), and one handler "
        "expression carries one typed registration: write one call per point to migrate them")}


def test_an_interceptor_on_several_stages_is_left_alone_a_loop_variable_is_no_stage(
        tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(DEMO_PACK.read_text().replace("when: {point: [BEFORE]}",
                                                  "when: {point: [BEFORE, NEVER_EMITTED]}", 1))
    result = check_noop(tmp_path / "t", '''
        from demo.bus import EventBus, Point


        def guard(**payload):
            return None


        bus = EventBus()
        for point in (Point.BEFORE, Point.NEVER_EMITTED):
            bus.on(point, guard)
        ''', ONLY, pack=pack)
    assert len(result.not_migrated) == 2
    assert all("would declare different stage ('BEFORE' for BEFORE; 'NEVER_EMITTED' for "
               "NEVER_EMITTED)" in n.reason for n in result.not_migrated)


def test_one_entry_left_alone_leaves_the_call_alone(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text("".join(line for line in DEMO_PACK.read_text().splitlines(keepends=True)
                            if not line.startswith("    interceptor: ")))
    result = check_noop(tmp_path / "t", '''
        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        bus = EventBus()
        for point in (Point.BEFORE, Point.AFTER):
            bus.on(point, log)
        ''', ONLY, pack=pack)
    reasons = {n.registration.point: n.reason for n in result.not_migrated if n.registration}
    assert reasons == {
        "BEFORE": "the pack has no interceptor template for mechanism demo_bus",
        "AFTER": "the 2 registrations log makes at this call (points BEFORE, AFTER) are rewritten "
                 "together or not at all, and point BEFORE is not migrated (the pack has no "
                 "interceptor template for mechanism demo_bus)"}


def test_each_entrys_own_handler_through_a_loop_variable_is_left_alone(tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        def audit(**payload):
            return None


        bus = EventBus()
        for point, handler in {Point.AFTER: log, Point.NEVER_EMITTED: audit}.items():
            bus.on(point, handler)
        ''', ONLY)
    assert sorted(n.registration.handler.expr for n in result.not_migrated
                  if n.registration) == ["audit", "log"]
    assert all(n.reason.endswith(" reaches this call from a literal table through a loop "
                                 "variable, which takes every entry's handler: a typed "
                                 "registration at the call would name one handler for all of "
                                 "them (declare each in the table by hand)")
               for n in result.not_migrated)


def test_a_callback_list_extended_with_plus_equals_is_rewritten(tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        def log(event):
            return None


        bus = EventBus()
        bus._callbacks += [log]
        ''', '''
        from planeshift.kernels.adapters import Subscription, as_subscriber

        from demo.bus import EventBus


        def log(event):
            return None


        bus = EventBus()
        # planeshift: discard-unawaited owner=@demo-team unawaited as today (ADR-0120 D2)
        bus._callbacks += [as_subscriber(Subscription(name="app.log", policy="demo_callbacks", handler=log))]
        ''', ONLY + ("discard_gate",))


