"""Each registration is reported at its own node, with the node's end: a call at the call, a
keyword at the keyword argument, a mapping entry at its key, a decorator at its ``@``."""

from __future__ import annotations

from pathlib import Path

from .helpers import scan_tree

SOURCE = '''\
from demo.bus import EventBus, Point, hook

def check(**kw):
    pass

bus = EventBus(
    hooks={Point.BEFORE: check,
           Point.AFTER: check},
    on_event=[check],
)
bus.on(
    Point.AFTER, check)

@hook(Point.AFTER)
def audit(**kw):
    pass
'''


def spans(tmp_path: Path) -> dict[str, list[tuple[int, int, int, int]]]:
    result = scan_tree(tmp_path, {"app.py": SOURCE})
    out: dict[str, list] = {}
    for r in result.registrations:
        if r.file == "app.py":
            out.setdefault(r.api, []).append((r.line, r.col, r.end_line, r.end_col))
    return out


def test_a_mapping_entry_is_at_its_key_and_ends_at_its_value(tmp_path: Path) -> None:
    assert spans(tmp_path)["hooks"] == [(7, 11, 7, 30), (8, 11, 8, 29)]


def test_a_keyword_registration_is_at_the_keyword(tmp_path: Path) -> None:
    assert spans(tmp_path)["on_event"] == [(9, 4, 9, 20)]


def test_a_call_spans_to_its_closing_parenthesis(tmp_path: Path) -> None:
    assert spans(tmp_path)["on"] == [(11, 0, 12, 23)]


def test_a_decorator_is_at_its_at_sign(tmp_path: Path) -> None:
    assert spans(tmp_path)["hook"] == [(14, 0, 14, 18)]


def test_columns_count_characters_not_bytes(tmp_path: Path) -> None:
    source = 'from demo.bus import EventBus, Point\n\ndef c(**kw):\n    pass\n\n' \
             'x = "é"; EventBus().on(Point.AFTER, c)\n'
    result = scan_tree(tmp_path, {"app.py": source})
    (reg,) = [r for r in result.registrations if r.file == "app.py"]
    assert (reg.line, reg.col, reg.end_col) == (6, 9, 38)

