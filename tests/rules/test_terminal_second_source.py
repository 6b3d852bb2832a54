"""PS110 terminal_second_source (ADR-0124 D4), on the demo bus's terminal outcomes (owner:
demo.bus.finish; envelope demo.bus.Outcome, identity event_id)."""

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
