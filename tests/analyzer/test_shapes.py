"""Every registration shape's own examples, scanned for real with the demo bus and its pack."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planeshift.analyzer.shapes import all_shapes, vocabulary
from planeshift.analyzer.shapes.base import WORD_CLASSES, Example
from planeshift.api import load_packs
from planeshift.config import Config

from .helpers import DEMO_PACK, scan_tree, show

SHAPES = all_shapes()
MATCHES = [(s, i, ex) for s in SHAPES for i, ex in enumerate(s.MATCHES)]
LOOKALIKES = [(s, i, ex) for s in SHAPES for i, ex in enumerate(s.LOOKALIKES)]


def _found(tmp_path: Path, example: Example) -> list[tuple]:
    result = scan_tree(tmp_path, {"example.py": textwrap.dedent(example.code)})
    return [(r.line, r.api, r.point, r.handler.expr) for r in result.registrations
            if r.file == "example.py"], show(result)


@pytest.mark.parametrize(("shape", "index", "example"), MATCHES,
                         ids=[f"{s.kind}-{i}" for s, i, _ in MATCHES])
def test_shape_example_registers(tmp_path: Path, shape, index, example: Example) -> None:
    found, shown = _found(tmp_path, example)
    assert found == list(example.expect), shown


@pytest.mark.parametrize(("shape", "index", "example"), LOOKALIKES,
                         ids=[f"{s.kind}-{i}" for s, i, _ in LOOKALIKES])
def test_shape_lookalike_registers_nothing(tmp_path: Path, shape, index, example) -> None:
    found, shown = _found(tmp_path, example)
    assert found == [], shown


def test_every_shape_documents_itself_with_an_example() -> None:
    for shape in SHAPES:
        assert shape.MATCHES, f"{shape.kind} has no example that registers"
        module = __import__(type(shape).__module__, fromlist=["_"])
        assert module.__doc__, f"{shape.kind}'s module says nothing about the shape"


def test_vocabulary_takes_each_forms_words_by_its_shape() -> None:
    packs = load_packs(Config(root=Path("."), packs=(DEMO_PACK,), builtin_packs=()))
    vocab = vocabulary(packs)
    assert {"on", "subscribe", "intercept", "hook", "EventBus", "emit"} <= vocab.calls
    assert {"on_event", "hooks"} <= vocab.keywords
    assert vocab.list_attrs == {"_queued", "_callbacks", "_buckets"}
    assert vocab.assign_attrs == {"gate"} and vocab.item_attrs == {"_named"}


def test_every_word_class_is_a_vocabulary_field() -> None:
    vocab = vocabulary(())
    assert all(getattr(vocab, name) == frozenset() for name in WORD_CLASSES)


def test_a_form_option_its_shape_does_not_take_is_an_error(tmp_path: Path) -> None:
    from planeshift.packs.load import parse_pack
    from planeshift.packs.model import PackError

    text = textwrap.dedent("""\
        pack: p
        mechanisms:
          - id: m
            dispatcher: a.B
            register:
              - method: "on"
                owner: a.C
            classify:
              - plane: subscriber
                because: x
        """)
    with pytest.raises(PackError) as info:
        parse_pack(text, "p.yaml")
    assert str(info.value) == ("p.yaml: mechanisms[0].register[0].owner: a method form takes no "
                               "'owner' (it takes: point, handler, fixed_point, conditions, "
                               "distinctive, decorates)")
