"""Positions of a small tree's nodes, as LibCST's PositionProvider gives them, from one rendering.

``MetadataWrapper(module).resolve(PositionProvider)`` also walks the tree for its batched
providers, and the code is a second rendering; for the one statement the locator and the layout
pass render at a time, those cost more than the positions themselves.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState


def positions_of(module: cst.Module, order: list[cst.CSTNode] | None = None
                 ) -> tuple[dict[cst.CSTNode, CodeRange], str]:
    """What ``MetadataWrapper(module).resolve(PositionProvider)`` gives, and the module's code,
    from one rendering: the wrapper also walks the tree for its batched providers and the code
    would be a second rendering, which for one statement cost more than the positions. With
    *order*, every node is appended to it in document order (parents first), as a walk of
    ``children`` gives them, except those inside an f-string."""
    provider = PositionProvider()
    state = (_Ordered if order is not None else PositionProvidingCodegenState)(
        default_indent=module.default_indent, default_newline=module.default_newline,
        provider=provider)
    if order is not None:
        state.order, state.inside = order, 0  # type: ignore[attr-defined]
    module._codegen(state)
    return provider._computed, "".join(state.tokens)  # type: ignore[return-value]


class _Ordered(PositionProvidingCodegenState):
    """Positions, and the nodes in the order they are rendered."""

    order: list[cst.CSTNode]
    inside: int  # f-strings open around the node

    def before_codegen(self, node: cst.CSTNode) -> None:
        if not self.inside:
            self.order.append(node)
        if isinstance(node, cst.FormattedString):
            self.inside += 1
        super().before_codegen(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.FormattedString):
            self.inside -= 1
        super().after_codegen(node)
