"""Name resolution: every way real code reaches a dispatcher, and every way it names a handler.

Each test writes a small project next to the demo bus (tests/fixtures/packs/demo.yaml) and pins
the registrations it must yield: file, line, mechanism, point, handler qualname and plane.
"""

from __future__ import annotations

from pathlib import Path

from .helpers import line_of, one, regs, scan_tree, show, summary

HANDLERS = """
def guard(**payload):
    return True


async def log(**payload):
    return None
"""


def expect(result, rel: str, source: str, *rows: tuple[str, str, str | None, str, str]) -> None:
    """*rel* registers exactly *rows*: (line needle, mechanism, point, qualname, plane)."""
    want = sorted(
        (rel, line_of(source, needle), mech, point, qualname, plane)
        for needle, mech, point, qualname, plane in rows
    )
    got = sorted(summary(r) for r in regs(result, file=rel))
    assert got == want, show(result)


# -- imports and re-exports ------------------------------------------------------------------------


def test_import_module_as_alias(tmp_path: Path) -> None:
    app = """
    import demo.bus as b
    from handlers import guard

    bus = b.EventBus()
    bus.on(b.Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_plain_dotted_import(tmp_path: Path) -> None:
    app = """
    import demo.bus
    from handlers import log

    bus = demo.bus.EventBus()
    bus.on(demo.bus.Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app, ("bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_from_import_with_aliases(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus as Bus, Point as P
    from handlers import guard as check

    Bus().on(P.BEFORE, check)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("Bus().on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_from_package_import_module_as_alias(tmp_path: Path) -> None:
    app = """
    from demo import bus as b
    from handlers import log

    events = b.EventBus()
    events.subscribe(log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("events.subscribe(", "demo_bus", None, "handlers.log", "subscriber"))


def test_package_reexport(tmp_path: Path) -> None:
    app = """
    from demo import EventBus, Point
    from handlers import guard

    bus = EventBus()
    bus.on(Point.BEFORE, guard)
    """
    files = {
        "demo/__init__.py": "from .bus import EventBus, Point\n\n__all__ = ['EventBus', 'Point']\n",
        "app.py": app,
        "handlers.py": HANDLERS,
    }
    result = scan_tree(tmp_path, files)
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


LAZY_INIT = '''
"""Heavy submodules load on first use."""

import importlib

_LAZY_MAP = {{
    "EventBus": ("{module}", "EventBus"),
    "Point": ("{module}", "Point"),
}}


def __getattr__(name):
    if name in _LAZY_MAP:
        module, attr = _LAZY_MAP[name]
        return getattr(importlib.import_module(module, __name__), attr)
    raise AttributeError(name)
'''


def test_lazy_getattr_map_with_absolute_module(tmp_path: Path) -> None:
    app = """
    from demo import EventBus, Point
    from handlers import log

    bus = EventBus()
    bus.on(Point.AFTER, log)
    """
    files = {"demo/__init__.py": LAZY_INIT.format(module="demo.bus"), "app.py": app,
             "handlers.py": HANDLERS}
    result = scan_tree(tmp_path, files)
    expect(result, "app.py", app, ("bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_lazy_getattr_map_with_relative_module(tmp_path: Path) -> None:
    app = """
    import demo
    from handlers import guard

    bus = demo.EventBus()
    bus.on(demo.Point.BEFORE, guard)
    """
    files = {"demo/__init__.py": LAZY_INIT.format(module=".bus"), "app.py": app,
             "handlers.py": HANDLERS}
    result = scan_tree(tmp_path, files)
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_star_import(tmp_path: Path) -> None:
    app = """
    from demo.bus import *
    from handlers import guard

    bus = EventBus()
    bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_module_level_class_alias(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log

    Bus = EventBus
    bus = Bus()
    bus.on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app, ("bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_subclass_of_lazily_reexported_dispatcher(tmp_path: Path) -> None:
    app = """
    from demo import EventBus, Point
    from handlers import guard


    class AppBus(EventBus):
        pass


    AppBus().on(Point.BEFORE, guard)
    """
    files = {"demo/__init__.py": LAZY_INIT.format(module="demo.bus"), "app.py": app,
             "handlers.py": HANDLERS}
    result = scan_tree(tmp_path, files)
    expect(result, "app.py", app,
           ("AppBus().on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_module_attribute_of_another_module(tmp_path: Path) -> None:
    state = """
    from demo.bus import EventBus

    bus = EventBus()
    """
    app = """
    import state
    from demo.bus import Point
    from handlers import guard

    state.bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"state.py": state, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("state.bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_bound_method_alias(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard

    bus = EventBus()
    register = bus.on
    register(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("register(Point", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


# -- receivers: attributes, annotations, factories ---------------------------------------------


def test_self_attribute_assigned_in_init(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point


    class Service:
        def __init__(self):
            self._bus = EventBus()

        def start(self):
            self._bus.on(Point.BEFORE, self.check)

        def check(self, **payload):
            return True
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("self._bus.on(", "demo_bus", "BEFORE", "app.Service.check", "interceptor"))
    assert one(result, file="app.py").scope == "Service.start"


def test_property_returning_the_dispatcher(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard


    class Service:
        def __init__(self, bus=None):
            self._bus = bus or EventBus()

        @property
        def bus(self):
            return self._bus


    Service().bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("Service().bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_self_attribute_annotated_optional_none_then_set_later(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log


    class Service:
        def __init__(self):
            self._bus: EventBus | None = None

        def start(self):
            self._bus.on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("self._bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_annotated_parameter(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard


    def install(bus: EventBus) -> None:
        bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_optional_annotation(tmp_path: Path) -> None:
    app = """
    from typing import Optional

    from demo.bus import EventBus, Point
    from handlers import log


    def install(bus: Optional[EventBus] = None) -> None:
        bus.on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app, ("bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_string_annotation(tmp_path: Path) -> None:
    app = """
    from __future__ import annotations

    from typing import TYPE_CHECKING

    from demo.bus import Point
    from handlers import guard

    if TYPE_CHECKING:
        from demo.bus import EventBus


    def install(bus: "EventBus") -> None:
        bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_string_annotation_inside_optional_union_and_classvar(tmp_path: Path) -> None:
    app = """
    from __future__ import annotations

    from typing import TYPE_CHECKING, ClassVar, Optional, Union

    from demo.bus import Point
    from handlers import guard, log

    if TYPE_CHECKING:
        from demo.bus import EventBus


    def optional(bus: Optional["EventBus"]) -> None:
        bus.subscribe(log)


    def union(bus: Union["EventBus", None]) -> None:
        bus.on(Point.BEFORE, guard)


    class Plugin:
        bus: ClassVar["EventBus"]

        def install(self) -> None:
            self.bus.subscribe(guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.subscribe(log)", "demo_bus", None, "handlers.log", "subscriber"),
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("self.bus.subscribe(", "demo_bus", None, "handlers.guard", "subscriber"))
    for reg in regs(result, file="app.py"):
        assert reg.confidence == "high" and not reg.flags, reg


def test_typing_cast_to_dispatcher(tmp_path: Path) -> None:
    app = """
    import typing
    from typing import cast

    from demo.bus import EventBus, Point
    from handlers import guard, log


    def lookup(name):
        return globals()[name]


    cast(EventBus, lookup("bus")).on(Point.BEFORE, guard)
    typing.cast("EventBus", lookup("bus")).subscribe(log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("cast(EventBus", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("typing.cast(", "demo_bus", None, "handlers.log", "subscriber"))


def test_annotated_class_attribute(tmp_path: Path) -> None:
    app = """
    from dataclasses import dataclass

    from demo.bus import EventBus, Point
    from handlers import log


    @dataclass
    class Plugin:
        bus: EventBus

        def install(self) -> None:
            self.bus.on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("self.bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_factory_with_return_annotation(tmp_path: Path) -> None:
    registry = """
    from demo.bus import EventBus

    _BUSES = {}


    def get_bus(name: str = "main") -> EventBus:
        return _BUSES.setdefault(name, EventBus())
    """
    app = """
    from demo.bus import Point
    from handlers import guard
    from registry import get_bus

    bus = get_bus()
    bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"registry.py": registry, "app.py": app,
                                  "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_or_default_receiver(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log


    def install(existing=None):
        bus = existing or EventBus()
        bus.on(Point.AFTER, log)
        return bus
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app, ("bus.on(", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_attribute_set_in_base_class_init_used_in_subclass(tmp_path: Path) -> None:
    base = """
    from demo.bus import EventBus


    class Component:
        def __init__(self):
            self.events = EventBus()
    """
    app = """
    from base import Component
    from demo.bus import Point
    from handlers import guard


    class Guarded(Component):
        def setup(self):
            self.events.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"base.py": base, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("self.events.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"))


def test_subclass_of_dispatcher_in_another_module(tmp_path: Path) -> None:
    buses = """
    from demo.bus import EventBus


    class AppBus(EventBus):
        '''The application's bus: the demo bus plus a name.'''

        name = "app"


    class AuditBus(AppBus):
        pass
    """
    app = """
    from buses import AppBus, AuditBus
    from demo.bus import Point
    from handlers import guard, log

    bus = AppBus()
    bus.on(Point.BEFORE, guard)
    audit = AuditBus()
    audit.subscribe(log)
    """
    result = scan_tree(tmp_path, {"buses.py": buses, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("bus.on(", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("audit.subscribe(", "demo_bus", None, "handlers.log", "subscriber"))


# -- forwarders and façades ------------------------------------------------------------------


def test_forwarding_helper_callers_are_the_registrations(tmp_path: Path) -> None:
    helpers = """
    from demo.bus import EventBus


    def listen(bus: EventBus, point, fn):
        bus.on(point, fn)
    """
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard, log
    from wiring import listen

    bus = EventBus()
    listen(bus, Point.BEFORE, guard)
    listen(bus, Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"wiring.py": helpers, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("listen(bus, Point.BEFORE", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("listen(bus, Point.AFTER", "demo_bus", "AFTER", "handlers.log", "subscriber"))
    assert regs(result, file="wiring.py") == [], "the helper's inner call is not a registration"


def test_a_helper_looping_over_the_points_it_is_handed_stays_the_registration(
        tmp_path: Path) -> None:
    """Its callers' calls would register on no point at all (a blocking one classified as an
    observer, with high confidence): the site in the loop is the registration, its point
    dynamic, and the helper's callers are its activations."""
    helpers = """
    from demo.bus import EventBus


    def listen_all(bus: EventBus, points, fn):
        for point in points:
            bus.on(point, fn)
    """
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard
    from wiring import listen_all

    bus = EventBus()
    listen_all(bus, (Point.BEFORE,), guard)
    """
    result = scan_tree(tmp_path, {"wiring.py": helpers, "app.py": app, "handlers.py": HANDLERS})
    assert regs(result, file="app.py") == [], show(result)
    reg = one(result, file="wiring.py")
    assert (reg.point, reg.plane, "dynamic_point" in reg.flags) == (None, "needs_review", True)
    assert [(a.file, a.line) for a in reg.activations] == [("app.py", 6)]


def test_an_apps_own_decorator_factory_registers_what_it_decorates(tmp_path: Path) -> None:
    helpers = """
    from demo.bus import EventBus

    BUS = EventBus()


    def on_event(point):
        def wrap(fn):
            BUS.on(point, fn)
            return fn
        return wrap
    """
    app = """
    from demo.bus import Point
    from wiring import on_event


    @on_event(Point.BEFORE)
    def guard(**kw):
        raise PermissionError("no")


    @on_event(Point.AFTER)
    def log(**kw):
        print(kw)
    """
    result = scan_tree(tmp_path, {"wiring.py": helpers, "app.py": app})
    found = {(r.line, r.point, r.handler.expr, r.plane) for r in regs(result, file="app.py")}
    assert found == {(5, "BEFORE", "guard", "interceptor"), (10, "AFTER", "log", "subscriber")}, \
        show(result)
    assert regs(result, file="wiring.py") == [], "the factory's inner call is not a registration"


def test_facade_method_forwarding_star_keys_and_handler_keyword(tmp_path: Path) -> None:
    facade = """
    from demo.bus import EventBus


    class App:
        def __init__(self):
            self._bus = EventBus()

        def on(self, *keys, handler):
            return self._bus.on(*keys, handler=handler)
    """
    app = """
    from demo.bus import Point
    from facade import App
    from handlers import guard, log

    app = App()
    app.on(Point.BEFORE, handler=guard)
    app.on(Point.AFTER, handler=log)
    """
    result = scan_tree(tmp_path, {"facade.py": facade, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("Point.BEFORE", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("Point.AFTER", "demo_bus", "AFTER", "handlers.log", "subscriber"))
    assert regs(result, file="facade.py") == []


def test_a_facade_whose_handler_may_be_left_out_is_a_decorator_too(tmp_path: Path) -> None:
    """``@session.observe(NodeFailed)``: the façade hands on a handler that defaults to None,
    so called without it, it returns the wrapped API's decorator."""
    facade = """
    from demo.bus import EventBus


    class App:
        def __init__(self):
            self._bus = EventBus()

        def on(self, point, handler=None):
            return self._bus.on(point, handler)
    """
    app = """
    from demo.bus import Point
    from facade import App
    from handlers import log

    app = App()
    app.on(Point.AFTER, log)


    @app.on(Point.BEFORE)
    def guard(**kw):
        raise PermissionError("no")
    """
    result = scan_tree(tmp_path, {"facade.py": facade, "app.py": app, "handlers.py": HANDLERS})
    found = {(r.line, r.point, r.handler.expr, r.plane) for r in regs(result, file="app.py")}
    assert found == {(6, "AFTER", "log", "subscriber"), (9, "BEFORE", "guard", "interceptor")}, \
        show(result)
    assert regs(result, file="facade.py") == []


# -- callback lists, decorators, forms ---------------------------------------------------------


def test_callback_list_reached_through_property(tmp_path: Path) -> None:
    service = """
    from demo.bus import EventBus


    class Service:
        def __init__(self):
            self._manager = EventBus()

        @property
        def callbacks(self):
            return self._manager._callbacks
    """
    app = """
    from handlers import log
    from service import Service

    svc = Service()
    svc.callbacks.append(log)
    """
    result = scan_tree(tmp_path, {"service.py": service, "app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("svc.callbacks.append(", "demo_callbacks", None, "handlers.log", "subscriber"))
    assert "discard_unawaited" in one(result, file="app.py").flags


def test_point_handler_tuple_appended_to_owner_list(tmp_path: Path) -> None:
    app = """
    from demo.bus import Deferred, Point
    from handlers import guard, log

    queue = Deferred()
    queue._queued.append((Point.BEFORE, guard))
    queue._queued.append((Point.AFTER, log))
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("(Point.BEFORE, guard)", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("(Point.AFTER, log)", "demo_bus", "AFTER", "handlers.log", "subscriber"))


def test_module_decorator_with_point(tmp_path: Path) -> None:
    app = """
    from demo.bus import Point, hook


    @hook(Point.BEFORE)
    def deny_all(**payload):
        return False


    @hook(point=Point.AFTER)
    async def record(**payload):
        return None
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("@hook(Point.BEFORE)", "demo_bus", "BEFORE", "app.deny_all", "interceptor"),
           ("@hook(point=", "demo_bus", "AFTER", "app.record", "subscriber"))
    assert one(result, file="app.py", handler_qualname="app.record").handler.declared_async is True


def test_module_decorator_imported_under_another_name(tmp_path: Path) -> None:
    app = """
    from demo.bus import Point
    from demo.bus import hook as on_point


    @on_point(Point.BEFORE)
    def deny_all(**payload):
        return False
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("@on_point(", "demo_bus", "BEFORE", "app.deny_all", "interceptor"))


def test_method_decorator_with_fixed_point(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus

    registry = EventBus()


    @registry.intercept
    def block(**payload):
        return False
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("@registry.intercept", "demo_bus", "BEFORE", "app.block", "interceptor"))
    assert one(result, file="app.py").via == "method"


def test_method_decorator_factory_with_point(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point

    observer = EventBus()


    class Audit:
        @observer.on(Point.AFTER)
        def record(self, **payload):
            return None


    @observer.subscribe
    async def trace(**payload):
        return None
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("@observer.on(Point.AFTER)", "demo_bus", "AFTER", "app.Audit.record", "subscriber"),
           ("@observer.subscribe", "demo_bus", None, "app.trace", "subscriber"))


def test_constructor_keyword_mapping_and_assign_slot(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard, log

    bus = EventBus(on_event=[log], hooks={Point.BEFORE: guard, Point.AFTER: log})
    bus.gate = guard
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    expect(result, "app.py", app,
           ("EventBus(on_event", "demo_callbacks", None, "handlers.log", "subscriber"),
           ("EventBus(on_event", "demo_bus", "BEFORE", "handlers.guard", "interceptor"),
           ("EventBus(on_event", "demo_bus", "AFTER", "handlers.log", "subscriber"),
           ("bus.gate =", "demo_bus", "GATE", "handlers.guard", "interceptor"))
    keyword = one(result, file="app.py", mechanism="demo_callbacks")
    assert keyword.via == "keyword"
    assert "discard_unawaited" in keyword.flags


def test_keyword_arguments_string_point_and_callable_instance(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point


    class Guard:
        def __call__(self, **payload):
            return True


    bus = EventBus()
    bus.on(handler=Guard(), point=Point.BEFORE)
    bus.on("before", Guard())
    """
    result = scan_tree(tmp_path, {"app.py": app})
    expect(result, "app.py", app,
           ("bus.on(handler=", "demo_bus", "BEFORE", "app.Guard.__call__", "interceptor"),
           ('bus.on("before"', "demo_bus", "BEFORE", "app.Guard.__call__", "interceptor"))
    assert {r.handler.kind for r in regs(result, file="app.py")} == {"instance"}


# -- handlers --------------------------------------------------------------------------------


def test_handler_kinds_name_bound_method_lambda_partial_nested(tmp_path: Path) -> None:
    app = """
    import functools
    from functools import partial

    from demo.bus import EventBus, Point


    async def deliver(attempt, **payload):
        return None


    def sync_log(**payload):
        return None


    class Auditor:
        def record(self, **payload):
            return None


    def setup(bus: EventBus, auditor: Auditor) -> None:
        def inner(**payload):
            return None

        bus.on(Point.AFTER, sync_log)
        bus.on(Point.AFTER, auditor.record)
        bus.on(Point.AFTER, lambda **p: deliver(0, **p))
        bus.on(Point.AFTER, functools.partial(deliver, 1))
        bus.on(Point.AFTER, inner)
        bus.on(Point.AFTER, partial(sync_log, level=1))
    """
    result = scan_tree(tmp_path, {"app.py": app})
    by_line = {r.line: r.handler for r in regs(result, file="app.py")}
    assert len(by_line) == 6, show(result)

    name = by_line[line_of(app, "sync_log)")]
    assert (name.kind, name.qualname, name.declared_async, name.returns_awaitable) == (
        "function", "app.sync_log", False, False)

    bound = by_line[line_of(app, "auditor.record)")]
    assert (bound.kind, bound.qualname, bound.declared_async) == (
        "method", "app.Auditor.record", False)

    lam = by_line[line_of(app, "lambda **p")]
    assert (lam.kind, lam.declared_async, lam.returns_awaitable) == ("lambda", False, True)

    part = by_line[line_of(app, "functools.partial")]
    assert (part.kind, part.qualname, part.declared_async) == ("partial", "app.deliver", True)

    sync_part = by_line[line_of(app, "partial(sync_log")]
    assert (sync_part.kind, sync_part.qualname, sync_part.declared_async) == (
        "partial", "app.sync_log", False)

    nested = by_line[line_of(app, "inner)")]
    assert (nested.kind, nested.qualname, nested.declared_async) == (
        "function", "app.setup.inner", False)


def test_discard_unawaited_flag_for_sync_handler_returning_coroutine(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus


    async def persist(event):
        return None


    def schedule(event):
        return persist(event)


    bus = EventBus()
    bus._callbacks.append(schedule)
    bus._callbacks.append(print)
    """
    result = scan_tree(tmp_path, {"app.py": app})
    scheduled = one(result, file="app.py", handler_qualname="app.schedule")
    assert scheduled.handler.returns_awaitable is True
    assert {"discard_unawaited", "returns_awaitable"} <= set(scheduled.flags)
    printed = one(result, file="app.py", handler_qualname="builtins.print")
    assert "discard_unawaited" in printed.flags
    assert "returns_awaitable" not in printed.flags


def test_point_never_emitted_is_flagged_dormant(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log

    bus = EventBus()
    bus.on(Point.NEVER_EMITTED, log)
    bus.on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    assert "dormant_point" in one(result, file="app.py", point="NEVER_EMITTED").flags
    assert "dormant_point" not in one(result, file="app.py", point="AFTER").flags


def test_fixed_point_of_a_slot_called_by_the_dispatcher_is_not_dormant(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus
    from handlers import guard

    bus = EventBus()
    bus.gate = guard
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert (reg.point, reg.plane) == ("GATE", "interceptor")
    assert "dormant_point" not in reg.flags


def test_a_handler_expression_that_may_be_none_says_so(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point


    def check(**payload):
        return True


    def make(flag):
        if flag:
            return check
        return None


    def maybe(flag):
        return check if flag else None


    def always(flag):
        return check


    def setup(bus: EventBus, flag: bool) -> None:
        bus.on(Point.AFTER, make(flag))
        bus.on(Point.AFTER, maybe(flag))
        bus.on(Point.AFTER, check if flag else None)
        bus.on(Point.AFTER, always(flag))
        guarded = make(flag)
        if guarded is None:
            return
        bus.on(Point.AFTER, guarded)
    """
    result = scan_tree(tmp_path, {"app.py": app})
    by_line = {r.line: r.handler for r in regs(result, file="app.py")}
    assert len(by_line) == 5, show(result)
    may_be_none = {line: h.may_be_none for line, h in by_line.items()}
    assert may_be_none == {line_of(app, "make(flag))"): True, line_of(app, "maybe(flag))"): True,
                           line_of(app, "else None)"): True, line_of(app, "always(flag))"): False,
                           line_of(app, "guarded)"): False}  # a name is not followed: a guard
    handler = by_line[line_of(app, "make(flag))")]
    assert (handler.kind, handler.qualname) == ("function", "app.check")
    assert handler.to_json()["may_be_none"] is True
    assert "may_be_none" not in by_line[line_of(app, "always(flag))")].to_json()


def test_a_handler_behind_a_kernels_adapter_is_the_handler_it_hands_on(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from planeshift.kernels import InterceptorRegistration
    from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber
    from app_kernels.adapters import SinkRegistration, as_sink


    async def log(**payload):
        return None


    def wrap(registration):
        return registration.handler


    def setup(bus: EventBus) -> None:
        bus.on(Point.AFTER, as_subscriber(Subscription(name="app.log", policy="p", handler=log)))
        bus.on(Point.BEFORE, as_interceptor(InterceptorRegistration(
            name="app.log", stage="BEFORE", handler=log, order=0)))
        bus.on(Point.AFTER, as_sink(SinkRegistration(name="app.log", port=object, handler=log)))
        bus.on(Point.AFTER, wrap(Subscription(name="app.log", policy="p", handler=log)))
    """
    adapters = "class SinkRegistration:\n    pass\n\n\ndef as_sink(registration):\n" \
               "    return registration.handler\n"
    result = scan_tree(tmp_path, {"app.py": app, "app_kernels/adapters.py": adapters})
    by_line = {r.line: r.handler for r in regs(result, file="app.py")}
    assert len(by_line) == 4, show(result)
    for marker in ("as_subscriber(", "as_interceptor(", "as_sink("):
        handler = by_line[line_of(app, marker)]
        assert (handler.kind, handler.qualname, handler.declared_async) == (
            "function", "app.log", True), marker
        assert handler.expr.startswith(marker)  # the text at the site is what it is
    other = by_line[line_of(app, "wrap(Subscription")]  # no kernels adapter: not seen through
    assert other.qualname != "app.log"


def test_from_a_package_import_a_name_its_init_binds_beside_a_submodule(tmp_path: Path) -> None:
    """Pelican: ``pelican/__init__.py`` binds ``signals`` (from pelican.plugins) and
    ``pelican/signals.py`` is a stub that raises: ``from pelican import signals`` is the
    package's attribute, which its ``__init__`` set."""
    from planeshift.api import scan
    from planeshift.config import Config

    from .helpers import write_tree

    write_tree(tmp_path, {
        "pelican/__init__.py": "from pelican.plugins import signals\n",
        "pelican/signals.py": "raise ImportError('use pelican.plugins.signals')\n",
        "pelican/plugins/signals.py": "from blinker import signal\n\nready = signal('ready')\n",
        "myplugin/__init__.py": (
            "from pelican import signals\n\n\ndef go(sender):\n    print(sender)\n\n\n"
            "signals.ready.connect(go)\n"),
    })
    (tmp_path / "pelican" / "plugins" / "__init__.py").unlink()  # a namespace subpackage
    result = scan(Config(root=tmp_path, packs=(), builtin_packs=("blinker",), use_cache=False,
                         jobs=1, use_context=False))
    assert [(r.file, r.point) for r in result.registrations] == [("myplugin/__init__.py", "ready")]


def test_a_lambda_is_shown_with_its_parameters_as_written() -> None:
    """A handler given inside a literal (a dict of hooks) has no text of its own: it is shown
    from its ref, ``**kw`` and defaults kept (they were ``lambda t, kw``)."""
    import ast

    from planeshift.analyzer.extract.refs import from_ast, render

    for text in ("lambda t, **kw: build(t, **kw)", "lambda t=None, *a, k=1: f(t)", "lambda: f()"):
        assert render(from_ast(ast.parse(text, mode="eval").body)) == text
