"""Registrations the code decides although a receiver or a point is not typed: a literal table
looped over or looked up, a slot only one mechanism has, a point only one mechanism has."""

from __future__ import annotations

from pathlib import Path

from .helpers import scan_tree


def found(tmp_path: Path, source: str) -> list[tuple]:
    result = scan_tree(tmp_path, {"app.py": source})
    return [(r.line, r.point, r.handler.expr, r.plane, r.flags) for r in result.registrations
            if r.file == "app.py"]


def test_a_loop_over_a_literal_table_is_one_registration_per_entry(tmp_path: Path) -> None:
    source = """
        from demo.bus import EventBus, Point

        def a(**kw):
            pass

        def b(**kw):
            pass

        TABLE = {Point.BEFORE: [a], Point.AFTER: [a, b]}

        def wire(bus: EventBus) -> None:
            for point, handlers in TABLE.items():
                for handler in handlers:
                    bus.on(point, handler)
        """
    assert sorted(found(tmp_path, source)) == [
        (14, "AFTER", "a", "subscriber", ()), (14, "AFTER", "b", "subscriber", ()),
        (14, "BEFORE", "a", "interceptor", ())]


def test_a_lookup_in_a_literal_table_is_any_of_its_values(tmp_path: Path) -> None:
    source = """
        from demo.bus import EventBus, Point

        def a(**kw):
            pass

        NAMES = {"pre": Point.BEFORE, "post": Point.AFTER}

        def wire(bus: EventBus, name: str) -> None:
            bus.on(NAMES[name], a)
        """
    assert sorted(found(tmp_path, source)) == [
        (9, "AFTER", "a", "subscriber", ()), (9, "BEFORE", "a", "interceptor", ())]


def test_a_loop_over_what_is_not_literal_stays_for_review(tmp_path: Path) -> None:
    source = """
        from demo.bus import EventBus

        def a(**kw):
            pass

        def wire(bus: EventBus, points) -> None:
            for point in points:
                bus.on(point, a)
        """
    ((line, point, _, plane, flags),) = found(tmp_path, source)
    assert (point, plane, flags) == (None, "needs_review", ("dynamic_point",))


def test_an_untyped_owner_of_a_slot_only_one_mechanism_has_keeps_its_plane(tmp_path: Path) -> None:
    source = """
        from typing import Any

        def allow(payload):
            return True

        def setup(thing: Any) -> None:
            thing.gate = allow
        """
    assert found(tmp_path, source) == [(7, "GATE", "allow", "interceptor", ("unresolved_receiver",))]
