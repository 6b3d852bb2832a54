"""PS110 terminal_second_source and PS111 unstable_fact_identity (ADR-0124), on the demo bus's
terminal outcomes (owner: demo.bus.finish; envelope demo.bus.Outcome, identity event_id)."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree


def _found(result, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in result.findings
            if f.rule == rule and f.file == "app/close.py"]


def test_an_emission_after_a_failed_update_is_a_fallback(tmp_path: Path) -> None:
    source = """
        from demo.bus import OUTCOMES, Outcome


        async def update(run_id: str) -> bool:
            return False


        async def close(run_id: str, transition_id: str) -> None:
            ok = await update(run_id)
            if not ok:
                await OUTCOMES.emit(Outcome(event_id=transition_id, status="completed"))
        """
    result = scan_tree(tmp_path, {"app/close.py": source})
    assert _found(result, "PS110") == [(line_of(source, "await OUTCOMES.emit"), "error")]
    finding = next(f for f in result.findings if f.rule == "PS110")
    assert finding.message == (
        "close emits demo_outcomes outside the owner's transition path (bus.finish): a second "
        "public source for one logical completion; it is a fallback (in the branch of `if not "
        "ok`): when the owner's update fails this emits anyway (ADR-0124 D4)")
    assert _found(result, "PS111") == []  # the identity is carried


def test_any_other_emitter_is_a_second_source(tmp_path: Path) -> None:
    source = """
        from demo.bus import OUTCOMES, Outcome


        async def replay(transition_id: str) -> None:
            await OUTCOMES.emit(Outcome(event_id=transition_id, status="completed"))
        """
    result = scan_tree(tmp_path, {"app/close.py": source})
    assert _found(result, "PS110") == [(line_of(source, "await OUTCOMES.emit"), "warning")]


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
