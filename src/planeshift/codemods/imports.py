"""Imports the codemods asked for, added (and removed) by LibCST's own import visitors.

Every import change goes through ``AddImportsVisitor`` / ``RemoveImportsVisitor``. The adder is
used through a subclass that visits only the module's top-level import lines: the stock visitor
walks (and, before that, gathers over) the whole tree although it edits nothing below the top,
which on a large module costs more than parsing it.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper


class TopImportsVisitor(AddImportsVisitor):
    """AddImportsVisitor, visiting only the module and its top-level import lines."""

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node.with_changes(body=node.body[:_top_imports_end(node)]))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module) or (
            isinstance(node, cst.SimpleStatementLine)
            and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in node.body)
        ):
            return super().on_visit(node)
        return False


def _top_imports_end(module: cst.Module) -> int:
    """Where the first block of imports (after a docstring) ends: all the adder gathers."""
    body = module.body
    index = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and body[0].body and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        index = 1
    while index < len(body) and isinstance(body[index], cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in body[index].body):
        index += 1
    return index


def apply_imports(context: CodemodContext, tree: cst.Module) -> cst.Module:
    """Add, then remove, the imports scheduled on *context* (and clear them)."""
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        tree = _run(TopImportsVisitor(context), context, tree)
    if context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY):
        tree = RemoveImportsVisitor(context).transform_module(tree)
    context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
    context.scratch.pop(RemoveImportsVisitor.CONTEXT_KEY, None)
    return tree


def _run(visitor: AddImportsVisitor, context: CodemodContext, tree: cst.Module) -> cst.Module:
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    with visitor.resolve(wrapper):
        visitor.context = replace(context, wrapper=wrapper)
        return tree.visit(visitor)
