"""The layout pass's cheap rendering reads the same start lines as LibCST's PositionProvider.

``Rendering`` replaces ``positions_of`` in the layout pass (which renders every statement it
splits several times): for each bracket outside an f-string, in document order, the line its
syntactic position starts on must be PositionProvider's, and the code the module's."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from planeshift.codemods.support.layout import BRACKETS
from planeshift.codemods.support.positions import Rendering, positions_of

SNIPPETS = [
    "bus.on(HookPoint.TOOL_POST, as_subscriber(Subscription(handler=h, name='a')))\n",
    "x = (\n    1,\n    2,\n)\n",  # a parenthesized tuple whose syntactic start is below its `(`
    "y = ((a, b), [c, {d: e}], {f, g})\n",
    "f'{call(a, [b])}' + g(h)\n",  # brackets inside an f-string are not listed
    "from pkg.mod import (\n    a,\n    b,\n)\n",
    "obj.method(\n    arg\n)(other)[key](z)\n",
    "value = (  # a comment\n    first(a)\n)\r\n",
    "lambda: {k: [v for v in range(3)] for k in 'ab'}\n",
]


def _document_order(node: cst.CSTNode, inside: bool = False) -> list[cst.CSTNode]:
    """*node* and the nodes below it, parents first, those inside an f-string left out."""
    below = inside or isinstance(node, cst.FormattedString)
    return [*([] if inside else [node]),
            *(n for child in node.children for n in _document_order(child, below))]


def same(module: cst.Module) -> None:
    order = _document_order(module)
    positions, code = positions_of(module)
    rendering = Rendering.of(module, BRACKETS)
    assert rendering.code == code == module.code
    assert rendering.nodes == [n for n in order if isinstance(n, BRACKETS)]
    assert {n: rendering.starts[n] for n in rendering.nodes} == {
        n: positions[n].start.line for n in rendering.nodes}
    for node in rendering.nodes:
        assert rendering.entered[node] <= rendering.starts[node] <= rendering.ends[node]
        assert rendering.above[node][0] is module


@pytest.mark.parametrize("code", SNIPPETS)
def test_the_start_lines_are_the_position_providers(code: str) -> None:
    same(cst.parse_module(code))



@pytest.mark.parametrize("code", SNIPPETS)
def test_the_parents_are_those_of_a_walk_of_the_children(code: str) -> None:
    """The locator reads each node's parent from the rendering that gives the positions."""
    same_parents(cst.parse_module(code))


def same_parents(module: cst.Module) -> None:
    (statement,) = module.body
    parents: dict[int, cst.CSTNode] = {}
    positions_of(module, parents, statement)
    walked: dict[int, cst.CSTNode] = {}
    below = [statement]
    while below:
        node = below.pop()
        walked.update((id(child), node) for child in node.children)
        below.extend(node.children)
    assert parents == walked


def same_positions(module: cst.Module) -> None:
    """``positions_of`` gives what LibCST's own PositionProvider gives, node for node."""
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    expected = wrapper.resolve(PositionProvider)
    positions, code = positions_of(module)
    assert code == module.code
    assert positions == dict(expected)


@pytest.mark.parametrize("code", [*SNIPPETS, "if x:\n    y = (\n        1,\n    )\r\nelse:\n    pass\n",
                                  "class A:\n    @d\n    def f(self, *, a=1) -> int:\n"
                                  "        return f'{a!r:>{w}}'  # c\n"])
def test_the_positions_are_libcsts(code: str) -> None:
    same_positions(cst.parse_module(code))
