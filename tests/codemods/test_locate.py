"""The one lookup from a scan position to LibCST nodes: both position styles, and edge cases."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from planeshift.codemods.support.locate import Found, Locator, handler_node


def locate(source: str) -> tuple[cst.Module, Locator]:
    text = textwrap.dedent(source).lstrip("\n")
    module = cst.parse_module(text)
    return module, Locator(module, text)


def code(module: cst.Module, node: cst.CSTNode | None) -> str:
    assert node is not None
    return module.code_for_node(node)


def at(locator: Locator, line: int, col: int, end_line: int | None = None,
       end_col: int | None = None) -> Found:
    found = locator.at(line, col, end_line, end_col)
    assert found is not None
    return found


KEYWORD = """
    bus = EventBus(
        name="orders",
        on_event=[audit,
                  notify],
    )
"""


def test_a_keyword_registration_reported_at_the_call_start_finds_its_handler() -> None:
    module, locator = locate(KEYWORD)
    found = locator.at(1, 6)
    assert found is not None and isinstance(found.nodes[0], cst.Call)
    handler = handler_node(found, "notify", "on_event", module.code_for_node)
    assert handler is not None and code(module, handler) == "notify"


def test_a_keyword_registration_reported_at_the_keyword_finds_the_same_handler() -> None:
    module, locator = locate(KEYWORD)
    found = at(locator, 3, 4, end_line=4, end_col=24)
    arg = found.nodes[0]
    assert isinstance(arg, cst.Arg) and arg.keyword is not None
    assert arg.keyword.value == "on_event"
    handler = handler_node(found, "notify", "on_event", module.code_for_node)
    at_call = handler_node(at(locator, 1, 6), "notify", "on_event", module.code_for_node)
    assert handler is not None and handler is at_call
    path = found.path(handler)
    assert path[0] is module and found.nodes[0] in path


def test_a_mapping_entry_reported_at_its_key_is_the_entry() -> None:
    module, locator = locate("bus = EventBus(hooks={Point.AFTER: log, Point.BEFORE: guard})\n")
    found = locator.at(1, 40)
    assert found is not None and isinstance(found.nodes[0], cst.DictElement)
    assert code(module, handler_node(found, "guard", None, module.code_for_node)) == "guard"


def test_the_innermost_call_comes_first_when_two_start_at_one_place() -> None:
    module, locator = locate("make_bus().on(Point.AFTER, log)\n")
    found = at(locator, 1, 0)
    assert [code(module, n) for n in found.nodes] == ["make_bus()",
                                                      "make_bus().on(Point.AFTER, log)"]
    assert code(module, handler_node(found, "log", None, module.code_for_node)) == "log"


def test_an_end_position_picks_the_node_ending_there() -> None:
    module, locator = locate("make_bus().on(Point.AFTER, log)\n")
    found = at(locator, 1, 0, end_line=1, end_col=31)
    assert code(module, found.nodes[0]) == "make_bus().on(Point.AFTER, log)"


@pytest.mark.parametrize(("source", "line", "col", "kind"), [
    ("@hook(Point.AFTER)\ndef f():\n    pass\n", 1, 0, cst.Decorator),
    ("class A:\n    @hook(Point.AFTER)\n    def f(self):\n        pass\n", 2, 4, cst.Decorator),
    ("x = 1; bus.on(P, h)\n", 1, 7, cst.Call),
    ("if x: bus.on(P, h)\nelse:\n    bus.on(Q, g)\n", 3, 4, cst.Call),
    ("try:\n    pass\nexcept E:\n    bus.on(P, h)\nfinally:\n    bus.on(Q, g)\n", 6, 4, cst.Call),
    ("with bus.on(P, h) as r:\n    pass\n", 1, 5, cst.Call),
    ("match x:\n    case 1:\n        bus.on(P, h)\n", 3, 8, cst.Call),
    ("for a in b:\n    pass\nelse:\n    bus.gate = check\n", 4, 4, cst.Assign),
    ("if a:\n    bus.callbacks += [h]\n", 2, 4, cst.AugAssign),
    ("if a:\n    pass\nelif b:\n    bus.on(P, h)\n", 4, 4, cst.Call),
    ("s = 'é✓'; bus.on(P, h)\n", 1, 10, cst.Call),
    ("def f():\n\tif x:\n\t\tbus.on(P, h)\n", 3, 2, cst.Call),
    ("x = 1\r\nbus.on(P,\r\n   h)\r\n", 2, 0, cst.Call),
    ("f(a,\n  bus.on(P, h))\n", 2, 2, cst.Call),
])
def test_positions_in_every_kind_of_statement(source: str, line: int, col: int, kind) -> None:
    module = cst.parse_module(source)
    found = Locator(module, source).at(line, col)
    assert found is not None and isinstance(found.nodes[0], kind), source


SAMPLES = ["codemods/support/locate.py", "kernels/fanout.py", "analyzer/extract/symbols.py",
           "cli/lint.py", "packs/reader.py"]


@pytest.mark.parametrize("rel", SAMPLES)
def test_every_site_is_found_where_libcst_says_it_starts_and_ends(rel: str) -> None:
    from pathlib import Path

    import planeshift

    text = (Path(planeshift.__file__).parent / rel).read_text(encoding="utf-8")
    module = cst.parse_module(text)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    locator = Locator(module, text)
    sites = [n for n in positions if isinstance(n, (cst.Call, cst.Arg, cst.DictElement,
                                                    cst.Assign, cst.AugAssign, cst.Decorator))]
    assert len(sites) > 50
    for site in sites:
        where = positions[site]
        found = locator.at(where.start.line, where.start.column, where.end.line,
                           where.end.column)
        assert found is not None and site in found.nodes, (where, code(module, site))


def test_an_added_list_reported_at_its_statement_finds_its_element() -> None:
    module, locator = locate("bus._callbacks += [audit, notify]\n")
    found = locator.at(1, 0, end_line=1, end_col=33)
    assert found is not None and isinstance(found.nodes[0], cst.AugAssign)
    assert code(module, handler_node(found, "notify", None, module.code_for_node)) == "notify"


def test_nothing_starts_there_gives_none_and_two_equal_handlers_are_ambiguous() -> None:
    module, locator = locate("bus.on(h, h)\n")
    assert locator.at(1, 3) is None
    with pytest.raises(LookupError):
        handler_node(at(locator, 1, 0), "h", None, module.code_for_node)


def test_statement_at_a_line_and_the_break_before_a_continuation_line() -> None:
    _, locator = locate("""
        x = 1
        submit(
            Event(on_done=cb),
        )
    """)
    entry = locator.statement_at(3)
    assert entry is not None and isinstance(entry.node, cst.Expr)
    assert locator.first_line(entry) == 2
    found = locator.line_break_before(3, 4)
    assert found is not None and isinstance(found.nodes[0], cst.ParenthesizedWhitespace)


NESTED = '''
import os; import sys
@decorator(
    "é", 1)
class Owner:
    """Dôc."""
    x = 1; y = (2,
                3); z = 4
    if x: a = 1; b = 2
    elif y:
        pass
    else:
        try:
            c = "ünïcode"; d = 5
        except (OSError, ValueError) as exc:
            raise
        else:
            e = 6
        finally:
            f = 7

    @staticmethod
    def method(arg):
        for item in arg:
            while item:
                with open(item) as fh: g = fh
        else:
            h = 8
        match arg:
            case [1, *rest]:
                return rest
            case _:
                return None
    s = """multi
