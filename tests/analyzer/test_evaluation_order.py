"""Inference results never depend on the order names are evaluated in: an incremental link
evaluates fewer sites, in another order, and must reach what a full link reaches."""

from __future__ import annotations

import textwrap

from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.extract.sites import Vocabulary
from planeshift.analyzer.link.evaluate.engine import Evaluator
from planeshift.analyzer.link.index import ProjectIndex

CYCLE = textwrap.dedent('''
    class Foo:
        pass

    a = b if flag else Foo()
    b = a
''')


def evaluate(order: list[str]) -> dict[str, frozenset]:
    facts = extract_source(CYCLE.encode(), "m.py", "m", False, Vocabulary())
    ev = Evaluator(ProjectIndex([facts]))
    return {name: ev.eval(("name", name), "m", "") for name in order}


def test_a_cycle_gives_the_same_values_whichever_name_is_evaluated_first() -> None:
    a_first = evaluate(["a", "b"])
    b_first = evaluate(["b", "a"])
    assert a_first == b_first
    assert ("inst", "m.Foo") in a_first["b"]  # b is a, and a may be a Foo
