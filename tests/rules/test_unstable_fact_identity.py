"""PS111 unstable_fact_identity (ADR-0124 D5), on the demo bus's terminal outcomes (envelope
demo.bus.Outcome, identity event_id) and on any emission."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree


def _found(result, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in result.findings
            if f.rule == rule and f.file == "app/close.py"]


def test_an_identity_minted_into_a_local_name_and_delivered_by_hand(tmp_path: Path) -> None:
    source = """
        import time
        from uuid import uuid4

        from demo.bus import Outcome


        async def deliver_now(handler) -> None:
            fact_id = uuid4().hex
            outcome = Outcome(event_id=fact_id, status="completed")
            await handler(outcome)
            Outcome(event_id="from-the-row", status=str(time.time()))
        """
    result = scan_tree(tmp_path, {"app/close.py": source})
    assert _found(result, "PS111") == [(line_of(source, "outcome = Outcome"), "warning")]
    assert _found(result, "PS110") == []  # no emission of the mechanism here

def test_a_minted_id_passed_straight_to_any_emission(tmp_path: Path) -> None:
    source = """
        import time
        import uuid

        from demo.bus import EventBus


        class Note:
            def __init__(self, note_id: str, at: float) -> None:
                self.note_id, self.at = note_id, at


        def tell(bus: EventBus) -> None:
            bus.notify(Note(note_id=str(uuid.uuid4()), at=time.time()))
        """
    result = scan_tree(tmp_path, {"app/close.py": source})
    assert _found(result, "PS111") == [(line_of(source, "bus.notify"), "warning")]
    finding = next(f for f in result.findings if f.rule == "PS111")
    assert finding.mechanism == "demo_callbacks"
    assert finding.message.startswith("Note's note_id is minted here (uuid.uuid4())")
