"""Codemod ``registration``: each classified registration declares its plane at the call site."""

from __future__ import annotations

from typing import ClassVar

from ..rules.discard_annotation import is_recorded
from ..types import Registration
from .base import MOVED, Codemod, Example, Item, Plan, Source, register
from .discard_gate import gate_decision
from .facts import MigrateFacts, handler_name
from .locate import handler_node
from .templates import Template

CALLABLE_KINDS = ("function", "method", "lambda", "partial", "class", "several", "external")


@register
class RegistrationCodemod(Codemod):
    """Rewrite each classified registration as a typed registration through its adapter.

    ## What it does
    The handler argument of every registration the scan classified with high (or medium)
    confidence becomes the pack's template for its plane: an interceptor an
    `InterceptorRegistration(name, stage, handler, order)`, a subscriber a `Subscription` under the
    mechanism's named dispatch policy, a delivery sink or commit participant a `SinkRegistration`
    on its ADR-0120 D5 port; each is handed to the legacy API through an adapter
    (`as_interceptor`, `as_subscriber`, `as_sink`) from the kernel module's `adapters`. Imports
    are added with LibCST's `AddImportsVisitor`.

    ## Why
    ADR-0120: "the semantic difference is hidden inside class names and hard-coded branches
    rather than declared at the call site". The scan knows each registration's plane and why;
    the rewrite writes it into the code, so when a dispatcher moves onto its kernel the adapter
    changes and the call sites do not move again.

    ## Example
    ```python
    bus.on(Point.BEFORE, guard)
    ```
    becomes
    ```python
    bus.on(Point.BEFORE, as_interceptor(InterceptorRegistration(name="app.guard", stage="BEFORE", handler=guard, order=0)))
    ```

    ## What it leaves alone
    `needs_review` and low-confidence registrations; mechanisms whose pack has no `migrate:`
    section, or no template for the plane; settings-file registrations (see `argv`); decorator
    registrations (there is no handler expression to wrap); handlers the scan cannot show to be
    callable (a parameter or attribute that may be None: the typed registration validates it);
    interceptors whose point is dynamic (no stage); a template name the module already binds to
    something else. Each is listed as not migrated, with its reason.

    ## Behaviour
    Unchanged: the adapters hand the dispatcher the handler object itself, so identity,
    `is_coro_func` and by-return-value classification are what they were; the handler
    expression is still evaluated once, in the same order. `order` is 0 everywhere, so
    registration order still decides, as it does today.

    ## References
    ADR-0120 D1 (planes), D2 (InterceptorRegistration), D3, D5 (ports), Phase 1.
    """

    id = "registration"
    order = 10
    keeps_lines = True
    DESCRIPTION = "Registrations become typed registrations (InterceptorRegistration, " \
                  "Subscription, SinkRegistration) through the kernels' adapters."
    EXAMPLES: ClassVar[list[Example]] = [Example(
        before='''
            from demo.bus import EventBus, Point


            def guard(**payload):
                return None


            def audit(**payload):
                print("audit", payload)


            bus = EventBus()
            bus.on(Point.BEFORE, guard)  # the guard runs first
            bus.subscribe(audit)
            ''',
        after='''
            from demo.bus import EventBus, Point
            from planeshift.kernels import InterceptorRegistration
            from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber


            def guard(**payload):
                return None


            def audit(**payload):
                print("audit", payload)


            bus = EventBus()
            bus.on(Point.BEFORE, as_interceptor(InterceptorRegistration(name="app.guard", stage="BEFORE", handler=guard, order=0)))  # the guard runs first
            bus.subscribe(as_subscriber(Subscription(name="app.audit", policy="demo_bus", handler=audit)))
            ''')]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        for reg in facts.scan.registrations:
            if not facts.in_scope(reg.file) or reg.via == "config":
                continue  # a settings-file entry is no call site (codemod argv handles those)
            if facts.looks_migrated(reg):
                plan.already += 1
                continue
            template = facts.template(reg.mechanism, reg.plane)
            reason = _refusal(reg, facts, template) or _undecided_discard(reg, facts)
            if reason:
                plan.refuse(cls.id, reg, reason)
            else:
                plan.add(Item(reg.file, reg.line, reg.col, reg, template))
        return plan

    def prepare(self, item: Item, source: Source) -> None:
        reg, template = item.registration, item.data
        assert reg is not None and isinstance(template, Template) and self.facts is not None
        found = source.locator.at(reg.line, reg.col, getattr(reg, "end_line", None),
                                  getattr(reg, "end_col", None))
        if found is None:
            return self.refuse(item, f"no registering call starts at {reg.line}:{reg.col} "
                                     "(did the file change since the scan?)")
        try:
            handler = handler_node(found, reg.handler.expr, reg.api.rsplit(".", 1)[-1],
                                   source.code)
        except LookupError as exc:
            return self.refuse(item, f"ambiguous handler: {exc}")
        if handler is None:
            return self.refuse(item, f"the handler {reg.handler.expr} is not an argument, list "
                                     "element, mapping value or assigned value of this site")
        if template.handler_in(handler, source.names) is not None:
            self.facts.rewritten.add(reg.key)
            return self.already(item)
        taken = [n for n, m in template.imports if not source.names.free(n, f"{m}.{n}")]
        if taken:
            return self.refuse(item, f"{taken[0]!r} already names something else in this module;"
                                     " importing the adapter's would shadow it")
        values: dict[str, str | int] = {"name": handler_name(reg), "stage": reg.point or "",
                                        "order": 0, "policy": self._policy(reg)}
        if "\n" in template.text:  # a template over several lines moves the lines below
            self.context.scratch[MOVED] = True
        self.edit(handler, found.path(handler), lambda node: template.render(node, values))
        for name, module in template.imports:
            self.add_import(f"{module}.{name}")
        self.facts.rewritten.add(reg.key)
        detail = f"stage {reg.point}" if reg.plane == "interceptor" else (
            f"policy {values['policy']}" if reg.plane.endswith("subscriber") else "D5 port")
        return self.done(item, f"{reg.plane} ({detail})")

    def _policy(self, reg: Registration) -> str:
        assert self.facts is not None
        mech = self.facts.mechanisms[reg.mechanism][0]
        return (mech.migrate.policy if mech.migrate else "") or mech.id


