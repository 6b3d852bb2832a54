"""Imports the codemods asked for, added (and removed) by LibCST's own import visitors.

Every import change goes through ``AddImportsVisitor`` / ``RemoveImportsVisitor``. The adder is
used through a subclass that visits only the module's top-level import lines: the stock visitor
walks (and, before that, gathers over) the whole tree although it edits nothing below the top,
which on a large module costs more than parsing it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper

from .fastinit import FastMatcherInit
from .sections import place_new, top_imports_end
from .style import TargetStyle, member_key


class TopImportsVisitor(AddImportsVisitor, FastMatcherInit):
    """AddImportsVisitor, visiting only the module and its top-level import lines."""

    style = TargetStyle()

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node.with_changes(body=node.body[:top_imports_end(node)]))

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
                         ) -> cst.ImportFrom:
        """Names merged into an import whose names were sorted stay sorted (LibCST puts the new
        ones first); each position keeps its comma, so the layout does not move."""
        result = super().leave_ImportFrom(original_node, updated_node)
        old, new = updated_node.names, result.names
        key = functools.partial(_key, style=self.style)
        if isinstance(old, cst.ImportStar) or isinstance(new, cst.ImportStar) or \
                len(new) == len(old) or [key(a) for a in old] != sorted(key(a) for a in old):
            return result
        ordered = sorted(new, key=key)
        commas = [a.comma for a in new]
        return result.with_changes(names=[a.with_changes(comma=c)
                                          for a, c in zip(ordered, commas, strict=True)])

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module) or (
            isinstance(node, cst.SimpleStatementLine)
            and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in node.body)
        ):
            return super().on_visit(node)
        return False


class BlankKeepingRemoveImportsVisitor(RemoveImportsVisitor):
    """RemoveImportsVisitor, except that an import line it removes hands its leading blank
    lines and comments to the next line, so the blank line between import groups stays."""

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        result = super().leave_Module(original_node, updated_node)
        old, new = list(original_node.body), list(result.body)
        out: list[cst.BaseStatement] = []
        carry: Sequence[cst.EmptyLine] = ()
        i = 0
        for stmt in new:
            # original lines not in the result before this one were removed (or rewritten: an
            # import line that lost some names is a new node where the old one stood)
            while i < len(old) and not old[i].deep_equals(stmt) and not _rewritten(old[i], stmt):
                carry = carry or getattr(old[i], "leading_lines", ())
                i += 1
            if i < len(old):
                i += 1
            if carry and hasattr(stmt, "leading_lines") and not stmt.leading_lines:
                stmt = stmt.with_changes(leading_lines=carry)
            carry = ()
            out.append(stmt)
        if out and old and not (old[0].deep_equals(out[0]) or _rewritten(old[0], out[0])):
            # the module's first line went: the line now first starts where it started (a
            # blank line between groups at the top of a file is no gap)
            out[0] = out[0].with_changes(leading_lines=getattr(old[0], "leading_lines", ()))
        return result.with_changes(body=out)


def _rewritten(old: cst.BaseStatement, new: cst.BaseStatement) -> bool:
    """*new* is *old* with some of its import names removed."""
    return isinstance(old, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine) \
        and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in (*old.body, *new.body)) \
        and new.leading_lines == old.leading_lines


def _key(alias: cst.ImportAlias, style: TargetStyle) -> tuple:
    return member_key(alias.evaluated_name, style)


def apply_imports(context: CodemodContext, tree: cst.Module,
                  style: TargetStyle | None = None) -> cst.Module:
    """Add, then remove, the imports scheduled on *context* (and clear them). With the target's
    *style*, an import from a module the top import block does not import from yet is a line of
    its own in its isort section, at its sorted place (see ``sections``)."""
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        # both read and edit only the top import block and the statement after it, so they are
        # given only those: LibCST's adder matches the module's body recursively, one frame a
        # statement, which a module of a few thousand top-level statements would overflow
        end = top_imports_end(tree) + 1
        head = tree.with_changes(body=tree.body[:end])
        if style is not None:
            head = place_new(context, head, style)
        if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
            visitor = TopImportsVisitor(context)
            visitor.style = style or TopImportsVisitor.style
            head = _run(visitor, context, head)
        tree = tree.with_changes(body=(*head.body, *tree.body[end:]))
    if context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY):
        tree = BlankKeepingRemoveImportsVisitor(context).transform_module(tree)
    context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
    context.scratch.pop(RemoveImportsVisitor.CONTEXT_KEY, None)
    return tree


def _run(visitor: AddImportsVisitor, context: CodemodContext, tree: cst.Module) -> cst.Module:
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    with visitor.resolve(wrapper):
        visitor.context = replace(context, wrapper=wrapper)
        return tree.visit(visitor)
