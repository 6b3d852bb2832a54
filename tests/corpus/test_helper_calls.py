"""The helper search's call pass records a call exactly as the symbol pass would: the same
sites (position, span, scope, callee, arguments) for the same names, on lionagi's files."""

from __future__ import annotations

import ast
import bisect
import gc
import re
from dataclasses import replace
from pathlib import Path

import pytest

from planeshift.analyzer.extract.calls import _lines, _statements_only, call_sites
from planeshift.analyzer.extract.file import decode_source, extract_source
from planeshift.analyzer.extract.sites import Vocabulary
from planeshift.analyzer.extract.symbols import statement_lines

pytestmark = pytest.mark.corpus


def _where(site):
    return site.line, site.col, site.end_line, site.end_col


def test_the_call_pass_agrees_with_the_symbol_pass(corpus_root: Path) -> None:
    files = sorted(corpus_root.rglob("*.py"))[::3]  # a third of the tree: 200 files, every shape
    compared = 0
    for path in files:
        data = path.read_bytes()
        rel = path.relative_to(corpus_root).as_posix()
        plain = extract_source(data, rel, "lionagi.m", False, Vocabulary())
        called = sorted(plain.called_funcs | plain.called_attrs)
        if plain.error or not called:
            continue
        # every name the file calls, then a few (the pass reads only the lines that spell them)
        for words in (frozenset(called), frozenset(called[::7])):
            full = extract_source(data, rel, "lionagi.m", False, Vocabulary(calls=words))
            expected = sorted((replace(s, loops=()) for s in full.sites if s.kind == "call"),
                              key=_where)
            assert sorted(call_sites(data, rel, words), key=_where) == expected, (rel, words)
            compared += len(expected)
    assert compared > 5000  # the comparison saw the tree's calls, not an empty sample


def _lines_by_bisect(text: str, words: frozenset[str]) -> list[int]:
    """The candidate lines as first written: every match's line by bisecting the line starts."""
    names = "|".join(re.escape(w) for w in sorted(words))
    pattern = re.compile(rf"(?<![\w])(?:{names})\s*\(|[\"'](?:{names})[\"']")
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    return sorted({bisect.bisect_right(starts, m.start()) for m in pattern.finditer(text)})


def test_the_candidate_lines_are_those_of_every_match(corpus_root: Path) -> None:
    """The lookahead and the counted newlines find the lines a plain scan of the text finds, for
    the names a file defines and the names it calls (all of them and a few)."""
    compared = 0
    for path in sorted(corpus_root.rglob("*.py")):
        text = decode_source(path.read_bytes())
        defined = set(re.findall(r"\bdef\s+(\w+)", text))
        called = sorted(set(re.findall(r"(\w+)\s*\(", text)))
        for words in (frozenset(defined), frozenset(called), frozenset(called[::5])):
            if words:
                assert _lines(text, words) == _lines_by_bisect(text, words), (path.name, words)
                compared += 1
    assert compared > 1000


@pytest.mark.parametrize("collecting", [True, False])
def test_the_call_pass_leaves_the_collector_as_it_found_it(collecting: bool) -> None:
    """The pass parses with the cyclic collector off and restores it, a bad file included."""
    was = gc.isenabled()
    try:
        gc.enable() if collecting else gc.disable()
        good = call_sites(b"def f():\n    run(1)\n", "a.py", frozenset({"run"}))
        assert [(s.line, s.scope) for s in good] == [(2, "f")]
        assert gc.isenabled() is collecting
        assert call_sites(b"def f():\n    run(1)\nx = (\n", "b.py", frozenset({"run"})) == ()
        assert gc.isenabled() is collecting
    finally:
        gc.enable() if was else gc.disable()


def _statements(data: bytes) -> tuple[int, ...]:
    return statement_lines(ast.parse(decode_source(data)))


def test_parsing_only_the_statements_needed_finds_the_same_sites(corpus_root: Path) -> None:
    """Given the file's top-level statement lines, the pass parses only the statements that
    hold a candidate line (every other line emptied): the same sites as the whole file's parse,
    for the names every file defines, the names it calls (all and a few), on every file."""
    compared = partial = 0
    for path in sorted(corpus_root.rglob("*.py")):
        data = path.read_bytes()
        rel = path.relative_to(corpus_root).as_posix()
        text = decode_source(data)
        tree = ast.parse(text)
        statements = statement_lines(tree)
        defined = {n.name for n in ast.walk(tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        called = sorted({n.func.id if isinstance(n.func, ast.Name) else n.func.attr
                         for n in ast.walk(tree) if isinstance(n, ast.Call)
                         and isinstance(n.func, (ast.Name, ast.Attribute))})
        for words in (frozenset(defined), frozenset(called), frozenset(called[::7]),
                      frozenset(called[3::11])):
            if not words:
                continue
            expected = call_sites(data, rel, words)
            assert call_sites(data, rel, words, statements) == expected, (rel, sorted(words))
            lines = _lines(text, words)
            part = _statements_only(text, statements, lines) if lines else None
            if part is not None:
                ast.parse(part)  # the kept statements parse alone: no fallback to the whole file
                partial += 1
            compared += len(expected)
    assert compared > 20000 and partial > 1000, (compared, partial)


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
    "comment-between": b"x = 1\n# run(0)\n  # run(1)\ndef f():\n    pass\n    # run(2)\nrun(3)\n",
    "lone-cr": b"x = 1\ry = run(2)\nz = 3\n",
    "getattr": b"x = 1\ny = getattr(o, 'run')(2)\nz = 3\n",
    "lambda": b"f = lambda: run(1)\ng = 2\nh = [run(i) for i in x]\n",
    "async": b"async def f():\n    async with run(1) as r:\n        await run(2)\nx = 3\n",
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_parsing_only_the_statements_needed_in_odd_files(name: str) -> None:
    data = ODD[name]
    for words in (frozenset({"run"}), frozenset({"run", "other", "deco"})):
        expected = call_sites(data, "odd.py", words)
        assert expected or name == "lone-cr", name
        assert call_sites(data, "odd.py", words, _statements(data)) == expected, name
