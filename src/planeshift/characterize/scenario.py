"""What every case builder shares: how a scenario and its assertions are written."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .model import Case
from .policy import Policy, Unknown

S = "SUBJECT"  # replaced by the Subject constant's name when the module is rendered
BUDGET = 0.2  # seconds: the deadline the deadline tests give the dispatcher
Build = Callable[[], Iterator[Case]]


def lit(value: object) -> str:
    """Python source for a str, a list or a set of str, with double quotes (ruff's style)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, set):
        return "{" + ", ".join(lit(v) for v in sorted(value)) + "}"
    return repr(value)


def observe(*specs: str, **options: str) -> str:
    args = ", ".join([S, *specs, *(f"{k}={v}" for k, v in options.items())])
    return f"seen = observe({args})"


def trace_is(policy: Policy, expected: list[str], end: str = "emit returned") -> list[str]:
    """The trace in this order (sequential), or these entries in any order (concurrent)."""
    if policy.sequential:
        return [f"assert seen.trace == {lit([*expected, end])}"]
    return [f"assert sorted(seen.trace[:-1]) == {lit(sorted(expected))}",
            f"assert seen.trace[-1] == {lit(end)}"]


class CaseBase:
    """A path's policy, and the way its cases are named, documented and skipped."""

    def __init__(self, policy: Policy, budget: str | None, budget_note: str) -> None:
        self.p = policy
        self.budget, self.budget_note = budget, budget_note

    def skipped(self, axis: str, reason: str, cause: str | None = None) -> Case:
        raw = self.p.raw(axis) if axis in self.p.readings else "derived"
        return Case(axis, raw, f"{axis}_not_pinned", f"{axis} is not pinned: {reason}",
                    self.p.evidence(cause or axis), skip=reason)

    def case(self, axis: str, name: str, summary: str, body: list[str],
             also: tuple[str, ...] = (), *, value: str | None = None,
             params: tuple[str, tuple[tuple[Any, ...], ...]] | None = None) -> Case:
        """A case named ``<axis>_<value>_<name>``; *value* names the value pinned where the
        reading holds one per kind of handler (or the axis is derived), *also* the other axes
        whose evidence the docstring cites."""
        value = value or self.p.raw(axis)
        return Case(axis, value, f"{axis}_{value}_{name}", summary,
                    self.p.evidence(axis, *also), tuple(body), params)

    def _inline(self) -> bool:
        try:
            return self.p.declared_async() == "inline"
        except Unknown:
            return False

