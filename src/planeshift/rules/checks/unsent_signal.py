"""PS114: a signal defined in the project that is connected but never sent, or sent but never
connected (a signal instance is its own point: Django, blinker)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .syntax import dotted

if TYPE_CHECKING:
    from ...project import ProjectFacts

_MADE = re.compile(r"[Ss]ignal\s*\(")
SIGNAL_MAKERS = ("Signal", "ModelSignal", "NamedSignal", "signal")


@dataclass(frozen=True, slots=True)
class SignalDef:
    """``paid = Signal()`` at module level or in a class body: the name it is bound to."""

    name: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class SignalDefs:
    """What PS114 reads of one file."""

    defined: tuple[SignalDef, ...]


@register
class UnsentSignal(Rule):
    """Flag a signal the project defines and connects to but never sends, or sends and never
    connects to.

    ## What it does
    For each signal instance the scanned tree defines (`order_paid = Signal()`,
    `saved = signal("saved")`, `ns.signal("x")`, at module level or as a class attribute) on a
    mechanism whose point is the signal itself, compares the receivers the tree connects to it
    with the places that send it: connected but never sent is a **warning** (the receivers never
    run); sent but never connected is **info** (a library may define signals for others to
    receive, so that may be the point).

    ## Why is this bad?
    A receiver on a signal nothing sends is dead code that looks alive, the signal-world twin of
    a dormant hook point (PS103); a signal nobody receives is an announcement into the void, worth
    knowing about before a migration counts on it.

    ## Example
    ```python
    order_paid = Signal()

    @receiver(order_paid)
    def ship(sender, order, **kwargs):
        ...
    # ... and no order_paid.send(...) anywhere
    ```

    ## Use instead
    Send it where the event happens (`order_paid.send(sender=Order, order=order)`), or remove the
    signal and its receivers.

    ## Fix safety
    Adding the send makes the receivers run, which is new behaviour: review them first.

    ## References
    ADR-0120 P8 (a public point with no emit site), D1 (what a registration is worth is what runs).
    """

    code = "PS114"
    kind = "unsent_signal"
    severity = "warning"
    message = "{name} is connected to ({n} receivers) but nothing in the project sends it"
    FACT_WORDS = ("ignal(",)
    FACTS = SignalDefs
    VALID = [
        """
        from demo.bus import Signal

        order_shipped = Signal()


        def notify(sender, **kw):
            pass


        order_shipped.connect(notify)


        def ship(order):
            order_shipped.send(None, order=order)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import Signal

            order_shipped = Signal()


            def notify(sender, **kw):
                pass


            order_shipped.connect(notify)
            """,
            line=3,
        ),
        Invalid(
            """
            from demo.bus import Signal

            order_refunded = Signal()


            def refund(order):
                order_refunded.send(None, order=order)
            """,
            line=3,
            severity="info",
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> SignalDefs | None:
        if not _MADE.search(text):
            return None
        found: list[SignalDef] = []
        bodies = [tree.body, *(n.body for n in tree.body if isinstance(n, ast.ClassDef))]
        for body in bodies:
            for stmt in body:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                        and isinstance(stmt.value, ast.Call)):
                    continue
                maker = (dotted(stmt.value.func) or "").rsplit(".", 1)[-1]
                if maker in SIGNAL_MAKERS:
                    found.append(SignalDef(stmt.targets[0].id, stmt.lineno, stmt.col_offset))
        return SignalDefs(tuple(found)) if found else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        signal_mechanisms = {m.id for m in project.mechanisms if any(
            f.point is not None and f.point.receiver for f in m.model.registrations)}
        if not signal_mechanisms:
            return
        connected: dict[str, list] = {}
        for reg in project.registrations:
            if reg.mechanism in signal_mechanisms and reg.point:
                connected.setdefault(reg.point, []).append(reg)
        sent = {e.point for e in project.emissions if e.mechanism in signal_mechanisms}
        for path, facts in self.facts(project):
            for made in facts.defined:
                receivers = connected.get(made.name, [])
                if receivers and made.name not in sent:
                    yield self.at(path, made.line, made.col, self.message.format(
                        name=made.name, n=len(receivers)), mechanism=receivers[0].mechanism,
                        about=tuple(receivers))
                elif not receivers and made.name in sent:
                    yield self.at(path, made.line, made.col, f"{made.name} is sent, but nothing "
                                  "in the project connects to it (its receivers may live in "
                                  "another project)", "info")
