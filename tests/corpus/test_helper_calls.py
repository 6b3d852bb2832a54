"""The helper search's call pass records a call exactly as the symbol pass would: the same
sites (position, span, scope, callee, arguments) for the same names, on lionagi's files."""

from __future__ import annotations

import bisect
import gc
import re
from dataclasses import replace
from pathlib import Path

import pytest

from planeshift.analyzer.extract.calls import _lines, call_sites
from planeshift.analyzer.extract.file import decode_source, extract_source
from planeshift.analyzer.extract.sites import Vocabulary

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
