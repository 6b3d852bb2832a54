"""Points: a string that equals a member's value is that member; an unknown one is flagged."""

from __future__ import annotations

from pathlib import Path

from .helpers import scan_tree


def test_a_point_string_is_the_member_whose_value_it_equals(tmp_path: Path) -> None:
    source = ("from demo.bus import EventBus\n\ndef c(**kw):\n    pass\n\n"
              "bus = EventBus()\nbus.on('after', c)\nbus.on('afterwards', c)\n")
    result = scan_tree(tmp_path, {"app.py": source})
    found = [(r.point, r.flags) for r in result.registrations if r.file == "app.py"]
    assert found == [("AFTER", ()), ("afterwards", ("unknown_point",))]
