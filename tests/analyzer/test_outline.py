"""The outline of a module's top-level statements the scan keeps for ``migrate`` (which then
parses only the statements at the module's own level): LibCST's grouping, first lines of
decorated definitions, and which definitions may be left out."""

from __future__ import annotations

import ast
from textwrap import dedent

import pytest

import planeshift.rules.checks  # noqa: F401 - gives extraction the rules' reader
from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.extract.outline import (DEFINITION, EXPRESSION, IMPORTS, OTHER, groups,
                                                 outline)
from planeshift.analyzer.extract.sites import Vocabulary


def _outline(text: str) -> list[tuple[int, int, int]]:
    text = dedent(text)
    return groups(outline(ast.parse(text).body, text))


@pytest.mark.parametrize(("text", "expected"), [
    ('"""Doc."""\nimport os\nfrom x import (\n    y,\n)\n', [(1, 1, EXPRESSION), (2, 2, IMPORTS),
                                                            (3, 5, IMPORTS)]),
    ("import os; import sys\nx = 1; import re\n", [(1, 1, IMPORTS), (2, 2, OTHER)]),
    ('"""Doc."""; x = 1\n', [(1, 1, EXPRESSION)]),
    ("@a\n\n@b(c)\nclass K:\n    pass\nasync def f():\n    pass\n",
     [(1, 5, DEFINITION), (6, 7, DEFINITION)]),
    ("if x:\n    def f():\n        pass\nelse:\n    y = 2\n", [(1, 5, OTHER)]),
    # an assignment expression in a header binds in the module: not to be left out
    ("@register(h := handler)\ndef f():\n    pass\ndef g(x=(d := 1)):\n    pass\n"
     "def k():\n    y = (z := 2)\n", [(1, 3, OTHER), (4, 5, OTHER), (6, 7, DEFINITION)]),
])
def test_the_outline_groups_statements_as_libcst_does(text: str,
                                                      expected: list[tuple[int, int, int]]) -> None:
    assert _outline(text) == expected


def test_the_facts_of_a_file_hold_its_outline() -> None:
    text = "import os\n\n\ndef f():\n    return 1\n\n\nf()\n"
    facts = extract_source(text.encode(), "m.py", "m", False, Vocabulary())
    assert groups(facts.outline) == [(1, 1, IMPORTS), (4, 5, DEFINITION), (8, 8, EXPRESSION)]
