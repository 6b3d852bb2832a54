"""The prefilter's look-ahead form admits exactly the texts the plain form admitted, on every
lionagi file and every line of it, for the packs' vocabulary and wider ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planeshift import api
from planeshift.analyzer.extract.file import Prefilter, decode_source, prefilter_for
from planeshift.analyzer.extract.sites import Vocabulary
from planeshift.config import Config

pytestmark = pytest.mark.corpus


def _plain(vocab: Vocabulary) -> re.Pattern[str]:
    """The prefilter as first written: the lead (or the line's start) before each word."""

    def words(names: frozenset[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(names))

    lead = r"(?:^|[.\s(=@,\[{])"
    parts: list[str] = []
    if vocab.calls:
        parts.append(rf"{lead}(?:{words(vocab.calls)})(?:[ \t]*\(|\s+as\s)")
        parts.append(rf"\.(?:{words(vocab.calls)})[ \t]*(?:$|[,)\]#])")
    if vocab.keywords:
        parts.append(rf"{lead}(?:{words(vocab.keywords)})[ \t]*=")
    if vocab.list_attrs:
        parts.append(rf"\.[ \t]*(?:{words(vocab.list_attrs)})\b")
    if vocab.item_attrs:
        parts.append(rf"\.[ \t]*(?:{words(vocab.item_attrs)})[ \t]*\[")
    if vocab.assign_attrs:
        parts.append(rf"\.[ \t]*(?:{words(vocab.assign_attrs)})[ \t]*(?::[^=\n]*)?=(?!=)")
    return re.compile("|".join(parts), re.MULTILINE)


def _admits(prefilter: Prefilter | None, text: str) -> bool:
    return prefilter is not None and prefilter.admits(text)


def test_the_prefilter_admits_what_the_plain_form_admits(corpus_root: Path) -> None:
    packs = api.vocabulary(api.load_packs(Config(root=corpus_root, use_cache=False)))
    texts = [decode_source(p.read_bytes()) for p in sorted(corpus_root.rglob("*.py"))]
    called = sorted(set(re.findall(r"(\w+)\s*\(", "\n".join(texts[::5]))))
    vocabs = [
        packs,
        Vocabulary(calls=packs.calls | frozenset(called[::13])),  # a derived API's names
        Vocabulary(keywords=packs.keywords, list_attrs=packs.list_attrs),
        Vocabulary(item_attrs=frozenset({"handlers", "hooks"}), assign_attrs=packs.assign_attrs),
        Vocabulary(calls=frozenset({"run", "on", "emit"}), keywords=frozenset({"callback"}),
                   list_attrs=frozenset({"_subs"}), item_attrs=frozenset({"_map"}),
                   assign_attrs=frozenset({"on_done"})),
    ]
    admitted = lines = 0
    for vocab in vocabs:
        new, old = prefilter_for(vocab), _plain(vocab)
        for text in texts:
            want = old.search(text) is not None
            assert _admits(new, text) == want
            admitted += want
            for line in text.splitlines():
                assert _admits(new, line) == (old.search(line) is not None), (line, vocab)
                lines += 1
    assert admitted > 300 and lines > 100000, (admitted, lines)


@pytest.mark.parametrize("text", [
    "run(1)", "on (x)", "emit as e", "callback=f", "callback = f", "x.run", "x.run,", "x . _subs",
    "x._subs.append(f)", "x._map[k] = f", "x.on_done = f", "x.on_done: T = f", "x.on_done == f",
    "xrun(1)", "x_run(1)", "\trun(1)", "@on(1)", "(run(1))", "[emit(1)]", "{on(1)}", "a,run(1)",
    "", "\n", "run", "\nrun(1)", "x\r\nrun(1)", "x.on_done\t=f", "y = x.run  # comment",
])
def test_the_prefilter_at_the_edges(text: str) -> None:
    vocab = Vocabulary(calls=frozenset({"run", "on", "emit"}), keywords=frozenset({"callback"}),
                       list_attrs=frozenset({"_subs"}), item_attrs=frozenset({"_map"}),
                       assign_attrs=frozenset({"on_done"}))
    assert _admits(prefilter_for(vocab), text) == (_plain(vocab).search(text) is not None), text