def _undecided_discard(reg: Registration, facts: MigrateFacts) -> str:
    """A DISCARD_UNAWAITED registration is rewritten only with its gate decided in the same run
    (or before): behind the adapter, a later scan no longer sees what its handler returns."""
    if "discard_unawaited" not in reg.flags or is_recorded(facts.lines(reg.file), reg.line):
        return ""
    if not facts.runs("discard_gate"):
        return "flagged discard_unawaited and not yet recorded: run discard_gate in the same " \
               "run (a later scan cannot see the handler behind the adapter)"
    decision, detail = gate_decision(reg, facts)
    if decision is None:
        return f"flagged discard_unawaited, and discard_gate cannot record it ({detail})"
    return ""


def _refusal(reg: Registration, facts: MigrateFacts, template: Template | None) -> str:
    """Why *reg* is not rewritten, or "" when it is."""
    mech = facts.mechanisms[reg.mechanism][0]
    if reg.plane == "needs_review":
        return f"needs_review: {_why(reg)}"
    if reg.confidence == "low":
        return f"low confidence: {_why(reg)}"
    if mech.migrate is None:
        return f"its pack declares no migrate: section for mechanism {reg.mechanism}"
    if template is None:
        return f"the pack has no {reg.plane} template for mechanism {reg.mechanism}"
    if reg.via == "decorator":
        return "a decorator registration: its handler is the decorated function, not an " \
               "expression the template can wrap"
    kind = reg.handler.kind
    if kind not in CALLABLE_KINDS and not (kind == "instance" and reg.handler.qualname
                                           and reg.handler.qualname.endswith(".__call__")):
        return f"the handler {reg.handler.expr} is not known to be callable (kind {kind}; it " \
               "may be None at run time), and a typed registration requires a callable"
    if reg.plane == "interceptor" and not reg.point:
        return "an interceptor with a dynamic point has no stage to declare"
    return ""


def _why(reg: Registration) -> str:
    """The scan's first piece of evidence, which says why it could not decide."""
    text = reg.evidence[0] if reg.evidence else reg.rule
    text = text.split(" -> needs_review: ", 1)[-1]
    return text if len(text) <= 200 else text[:197] + "..."
