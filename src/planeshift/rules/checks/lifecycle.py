"""Executable-event lifecycles for PS106 and PS109: status properties with setters, and the
classes that have one (their own or inherited)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .names import Names
from .syntax import DEFS, self_path, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts


def status_setters(tree: ast.Module) -> tuple[tuple[str, str, int, tuple[str, ...]], ...]:
    """(class qualname, property, line, fields it writes on self) per ``@<status>.setter``."""
    out = []
    for stmt in statements(tree):
        node = stmt.node
        if not (isinstance(node, DEFS) and stmt.cls and stmt.scope == stmt.cls
                and "status" in node.name):
            continue
        if any(isinstance(d, ast.Attribute) and d.attr == "setter" and isinstance(d.value, ast.Name)
               and d.value.id == node.name for d in node.decorator_list):
            written = tuple(dict.fromkeys(
                path for inner in ast.walk(node) if isinstance(inner, ast.Assign)
                for target in inner.targets for path in [self_path(target)] if path))
            out.append((stmt.cls, node.name, node.lineno, written))
    return tuple(out)


class Lifecycles:
    """Which classes have a status setter, their own or a base's, from each file's setters."""

    def __init__(self, project: ProjectFacts, code: str, names: Names) -> None:
        self.names = names
        modules = {f.path: f.module for f in project.files}
        self.setters: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
        for path, (setters, *_) in project.rule_facts(code):
            for cls, prop, _, written in setters:
                qualified = f"{modules[path]}.{cls}"
                self.setters.setdefault(qualified, []).append((qualified, prop, written))

    def owned_fields(self) -> dict[str, tuple[str, str]]:
        """Field -> (class, property) for the nested fields (``execution.status``) exactly one
        status setter of the project writes: a write to one through any receiver is that
        setter's field."""
        owners: dict[str, set[tuple[str, str]]] = {}
        for found in self.setters.values():
            for cls, prop, fields in found:
                for field in fields:
                    if "." in field and field != prop:
                        owners.setdefault(field, set()).add((cls, prop))
        return {field: next(iter(o)) for field, o in owners.items() if len(o) == 1}

    def inherited(self, qualified: str) -> list[tuple[str, str, tuple[str, ...]]]:
        """(defining class, property, fields) of the setters *qualified*'s bases define."""
        return [s for base in self.names.ancestors(qualified) for s in self.setters.get(base, ())]

    def of(self, qualified: str) -> list[tuple[str, str, tuple[str, ...]]]:
        """The setters of the class itself and of its bases."""
        return [*self.setters.get(qualified, ()), *self.inherited(qualified)]
