"""The helper search reads the call rows the symbol pass records for every call of a name or an
attribute: each row is the call site the pass records when the name is a vocabulary word (the
same position, span, scope, callee and names handed on), on lionagi's files and on odd ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.analyzer.extract.facts import FileFacts, call_rows, call_word
from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.extract.sites import Vocabulary


def _as_rows(facts: FileFacts, words: frozenset[str]) -> list[tuple]:
    """The call sites of *words* the pass recorded, written as call rows."""
    return sorted(
        (s.func, s.scope, s.line, s.col, s.end_line, s.end_col,
         tuple(a.ref[1] for a in s.args if a.ref[0] == "name"),
         tuple(root for a in s.args if a.ref[0] in ("attr", "sub")
               for root in [_root(a.ref)] if root))
        for s in facts.sites
        if s.kind == "call" and s.func[0] in ("name", "attr") and call_word((s.func,)) in words
    )


def _root(ref: tuple) -> str:
    """The name an attribute or item argument hangs from (``conn`` of ``conn.raw``)."""
    while ref[0] in ("attr", "sub"):
        ref = ref[1]
    return ref[1] if ref[0] == "name" else ""


def _rows(facts: FileFacts, words: frozenset[str]) -> list[tuple]:
    """(without whether the call drops its result, which a site does not record: see
    tests/analyzer/test_signal_families.py)"""
    return sorted(r[:8] for r in call_rows(facts) if call_word(r) in words)


@pytest.mark.corpus
def test_call_rows_are_the_call_sites_of_the_symbol_pass(corpus_root: Path) -> None:
    compared = 0
    for path in sorted(corpus_root.rglob("*.py"))[::3]:  # a third of the tree, every shape
        data = path.read_bytes()
        rel = path.relative_to(corpus_root).as_posix()
        plain = extract_source(data, rel, "lionagi.m", False, Vocabulary())
        called = sorted(plain.called_funcs | plain.called_attrs)
        if plain.error or not called:
            continue
        # every name the file calls, then a few
        for words in (frozenset(called), frozenset(called[::7])):
            full = extract_source(data, rel, "lionagi.m", False, Vocabulary(calls=words))
            expected = _as_rows(full, words)
            assert _rows(plain, words) == expected, (rel, words)
            compared += len(expected)
    assert compared > 5000  # the comparison saw the tree's calls, not an empty sample


ODD = {
    "semicolons": b"import x; y = run(1)\nz = 2; run(3)\nw = 1\n",
    "decorators": b"@run(1)\n@other\ndef f(a=run(2)):\n    run(3)\n\nx = 1\n\n@deco\nclass C(run()):\n"
                  b"    def m(self):\n        return run(4)\n",
    "backslash": b"x = 1 + \\\n    run(2)\ny = 3\nz = \\\n  run(\n 4)\n",
    "string": b'x = """\nrun(1)\n"""; y = run(2)\ns = """a\nb"""\nrun(3)\n',
    "crlf": b"x = 1\r\ndef f():\r\n    return run(1)\r\n\r\ny = run('\xc3\xa9', 2)\r\n",
    "bom": b"\xef\xbb\xbf# comment\nx = 'caf\xc3\xa9'; run(x)\nclass A:\n    y = run(2)\n",
    "latin-1": b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\ny = run('\xe9\xe9', x)\nz = 1\n",
    "parentheses": b"(\n  run(1)\n)\nx = 2\n(\n  y\n)\nrun(3)\n(run(4)\n)\n",
    "lone-cr": b"x = 1\ry = run(2)\nz = 3\n",
    "lambda": b"f = lambda: run(1)\ng = 2\nh = [run(i) for i in x]\n",
    "async": b"async def f():\n    async with run(1) as r:\n        await run(2)\nx = 3\n",
    "handed": b"def f(bus, *a, **k):\n    run(bus, *a, key=bus, **k)\n    o.run(1, x=2)\n"
              b"    run(bus.conn, k[0].raw, x=a.b)\n",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_call_rows_in_odd_files(name: str) -> None:
    words = frozenset({"run"})
    plain = extract_source(ODD[name], "odd.py", "odd", False, Vocabulary())
    full = extract_source(ODD[name], "odd.py", "odd", False, Vocabulary(calls=words))
    assert plain.error is None and full.error is None, name
    assert _rows(plain, words) == _as_rows(full, words) != [], name


def test_a_decorators_own_call_is_not_a_call_row() -> None:
    facts = extract_source(ODD["decorators"], "odd.py", "odd", False, Vocabulary())
    rows = [(r[2], r[1]) for r in call_rows(facts)]
    # @run(1) is a decorator; the default and the base belong to the enclosing scope
    assert rows == [(3, ""), (4, "f"), (9, ""), (11, "C.m")]


def test_the_names_handed_on() -> None:
    """Bare names, and the names an attribute or item argument hangs from."""
    facts = extract_source(ODD["handed"], "odd.py", "odd", False, Vocabulary())
    assert [(call_word(r), r[6], r[7]) for r in call_rows(facts)] == [
        ("run", ("bus", "a", "bus", "k"), ()), ("run", (), ()),
        ("run", (), ("bus", "k", "a"))]
