"""Codemod `registration`: edge cases of finding the handler and writing its typed registration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analyzer.helpers import DEMO_FILES, write_tree

from .helpers import check_noop, check_transformed, run

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
        from demo.bus import Deferred, EventBus, Point
        from planeshift.kernels import InterceptorRegistration
        from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber


        def log(**payload):
            return None


        def check(payload):
            return True


        # planeshift: discard-unawaited owner=@demo-team returned awaitables stay unawaited as today; the flip is its own change (ADR-0120 D2)
        bus = EventBus(on_event=[as_subscriber(Subscription(name="app.log", policy="demo_callbacks", handler=log))], hooks={Point.AFTER: as_subscriber(Subscription(name="app.log", policy="demo_bus", handler=log))})
        bus.gate = as_interceptor(InterceptorRegistration(name="app.check", stage="GATE", handler=check, order=0))
        queue = Deferred()
        queue._queued.append((Point.BEFORE, as_interceptor(InterceptorRegistration(name="app.log", stage="BEFORE", handler=log, order=0))))
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
        from demo.bus import EventBus, Point
        from planeshift.kernels.adapters import Subscription, as_subscriber

        bus = EventBus()
        bus.on(
            Point.AFTER,  # after the operation
            as_subscriber(Subscription(name="app.<lambda:4>", policy="demo_bus", handler=lambda **payload: print(  # a lambda over two lines
                payload))),
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


def test_a_module_binding_an_adapter_name_itself_is_left_alone_with_the_reason(
        tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus


        def as_subscriber(x):
            return x


        def audit(**payload):
            return None


        EventBus().subscribe(audit)
        ''', ONLY)
    (left,) = result.not_migrated
    assert "'as_subscriber' already names something else" in left.reason and not left.error


def test_unclassified_uncertain_and_uncallable_handlers_are_listed_not_rewritten(
        tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus, Point, hook


        def register(bus: EventBus, handler, point):
            bus.on(point, handler)


        def wire(bus: EventBus, handler) -> None:
            bus.subscribe(handler)


        @hook(Point.AFTER)
        def after(**payload):
            return None


        for point in Point:
            EventBus().on(point, after)
        ''', ONLY)
    reasons = sorted(n.reason.split(":")[0].split(" (")[0] for n in result.not_migrated)
    assert any(r.startswith("the handler handler is not known to be callable") for r in reasons)
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
