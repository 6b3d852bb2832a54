"""PS113: a robust send whose returned errors nobody reads (Django's ``send_robust``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .syntax import statements

if TYPE_CHECKING:
    from ...project import ProjectFacts


@dataclass(frozen=True, slots=True)
class DroppedCalls:
    """The lines of a file's statements that call ``x.<...>_robust(...)`` and drop the result."""

    lines: tuple[int, ...]


@register
class UnreadRobustSend(Rule):
    """Flag a robust send whose result, the receivers' errors, is thrown away.

    ## What it does
    Reports an emission through a robust send (`send_robust`, `asend_robust`: each receiver's
    exception is caught and returned beside the results, `[(receiver, response_or_error)]`)
    made as a statement of its own, so that nothing reads what it returns.

    ## Why is this bad?
    A robust send is an error surface that returns its report (ADR-0120 D2: `return_report`);
    dropping the report makes every receiver's failure silent: no log line, no exception, no
    retry. The sender chose not to be stopped by a receiver, not to be blind to one.

    ## Example
    ```python
    order_paid.send_robust(sender=Order, order=order)
    ```

    ## Use instead
    ```python
    for receiver, result in order_paid.send_robust(sender=Order, order=order):
        if isinstance(result, Exception):
            logger.error("%r failed on order_paid", receiver, exc_info=result)
    ```

    ## Fix safety
    Reading the results changes nothing the receivers see; only what the sender does with a
    failure (log it, count it, retry) is new behaviour.

    ## References
    Django, `Signal.send_robust`; ADR-0120 D2 (the error surface is part of the dispatch
    policy), P4 (error hooks stored but never wired).
    """

    code = "PS113"
    kind = "unread_robust_send"
    severity = "warning"
    message = ("the errors {api} returns from {point}'s receivers are dropped: nobody reads the "
               "(receiver, error) pairs, so every failure is silent")
    FACT_WORDS = ("_robust",)
    FACTS = DroppedCalls
    VALID = [
        """
        import logging

        from demo.bus import Signal

        order_paid = Signal()


        def pay(order):
            for receiver, result in order_paid.send_robust(None, order=order):
                if isinstance(result, Exception):
                    logging.error("%r failed", receiver)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import Signal

            order_paid = Signal()


            def pay(order):
                order_paid.send_robust(None, order=order)
            """,
            line=7,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> DroppedCalls | None:
        lines = []
        for stmt in statements(tree):
            value = stmt.node.value if isinstance(stmt.node, ast.Expr) else None
            if isinstance(value, ast.Await):
                value = value.value
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr.endswith("_robust")):
                lines.append(value.lineno)
        return DroppedCalls(tuple(lines)) if lines else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        dropped = {(path, line) for path, facts in self.facts(project) for line in facts.lines}
        for emission in project.emissions:
            if emission.api.endswith("_robust") and (emission.file, emission.line) in dropped:
                yield self.at(emission.file, emission.line, emission.col, self.message.format(
                    api=emission.api, point=emission.point or "the signal"),
                    mechanism=emission.mechanism)
