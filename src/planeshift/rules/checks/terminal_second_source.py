"""PS110: a terminal fact emitted outside the owner's transition path (ADR-0124 D4)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import statements

if TYPE_CHECKING:
    from ...project import ProjectFacts


@dataclass(frozen=True, slots=True)
class Branch:
    """Lines of a function that run on failure: an except clause, or the body of ``if not x``."""

    first: int
    last: int
    why: str  # "except", or the test's source (cut at 40 characters)


@dataclass(frozen=True, slots=True)
class FailureBranches:
    """What PS110 reads of one file."""

    branches: tuple[Branch, ...]


@register
class TerminalSecondSource(Rule):
    """Flag emissions of terminal callbacks that do not come from the owner's transition path.

    ## What it does
    For a mechanism whose pack names its one public source (`terminal: source:`, the functions
    of the owner's transition path, e.g. the lifecycle service's terminal transition), reports
    every emission of that mechanism from any other function. It is an **error** when the
    emission is a fallback: inside an `except` clause, or in a branch taken when something
    failed or is absent (`if not ok:`, `if x is None:`), the shape of "the owner's update
    failed, so emit directly"; a **warning** otherwise.

    ## Why is this bad?
    ADR-0124: one logical completion must reach the outside world from exactly one public
    source. A second source means silent double delivery (a consumer bills or retries twice)
    when both fire, and its fallback shape hides the owner's failure: "It cannot fall back to
    standalone v1, because a fallback is exactly how one logical completion acquires a second
    public source" (D4). Neither failure mode raises anywhere; both are invisible at the source.

    ## Example
    ```python
    try:
        await lifecycle.update_status("invocation", run_id, new_status="completed")
    except Exception:
        await TERMINAL_CALLBACKS.emit(Envelope(event_id=str(uuid4()), ...))  # second source
    ```

    ## Use instead
    Let the owner's transition be the only emitter; when its update fails, stage typed
    attention (or a durable outbox intent) and emit nothing, so the transition's retry is the
    one delivery:
    ```python
    try:
        await lifecycle.update_status("invocation", run_id, new_status="completed")
    except Exception:
        await attention.stage(run_id, reason="terminal transition failed")
    ```

    ## Fix safety
    Not automatic: removing a fallback can turn a double delivery into a non-delivery unless
    the owner's path retries; ADR-0124 D6's race matrix is the gate.

    ## References
    ADR-0124 D4 (the selection is validated inside the owner transaction, never inferred; no
    fallback), D6 ("one and only one selected public source"); ADR-0120 D5.
    """

    code = "PS110"
    kind = "terminal_second_source"
    severity = "warning"
    message = ("{scope} emits {mechanism} outside the owner's transition path ({source}): a second "
               "public source for one logical completion")
    FACT_WORDS = ("except", "if ")
    FACTS = FailureBranches
    VALID = [
        """
        from demo.bus import finish

        async def close(transition_id):
            await finish(transition_id, "completed")  # the owner emits, once
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import OUTCOMES, Outcome, finish

            async def close(transition_id):
                try:
                    await finish(transition_id, "completed")
                except Exception:
                    await OUTCOMES.emit(Outcome(event_id=transition_id, status="completed"))
            """,
            line=7,
            severity="error",
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> FailureBranches | None:
        """Each ``except`` clause and each failure branch (the body of ``if not x`` / ``if x is
        None`` / ``if x is False``) inside a function."""
        ranges: list[Branch] = []
        for stmt in statements(tree):
            if not stmt.function:
                continue
            node = stmt.node
            kind = type(node)
            if kind is ast.Try or kind is ast.TryStar:
                ranges.extend(Branch(h.lineno, h.end_lineno or h.lineno, "except")
                              for h in node.handlers)
            elif kind is ast.If and _failure_test(node.test):
                ranges.append(Branch(node.body[0].lineno, node.body[-1].end_lineno or node.lineno,
                                     ast.unparse(node.test)[:40]))
        return FailureBranches(tuple(ranges)) if ranges else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        modules = {f.path: f.module for f in project.files}
        ranges = {path: found.branches for path, found in self.facts(project)}
        for mech in project.mechanisms:
            terminal = mech.model.terminal
            if terminal is None or not terminal.source:
                continue
            sources = {names.follow(s) for s in terminal.source}
            shown = ", ".join(s.rsplit(".", 2)[-2] + "." + s.rsplit(".", 1)[-1] for s in sources)
            for em in project.emissions:
                where = f"{modules.get(em.file, '')}.{em.scope}"
                if em.mechanism != mech.id or any(where == s or where.startswith(f"{s}.")
                                                  for s in sources):
                    continue
                branch = next((b.why for b in ranges.get(em.file, ())
                               if b.first <= em.line <= b.last), None)
                message = self.message.format(scope=em.scope or "module code", mechanism=mech.id,
                                              source=shown)
                if branch is not None:
                    fallback = ("in an except clause" if branch == "except"
                                else f"in the branch of `if {branch}`")
                    message += (f"; it is a fallback ({fallback}): when the owner's update fails "
                                "this emits anyway (ADR-0124 D4)")
                yield self.at(em.file, em.line, em.col, message,
                              "error" if branch is not None else None, mech.id)


def _failure_test(test: ast.expr) -> bool:
    """``not x``, ``x is None``, ``x is False``, ``x == False``: a branch for failure or absence."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Is, ast.Eq)):
        right = test.comparators[0]
        return isinstance(right, ast.Constant) and right.value in (None, False)
    return False
