"""Function definitions by qualified name, and the statements a function runs itself.

A function's own statements exclude those of the functions, lambdas and classes it defines:
a ``raise`` in a nested function is not the outer function's. Each statement comes with its
ancestors inside the function, so a codemod knows whether it sits in a ``try`` or ``with``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from .statements import Entry, cst_statements


@dataclass(frozen=True, slots=True)
class Definition:
    node: cst.FunctionDef
    ancestors: tuple[cst.CSTNode, ...]  # from the module down, excluding the definition
    qualname: str  # within its module: Class.method, outer.inner


def definitions(module: cst.Module) -> Iterator[Definition]:
    for entry in cst_statements(module):
        if isinstance(entry.node, cst.FunctionDef):
            names = [a.name.value for a in entry.ancestors
                     if isinstance(a, (cst.ClassDef, cst.FunctionDef))]
            yield Definition(entry.node, entry.ancestors,
                             ".".join([*names, entry.node.name.value]))


def definition(module: cst.Module, qualname: str) -> Definition | None:
    return next((d for d in definitions(module) if d.qualname == qualname), None)


def own_statements(func: cst.FunctionDef, ancestors: tuple[cst.CSTNode, ...]) -> Iterator[Entry]:
    """The function's own statements (not those of nested definitions), with their ancestors
    from the module down."""
    inner = cst.Module(body=[func])
    for entry in cst_statements(inner):
        path = entry.ancestors[1:]  # drop the stand-in module
        if not path:
            continue  # the function itself
        if any(isinstance(a, (cst.FunctionDef, cst.ClassDef)) for a in path[1:]):
            continue  # inside a nested definition
        yield Entry(entry.node, entry.unit, (*ancestors, *path))


def is_generator(func: cst.FunctionDef) -> bool:
    """Does the function itself ``yield`` (a ``return value`` means something else there)?"""
    finder = _YieldFinder()
    func.body.visit(finder)
    return finder.found


class _YieldFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.found = True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False
