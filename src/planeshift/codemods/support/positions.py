"""Positions of a small tree's nodes, as LibCST's PositionProvider gives them, from one rendering.

``MetadataWrapper(module).resolve(PositionProvider)`` also walks the tree for its batched
providers, and the code is a second rendering; for the one statement the locator and the layout
pass render at a time, those cost more than the positions themselves.
"""

from __future__ import annotations

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState


def positions_of(module: cst.Module, parents: dict[int, cst.CSTNode] | None = None,
                 within: cst.CSTNode | None = None
                 ) -> tuple[dict[cst.CSTNode, CodeRange], str]:
    """What ``MetadataWrapper(module).resolve(PositionProvider)`` gives, and the module's code,
    from one rendering: the wrapper also walks the tree for its batched providers and the code
    would be a second rendering, which for one statement cost more than the positions. With
    *parents*, each node below *within* (a node of *module*) is mapped (by id) to its parent,
    as a walk of ``children`` gives it (every child is rendered by its parent), without that
    walk: ``children`` visits each node to list them."""
    provider = PositionProvider()
    state = (_Parented if parents is not None else _Positions)(
        default_indent=module.default_indent, default_newline=module.default_newline,
        provider=provider)
    if parents is not None:
        state.parents, state.within, state.stack = parents, within, []  # type: ignore[attr-defined]
    module._codegen(state)
    return provider._computed, "".join(state.tokens)  # type: ignore[return-value]


class _Syntactic:
    """LibCST's ``record_syntactic_position`` as a plain context manager (LibCST's is a
    generator-based one, made and driven for every node rendered)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _Positions, node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = CodePosition(self.state.line, self.state.column)

    def __exit__(self, *exc: object) -> None:
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else CodePosition(
            state.line, state.column)
        computed[self.node] = CodeRange(start, end)


class _Positions(PositionProvidingCodegenState):
    """LibCST's positions, the same, for less: a token's line and column are counted without a
    regular expression where it holds no line break, and a syntactic position is recorded by
    a plain context manager."""

    def _update_position(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
        else:
            super()._update_position(value)

    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Parented(_Positions):
    """Positions, and the parent of each node below *within*."""

    parents: dict[int, cst.CSTNode]
    within: cst.CSTNode | None
    stack: list[cst.CSTNode]  # the nodes being rendered from *within* down

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.stack:
            self.parents[id(node)] = self.stack[-1]
            self.stack.append(node)
        elif node is self.within:
            self.stack.append(node)
        super().before_codegen(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.stack:
            self.stack.pop()
        super().after_codegen(node)


class _NoPosition:
    """The context manager a plain rendering records a syntactic position with: nothing."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_POSITION = _NoPosition()


_OTHER, _LISTED, _FSTRING = 0, 1, 2
_KINDS: dict[tuple[type, ...], dict[type, int]] = {}


def _table(kinds: tuple[type[cst.CSTNode], ...]) -> dict[type, int]:
    """Class -> is a node of it one of *kinds*, an f-string, or neither (see :func:`_kind`)."""
    return _KINDS.setdefault(kinds, {})


def _kind(table: dict[type, int], kinds: tuple[type[cst.CSTNode], ...], cls: type) -> int:
    """Is a node of class *cls* one of *kinds*, an f-string, or neither: per class, once (LibCST's
    node classes are abstract base classes, whose ``isinstance`` is a slow path per call)."""
    found = table.get(cls)
    if found is None:
        found = table[cls] = (_LISTED if issubclass(cls, kinds) else _FSTRING if
                              issubclass(cls, cst.FormattedString) else _OTHER)
    return found


def of_kind(node: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...]) -> bool:
    """``isinstance(node, kinds)``, answered once per class."""
    return _kind(_table(kinds), kinds, type(node)) == _LISTED


class Rendering(CodegenState):
    """One rendering of a small tree that keeps only what the layout pass reads: the code, and
    for each node of *kinds* outside an f-string, in document order (parents first), the line its
    syntactic position starts on (as ``PositionProvider`` has it), the lines its rendering starts
    and ends on, and the nodes above it.

    :func:`positions_of` computes a ``CodeRange`` for every node, through a generator-based
    context manager per node and a regular expression per token; the layout pass renders each
    statement it splits several times and reads the start line of a few brackets only."""

    def __init__(self, kinds: tuple[type[cst.CSTNode], ...]) -> None:
        super().__init__(default_indent="    ", default_newline="\n")
        self.kinds = kinds
        self._table = _table(kinds)
        self.line = 1
        self.nodes: list[cst.CSTNode] = []
        self.starts: dict[cst.CSTNode, int] = {}
        self.above: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = {}
        self.entered: dict[cst.CSTNode, int] = {}  # the line its rendering starts on
        self.ends: dict[cst.CSTNode, int] = {}  # the line its rendering ends on
        self.code = ""
        self.indented: set[int] = set()  # the lines that start with the block's indentation
        self._stack: list[cst.CSTNode] = []
        self._inside = 0  # f-strings open around the node
        self._syntactic: set[cst.CSTNode] = set()

    @classmethod
    def of(cls, module: cst.Module, kinds: tuple[type[cst.CSTNode], ...]) -> Rendering:
        state = cls(kinds)
        state.default_indent, state.default_newline = module.default_indent, module.default_newline
        module._codegen(state)
        state.code = "".join(state.tokens)
        return state

    def add_indent_tokens(self) -> None:
        self.indented.add(self.line)  # where the statement's indentation goes in its block
        super().add_indent_tokens()

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:  # as LibCST counts lines: \r\n, \r or \n
            self.line += value.count("\n") + value.count("\r") - value.count("\r\n")

    def before_codegen(self, node: cst.CSTNode) -> None:
        kind = self._table.get(type(node))
        if kind is None:
            kind = _kind(self._table, self.kinds, type(node))
        if kind == _LISTED and not self._inside:
            self.nodes.append(node)
            self.above[node] = tuple(self._stack)
            self.starts.setdefault(node, self.line)  # until a syntactic position says otherwise
            self.entered[node] = self.line
        elif kind == _FSTRING:
            self._inside += 1
        self._stack.append(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        self._stack.pop()
        kind = self._table[type(node)]  # (set before its rendering)
        if kind == _LISTED and node in self.entered:
            self.ends[node] = self.line
        elif kind == _FSTRING:
            self._inside -= 1

    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None) -> _NoPosition:
        if node in self.above and node not in self._syntactic:
            self._syntactic.add(node)  # the outermost recording is the one PositionProvider keeps
            self.starts[node] = self.line
        return _NO_POSITION
