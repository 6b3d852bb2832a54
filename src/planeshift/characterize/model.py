"""What ``planeshift characterize`` decides, as plain data: recipes, skips, cases, the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..types import AxisEvidence, ScanResult


@dataclass(frozen=True, slots=True)
class Recipe:
    """How the generated module builds one dispatcher, registers on it and fires one path.

    Expressions are Python source: *construct* is the dispatcher (a constructor call, or a fresh
    subclass when handlers live at class level), *register* a statement over ``dispatcher``,
    ``handler``, ``n`` and ``payload``, *fire* an expression over ``dispatcher`` and ``payload``.
    """

    mechanism: str
    dispatcher: str  # the class's qualified name
    entry: str  # "HookBus.emit", as the scan names the path
    file: str  # relative to the scan root
    line: int
    method: str
    is_async: bool
    imports: tuple[tuple[str, str], ...]  # (module, name) the expressions use
    construct: str
    construct_budget: str  # the same with ``<budget>=budget``; "" without a budget knob
    register: str
    fire: str
    payload: str
    budget: str | None = None  # the constructor keyword a deadline's budget comes from
    budget_note: str = ""  # why there is no budget knob, when a deadline has none
    notes: tuple[str, ...] = ()  # how the recipe was read, for the module's comments


@dataclass(frozen=True, slots=True)
class Skip:
    """A mechanism (entry "") or one of its dispatch paths left out, and why."""

    mechanism: str
    dispatcher: str
    entry: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"mechanism": self.mechanism, "dispatcher": self.dispatcher,
                "entry": self.entry or None, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Reading:
    """One axis of one path as the scan read it."""

    value: str  # "unknown" when the scan could not decide it
    evidence: tuple[AxisEvidence, ...] = ()


@dataclass(frozen=True, slots=True)
class Case:
    """One generated test: the axis and value it pins, its name and docstring, its body.

    A case with *skip* is generated marked ``pytest.mark.skip(reason=skip)``: the axis is
    unknown in the scan, or no scenario of the generator observes its value.
    """

    axis: str
    value: str
    name: str  # without the "test_" prefix and the subject
    summary: str  # the docstring's first line
    evidence: tuple[AxisEvidence, ...] = ()
    body: tuple[str, ...] = ()
    params: tuple[str, tuple[tuple[Any, ...], ...]] | None = None  # parametrize: names, rows
    skip: str | None = None


@dataclass(frozen=True, slots=True)
class PathPlan:
    """The tests of one dispatch path."""

    recipe: Recipe
    subject: str  # the Subject constant's name in the module ("HOOK_BUS_EMIT")
    cases: tuple[Case, ...]

    def to_json(self) -> dict[str, Any]:
        tests: dict[str, list[str]] = {}
        skipped: dict[str, list[str]] = {}
        for case in self.cases:
            target = skipped if case.skip else tests
            target.setdefault(case.axis, []).append(
                case.skip if case.skip else f"test_{self.subject.lower()}_{case.name}")
        return {"entry": self.recipe.entry, "file": self.recipe.file, "line": self.recipe.line,
                "tests": tests, "skipped_axes": skipped}


@dataclass(frozen=True, slots=True)
class Characterization:
    """The generated module's text and what went into it."""

    root: str
    packages: tuple[str, ...]  # the import packages the module guards
    plans: tuple[PathPlan, ...]
    skipped: tuple[Skip, ...]
    module: str = ""
    scan: ScanResult | None = field(default=None, compare=False, repr=False)

    @property
    def tests(self) -> int:
        """The tests pytest collects and runs (a parametrized case counts once per row)."""
        return sum(len(c.params[1]) if c.params else 1
                   for p in self.plans for c in p.cases if not c.skip)

    def to_json(self) -> dict[str, Any]:
        by_mech: dict[str, dict[str, Any]] = {}
        for plan in self.plans:
            entry = by_mech.setdefault(plan.recipe.mechanism, {
                "mechanism": plan.recipe.mechanism, "dispatcher": plan.recipe.dispatcher,
                "paths": []})
            entry["paths"].append(plan.to_json())
        return {
            "schema": "planeshift.characterize/1",
            "root": self.root,
            "packages": list(self.packages),
            "summary": {"mechanisms": len(by_mech), "paths": len(self.plans),
                        "tests": self.tests,
                        "skipped_cases": sum(1 for p in self.plans for c in p.cases if c.skip),
                        "skipped": len(self.skipped)},
            "characterized": list(by_mech.values()),
            "skipped": [s.to_json() for s in self.skipped],
            # files the scan could not analyse: a dispatcher in one of them is not in the module
            "errors": [e.to_json() for e in self.scan.errors] if self.scan is not None else [],
        }
