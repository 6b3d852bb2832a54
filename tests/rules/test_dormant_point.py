"""PS103 dormant_point: registrations on points nothing emits, and the dormant enum members."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import DEMO_BUS, line_of, scan_tree, write_tree

BUS_LINE = line_of(DEMO_BUS, 'NEVER_EMITTED = "never_emitted"')


def _members(result) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.severity) for f in result.findings
            if f.rule == "PS103" and "is a point of" in f.message]


def test_a_member_nothing_emits_is_reported_at_its_definition_without_registrations(
        tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"app/main.py": "X = 1\n"})
    assert _members(result) == [("demo/bus.py", BUS_LINE, "info")]
    finding = next(f for f in result.findings if f.line == BUS_LINE)
    assert finding.message == ("Point.NEVER_EMITTED is a point of demo_bus that nothing emits "
                               "(no emission in the scanned tree fires it)")
    assert finding.mechanism == "demo_bus" and finding.col == 4


def test_emitting_the_member_anywhere_wakes_it(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"app/main.py": """
        from demo.bus import EventBus, Point

        async def close(bus: EventBus) -> None:
            await bus.emit(Point.NEVER_EMITTED)
        """})
    assert _members(result) == []


def test_a_variable_point_emitted_outside_the_dispatcher_may_be_any_member(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"app/main.py": """
        from demo.bus import EventBus, Point

        async def replay(bus: EventBus, points: list[Point]) -> None:
            for point in points:
                await bus.emit(point)
        """})
    assert _members(result) == []


def test_the_dispatcher_forwarding_its_own_point_does_not_blind_the_rule(tmp_path: Path) -> None:
    bus = DEMO_BUS.replace(
        "    def notify(self, event: Any) -> None:",
        "    async def emit_twice(self, point: Point) -> None:\n"
        "        await self.emit(point)\n\n"
        "    def notify(self, event: Any) -> None:")
    write_tree(tmp_path, {"demo/bus.py": bus})
    result = scan_tree(tmp_path, {"app/main.py": "X = 1\n", "demo/bus.py": bus})
    assert [line for _, line, _ in _members(result)] == [BUS_LINE]


def test_without_the_dispatchers_source_only_declared_points_are_reported(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text("""\
pack: outside
mechanisms:
  - id: outside_bus
    dispatcher: vendor.bus.Bus
    points: [app.points.Topic]
    dormant_points: [LEGACY]
    register:
      - method: listen
        point: 0
        handler: 1
    emit:
      - method: publish
        point: 0
    classify:
      - plane: subscriber
        because: ADR-0120 D1 - observation.
""")
    result = scan_tree(tmp_path / "tree", {"app/points.py": """
        import enum

        class Topic(enum.Enum):
            OPENED = "opened"
            LEGACY = "legacy"
        """}, packs=[pack], demo=False)
    assert [(f.file, f.line) for f in result.findings if f.rule == "PS103"] == [
        ("app/points.py", 5)]
    assert "the pack declares it dormant)" in result.findings[0].message
