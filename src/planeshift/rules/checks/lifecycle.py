"""Executable-event lifecycles for PS106 and PS109: status properties with setters, and the
classes that have one (their own or inherited)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .names import Names
from .syntax import DEFS, self_path, statements


@dataclass(frozen=True, slots=True)
class StatusSetter:
    """A ``@<status>.setter`` of a class."""

    cls: str  # the class's qualname in its module (project-wide: module-qualified)
    prop: str  # the property: "status"
    line: int
    writes: tuple[str, ...]  # the fields it writes on self: "execution.status"


def status_setters(tree: ast.Module) -> tuple[StatusSetter, ...]:
    """Every ``@<status>.setter`` of the module's classes."""
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
            out.append(StatusSetter(stmt.cls, node.name, node.lineno, written))
    return tuple(out)


class Lifecycles:
    """Which classes have a status setter, their own or a base's, from each file's setters."""

    def __init__(self, modules: dict[str, str],
                 setters: Iterable[tuple[str, tuple[StatusSetter, ...]]], names: Names) -> None:
        """*modules*: file -> module; *setters*: (file, its status setters)."""
        self.names = names
        self.setters: dict[str, list[StatusSetter]] = {}
        for path, found in setters:
            for setter in found:
                qualified = f"{modules[path]}.{setter.cls}"
                self.setters.setdefault(qualified, []).append(replace(setter, cls=qualified))

    def owned_fields(self) -> dict[str, StatusSetter]:
        """Field -> its setter, for the nested fields (``execution.status``) exactly one status
        setter of the project writes: a write to one through any receiver is that setter's
        field."""
        owners: dict[str, dict[tuple[str, str], StatusSetter]] = {}
        for found in self.setters.values():
            for setter in found:
                for field in setter.writes:
                    if "." in field and field != setter.prop:
                        owners.setdefault(field, {})[(setter.cls, setter.prop)] = setter
        return {field: next(iter(o.values())) for field, o in owners.items() if len(o) == 1}

    def inherited(self, qualified: str) -> list[StatusSetter]:
        """The setters *qualified*'s bases define."""
        return [s for base in self.names.ancestors(qualified) for s in self.setters.get(base, ())]

    def of(self, qualified: str) -> list[StatusSetter]:
        """The setters of the class itself and of its bases."""
        return [*self.setters.get(qualified, ()), *self.inherited(qualified)]