line"""; t = 9
async def coroutine():
    async for item in aiter(): await item
    async with lock: pass
'''


def _brute_force(locator: Locator, line: int, col: int) -> int | None:
    """The linear scan the index replaced: the last statement in document order holding it."""
    from planeshift.codemods.support.statements import statement_start as _start

    best = None
    for index, stmt in enumerate(locator.stmts):
        start = _start(stmt)
        if (start[0], locator._chars(*start)) <= (line, col) <= (
                stmt.end_lineno, locator._chars(stmt.end_lineno, stmt.end_col_offset)):
            best = index
    return best


def test_the_position_index_answers_as_the_scan_of_every_statement_did() -> None:
    _, locator = locate(NESTED)
    for line, text in enumerate(locator.lines, 1):
        for col in range(len(text) + 2):
            assert locator._innermost(line, col) == _brute_force(locator, line, col), (line, col)
        lines = [i for i, s in enumerate(locator.stmts)
                 if locator._starts[i][0] <= line <= s.end_lineno]
        expected = locator.entries[lines[-1]] if lines else None
        assert locator.statement_at(line) is expected, line


def test_a_lookup_reads_a_few_statements_not_every_statement_of_the_module(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Cost, counted (never timed): one lookup per registration must not read every statement
    of the module, or a migrate of R registrations in S statements costs R x S."""
    from planeshift.codemods.support import locate as module

    text = "".join(f"def f{i}(x):\n    if x:\n        return {i}\nbus.on(P, f{i})\n"
                   for i in range(500))
    tree = cst.parse_module(text)
    locator = Locator(tree, text)
    reads = 0
    original = module.statement_start

    def counted(stmt):  # type: ignore[no-untyped-def]
        nonlocal reads
        reads += 1
        return original(stmt)

    monkeypatch.setattr(module, "statement_start", counted)
    for i in range(0, 500, 5):
        assert locator.at(4 * i + 4, 0) is not None  # each `bus.on(P, f{i})`
        assert locator.statement_at(4 * i + 2) is not None
        locator.first_line(locator.statement_at(4 * i + 1))
    assert reads <= 100 * 3, reads  # was 3 x 2000 per lookup round
