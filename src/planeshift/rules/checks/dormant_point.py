"""PS103: registrations on a point that no code ever emits, and the points themselves."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import qualname, statements

if TYPE_CHECKING:
    from ...project import MechanismFacts, ProjectFacts
    from ...types import Emission


@dataclass(frozen=True, slots=True)
class Constant:
    """``NAME = "value"`` (or an int) in a class body: a point enum's member, maybe."""

    name: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class ConstantClass:
    cls: str  # qualname in its module
    members: tuple[Constant, ...]


@dataclass(frozen=True, slots=True)
class ClassConstants:
    """What PS103 reads of one file: its classes holding public constants."""

    classes: tuple[ConstantClass, ...]


@register
class DormantPoint(Rule):
    """Flag registrations on a point or key that is never emitted.

    ## What it does
    Reports each registration whose point the pack declares dormant, or that no emission site
    in the scanned tree fires (inferred only when the dispatcher's own source is scanned and no
    emission passes a dynamic point). It also reports, at its definition and as **info**, each
    member of a mechanism's point enum that nothing emits, whether or not anyone registers on
    it yet: the pack's declared dormant points wherever the enum is in the tree, and the
    inferred ones only where the mechanism's emitters are in view (its dispatcher's source is
    scanned) and none of its emissions passes a variable point, which could be any member.

    ## Why is this bad?
    The handler never runs. A dormant point is usually compatibility vocabulary kept alive for
    one window (ADR-0120 P8: ARTIFACT_CREATED is public but has no emit site); a handler on it is
    dead code that looks alive.

    ## Example
    ```python
    bus.on(HookPoint.ARTIFACT_CREATED, index_artifact)
    ```

    ## Use instead
    Observe a point that is emitted, or remove the handler until the point has an owner.

    ## Fix safety
    Removing the handler changes nothing at run time, by definition; review whether another
    path was meant to call it.

    ## References
    ADR-0120 P8 (dormant values), D7 (dormant HookPoint values stay warned for one window).
    """

    code = "PS103"
    kind = "dormant_point"
    severity = "warning"
    message = "{handler} is registered on {point}, which {mechanism} never emits"
    FACT_WORDS = ("Enum",)
    FACTS = ClassConstants
    VALID = [
        """
        from demo.bus import EventBus, Point

        def log(**kw):
            pass

        EventBus().on(Point.AFTER, log)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus, Point

            def log(**kw):
                pass

            EventBus().on(Point.NEVER_EMITTED, log)
            """,
            line=6,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> ClassConstants | None:
        """Each class holding public constants, with them."""
        out = []
        for stmt in statements(tree):
            if isinstance(stmt.node, ast.ClassDef):
                members = tuple(
                    Constant(node.targets[0].id, node.lineno, node.col_offset)
                    for node in stmt.node.body
                    if isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, (str, int))
                    and not node.targets[0].id.startswith("_"))
                if members:
                    out.append(ConstantClass(qualname(stmt), members))
        return ClassConstants(tuple(out)) if out else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        for reg in project.registrations:
            dormant = project.mechanism(reg.mechanism).dormant_points
            if reg.point and set(reg.point.split("+")) <= dormant:
                yield self.on(reg, self.message.format(handler=reg.handler.expr, point=reg.point,
                                                       mechanism=reg.mechanism))
        yield from self.dormant_members(project)

    def dormant_members(self, project: ProjectFacts) -> Iterator[Hazard]:
        """Each member of a point enum that nothing emits, at its definition."""
        names = Names.of(project)
        enums = {(path, c.cls): c.members for path, found in self.facts(project)
                 for c in found.classes}
        for mech in project.mechanisms:
            declared = set(mech.model.dormant_points)
            emitted = {e.point for e in project.emissions if e.mechanism == mech.id and e.point}
            inferred = any(e.point for e in mech.model.emissions) and _emitters_in_view(
                mech, project, names)
            for path, cls in _point_enums(mech, names):
                for member in enums.get((path, cls), ()):
                    why = [*(["the pack declares it dormant"] if member.name in declared else []),
                           *(["no emission in the scanned tree fires it"]
                             if inferred and member.name not in emitted else [])]
                    if why:
                        yield self.at(path, member.line, member.col,
                                      f"{cls}.{member.name} is a point of {mech.id} that "
                                      f"nothing emits ({'; '.join(why)})", "info", mech.id)


def _point_enums(mech: MechanismFacts, names: Names) -> list[tuple[str, str]]:
    """(file, class qualname) of the mechanism's point enums defined in the tree, once each."""
    out: list[tuple[str, str]] = []
    for point in mech.model.points:
        found = names.class_of(point)
        if found is not None and (names.paths[found[0]], found[1]) not in out:
            out.append((names.paths[found[0]], found[1]))
    return out


def _emitters_in_view(mech: MechanismFacts, project: ProjectFacts, names: Names) -> bool:
    """The dispatcher's source is scanned and no emission outside it passes a variable point."""
    if not any(names.locate(cls) for cls in mech.classes):
        return False
    modules = {f.path: f.module for f in project.files}
    pointed = {e.name for e in mech.model.emissions if e.point is not None}
    for em in project.emissions:
        if em.mechanism == mech.id and em.point is None and em.api in pointed and not (
                _inside(em, modules.get(em.file, ""), mech.classes)):
            return False  # a variable point may be any member
    return True


def _inside(em: Emission, module: str, classes: tuple[str, ...]) -> bool:
    """The emission is in a method of one of the dispatcher classes (its own forwarding)."""
    parts = em.scope.split(".")
    return any(f"{module}.{'.'.join(parts[:i])}" in classes for i in range(1, len(parts)))
