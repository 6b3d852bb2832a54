"""Dynamic sites: the receiver or the point is decided at run time.

Such a site is reported with plane ``needs_review``, a ``dynamic_point`` / ``dynamic_receiver``
flag and evidence saying why: never dropped, never given a guessed plane.
"""

from __future__ import annotations

from pathlib import Path

from .helpers import line_of, one, regs, scan_tree, show

HANDLERS = """
def guard(**payload):
    return True


def log(**payload):
    return None
"""


def assert_needs_review(reg, flag: str, *words: str) -> None:
    assert reg.plane == "needs_review", reg
    assert flag in reg.flags, reg
    assert reg.evidence, reg
    text = " ".join(reg.evidence).lower()
    for word in words:
        assert word in text, reg.evidence


def test_loop_over_literal_point_table(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log

    bus = EventBus()
    for point in (Point.BEFORE, Point.AFTER):
        bus.on(point, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    found = sorted((r.line, r.point, r.handler.qualname, r.plane) for r in regs(result, file="app.py"))
    line = line_of(app, "bus.on(")  # the literal tuple decides: one registration per entry
    assert found == [(line, "AFTER", "handlers.log", "subscriber"),
                     (line, "BEFORE", "handlers.log", "interceptor")]


def test_loop_over_point_handler_mapping(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard, log

    TABLE = {Point.BEFORE: guard, Point.AFTER: log}


    def install(bus: EventBus) -> None:
        for point, handler in TABLE.items():
            bus.on(point, handler)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    found = sorted((r.point, r.handler.qualname, r.plane) for r in regs(result, file="app.py"))
    assert found == [("AFTER", "handlers.log", "subscriber"),
                     ("BEFORE", "handlers.guard", "interceptor")]
    assert all("one entry of a literal table" in r.evidence[-1] for r in regs(result, file="app.py"))


def test_receiver_from_getattr_with_computed_name(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import log


    class Service:
        def __init__(self):
            self.audit_bus = EventBus()
            self.metrics_bus = EventBus()

        def wire(self, name: str) -> None:
            getattr(self, name).on(Point.AFTER, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert reg.line == line_of(app, "getattr(self, name)")
    assert reg.point == "AFTER"
    assert_needs_review(reg, "dynamic_receiver", "getattr")


def test_receiver_chosen_by_subscript(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard


    class Router:
        def __init__(self):
            self._buses = {"a": EventBus(), "b": EventBus()}

        def guard_all(self, key: str) -> None:
            self._buses[key].on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert reg.line == line_of(app, "self._buses[key].on(")
    assert_needs_review(reg, "dynamic_receiver", "subscript")


def test_point_parameter_of_a_function_nobody_calls(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus
    from handlers import log


    def install(bus: EventBus, point) -> None:
        bus.on(point, log)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    found = regs(result, file="app.py")
    assert len(found) == 1, show(result)
    assert found[0].line == line_of(app, "bus.on(")
    assert_needs_review(found[0], "dynamic_point", "point")


def test_point_parameter_passed_only_non_constants(tmp_path: Path) -> None:
    app = """
    import os

    from demo.bus import EventBus, Point
    from handlers import log


    def install(bus: EventBus, point) -> None:
        bus.on(point, log)


    def main(settings) -> None:
        bus = EventBus()
        install(bus, settings.point)
        install(bus, Point[os.environ["POINT"]])
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    found = regs(result, file="app.py")
    assert found, "the site must be reported somewhere, not dropped\n" + show(result)
    for reg in found:
        assert_needs_review(reg, "dynamic_point")


def test_handler_parameter_of_a_helper_nobody_calls_is_still_reported(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point


    def add_guard(bus: EventBus, fn) -> None:
        # public API: library users pass their own guard
        bus.on(Point.BEFORE, fn)
    """
    result = scan_tree(tmp_path, {"app.py": app})
    found = regs(result, file="app.py")
    assert [(r.line, r.mechanism, r.point) for r in found] == [
        (line_of(app, "bus.on("), "demo_bus", "BEFORE")
    ], show(result)
    assert found[0].plane in ("interceptor", "needs_review")
    assert found[0].evidence


def test_loop_over_receivers_of_a_literal_list_registers_on_each(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard

    BUSES = [EventBus(), EventBus()]
    for bus in BUSES:
        bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")  # (the two entries are one registration: one site)
    assert (reg.point, reg.plane) == ("BEFORE", "interceptor")
    assert "one entry of a literal table the code iterates or looks up: bus = EventBus()" in \
        reg.evidence


def test_loop_over_receivers_from_elsewhere(tmp_path: Path) -> None:
    app = """
    from demo.bus import Point
    from handlers import guard

    def run(buses):
        for bus in buses:
            bus.on(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert reg.point == "BEFORE"
    assert reg.plane == "needs_review", show(result)


def test_point_and_handler_from_a_starred_table_entry(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard

    SPEC = (Point.BEFORE, guard)
    EventBus().on(*SPEC)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert reg.line == line_of(app, "on(*SPEC)")
    assert_needs_review(reg, "dynamic_point")


def test_registration_method_fetched_with_getattr(tmp_path: Path) -> None:
    app = """
    from demo.bus import EventBus, Point
    from handlers import guard

    bus = EventBus()
    getattr(bus, "on")(Point.BEFORE, guard)
    """
    result = scan_tree(tmp_path, {"app.py": app, "handlers.py": HANDLERS})
    reg = one(result, file="app.py")
    assert (reg.line, reg.mechanism) == (line_of(app, "getattr(bus"), "demo_bus")
    assert reg.plane in ("interceptor", "needs_review")
