"""A faster ast.NodeVisitor: a per-class dispatch table, and no work on leaves."""

from __future__ import annotations

import ast

_LEAVES = (
    ast.Constant, ast.Name, ast.Load, ast.Store, ast.Del, ast.Pass, ast.Break, ast.Continue,
    ast.operator, ast.boolop, ast.cmpop, ast.unaryop, ast.alias, ast.Global, ast.Nonlocal,
)


class FastVisitor:
    """ast.NodeVisitor's protocol with a per-class dispatch table and no work on leaves.

    The stock visitor builds a method name and looks it up for every node, and walks leaves
    such as names and constants; on a large tree that is most of the pass's time.
    """

    _dispatch: dict[type, object] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[type, object] = {leaf: None for leaf in _leaf_types()}
        for name in dir(cls):
            if name.startswith("visit_") and isinstance(getattr(ast, name[6:], None), type):
                table[getattr(ast, name[6:])] = getattr(cls, name)
        cls._dispatch = table

    def visit(self, node: ast.AST) -> None:
        method = self._dispatch.get(node.__class__, _GENERIC)
        if method is _GENERIC:
            self.generic_visit(node)
        elif method is not None:
            method(self, node)  # type: ignore[operator]

    def generic_visit(self, node: ast.AST) -> None:
        # visit() inlined: most children are leaves, and a call per leaf is most of the walk
        dispatch = self._dispatch
        for name in node._fields:
            value = getattr(node, name, None)
            for item in value if value.__class__ is list else (value,):
                method = dispatch.get(item.__class__, _GENERIC)
                if method is None:
                    continue
                if method is not _GENERIC:
                    method(self, item)  # type: ignore[operator]
                elif isinstance(item, ast.AST):
                    self.generic_visit(item)


_GENERIC = object()  # a class with no method of its own: visit its children


def _leaf_types() -> list[type]:
    out: list[type] = []
    for leaf in _LEAVES:
        out.append(leaf)
        out.extend(leaf.__subclasses__())
    return out


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``, in the same order, without its two generators."""
    out: list[ast.AST] = []
    append, AST = out.append, ast.AST
    for name in node._fields:
        value = getattr(node, name, None)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, AST):
                    append(item)
        elif isinstance(value, AST):
            append(value)
    return out


def name_ids(root: ast.AST) -> list[str]:
    """The ``id`` of every ``ast.Name`` in *root* (itself included), in no particular order:
    ``[n.id for n in ast.walk(root) if isinstance(n, ast.Name)]`` as a set or a test needs it."""
    out: list[str] = []
    stack, Name, AST = [root], ast.Name, ast.AST
    while stack:
        node = stack.pop()
        if node.__class__ is Name:
            out.append(node.id)  # type: ignore[attr-defined]
            continue  # a Name's only child is its context
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                stack.append(value)
    return out
