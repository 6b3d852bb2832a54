"""The helper search's call pass records a call exactly as the symbol pass would: the same
sites (position, span, scope, callee, arguments) for the same names, on lionagi's files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from planeshift.analyzer.extract.calls import call_sites
from planeshift.analyzer.extract.file import extract_source
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
