"""Codemod ``registration``: each classified registration declares its plane at the call site."""

from __future__ import annotations

import ast
from typing import ClassVar

from ..analyzer.extract.pass_through import pass_through
from ..types import Registration
from .base import MOVED, Codemod, Example, Item, Plan, Source, register
from .facts import MigrateFacts
from .readers import stage, unnamed, unread
from .sites import Site, by_site, differences, entries, handler_from_table, site_of
from .support.locate import handler_node
from .support.names import top_level
from .support.templates import OPTIONAL, Template

CALLABLE_KINDS = ("function", "method", "lambda", "partial", "class", "several", "external")


@register
class RegistrationCodemod(Codemod):
    """Rewrite each classified registration as a typed registration its dispatcher reads.

    ## What it does
    The handler argument of every registration the scan classified with high (or medium)
    confidence becomes the pack's template for its plane: an interceptor an
    `InterceptorRegistration(name, stage, handler)`, a subscriber a `Subscription` under the
    mechanism's named dispatch policy, a delivery sink or commit participant a `SinkRegistration`
    on its ADR-0120 D5 port. With the packs' default (`migrate.declarations: read`) only a
    registration whose dispatcher reads declarations is rewritten: one whose owner runs on the
    kernels after `migrate --owners`, its façade unwrapping the typed registration
    (`owner_declarations`); the typed registration is handed to it as it is. Any other is left
    as it is and listed as `not rewritten: <dispatcher> does not read declarations until its
    owner runs on the kernels (migrate --owners)`. A pack with `declarations: always` rewrites
    every classified registration through its adapters (`as_interceptor`, `as_subscriber`,
    `as_sink`, which hand the legacy API the bare handler), as its templates say. No `order` is
    written (registration order decides); a stage is spelled one way (`TOOL_PRE`, not
    `HookPoint.TOOL_PRE` or `"tool_pre:*"`). The
    `name` is the handler's qualified name, or for a lambda where it is registered
    (`app.Service.start.<lambda@BEFORE>`; `#2`, `#3` tell apart two made-up names in one
    module), or for a closure a factory made the variable where it is registered, never a line
    number. A handler the scan cannot show to be callable (a
    parameter or attribute that may be None, `h if c else None`, a call of a function that
    returns None on a path, a value of unknown kind) is rewritten in the optional form,
    `optional(h, lambda handler: <the template with handler=handler>)`, with `optional` from the
    same `adapters`: None is handed to the dispatcher as it is, anything else through its typed
    registration.

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
    bus.on(
        Point.BEFORE,
        as_interceptor(
            InterceptorRegistration(name="app.guard", stage="BEFORE", handler=guard, order=0)
        ),
    )
    ```
    laid out as the target's formatter lays out a line over its line length (read from its
    ruff, black or isort configuration; 88 by default), in its quotes; each import it needs is
    added in its isort section, in sorted position.

    ## What it leaves alone
    `needs_review` and low-confidence registrations; mechanisms whose pack has no `migrate:`
    section, or no template for the plane; settings-file registrations (see `argv`); decorator
    registrations (there is no handler expression to wrap); interceptors whose point is dynamic
    (no stage). A template name (or `optional`) the module binds to something else (a
    definition, an assignment, a `global` rebinding), or any name when a star import could
    rebind it, is imported under a private alias (`as_subscriber as _as_subscriber`). A
    call that registers one handler expression for every entry of a literal table
    (`for point in (A, B): bus.on(point, h)`) has it rewritten once, for all entries, and
    not at all when they would need different rewrites (an interceptor on several stages,
    entries of different planes) or one entry is not migrated, or when each entry's own handler
    reaches the call through a loop variable. Each is listed as not migrated, with its reason.

    ## Behaviour
    Unchanged: the owner's façade (or an adapter) hands the dispatcher the handler object
    itself, so identity, `is_coro_func` and by-return-value classification are what they were;
    the handler expression is still evaluated once, in the same order. With no order declared
    the owner runs its registrations in registration order, as today. The optional form's one
    difference: a non-None value that is not callable now raises `PolicyError` at registration
    (the typed registration validates it) instead of failing later, when it is dispatched.

    ## References
    ADR-0120 D1 (planes), D2 (InterceptorRegistration), D3, D5 (ports), Phase 1.
    """

    id = "registration"
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
            from planeshift.kernels import InterceptorRegistration
            from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber

            from demo.bus import EventBus, Point


            def guard(**payload):
                return None


            def audit(**payload):
                print("audit", payload)


            bus = EventBus()
            bus.on(
                Point.BEFORE,
                as_interceptor(
                    InterceptorRegistration(
                        name="app.guard", stage="BEFORE", handler=guard, order=0
                    )
                ),
            )  # the guard runs first
            bus.subscribe(
                as_subscriber(Subscription(name="app.audit", policy="demo_bus", handler=audit))
            )
            '''),
        Example(
            before='''
            from demo.bus import EventBus


            def wire(bus: EventBus, on_event=None):
                bus.subscribe(on_event)  # None when the caller has no listener
            ''',
            after='''
            from planeshift.kernels.adapters import Subscription, as_subscriber, optional

            from demo.bus import EventBus


            def wire(bus: EventBus, on_event=None):
                bus.subscribe(
                    optional(
                        on_event,
                        lambda handler: as_subscriber(
                            Subscription(
                                name="app.wire.on_event", policy="demo_bus", handler=handler
                            )
                        ),
                    )
                )  # None when the caller has no listener
            ''')]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        calls = (r for r in facts.scan.registrations if facts.in_scope(r.file)
                 and r.via != "config")  # a settings-file entry is no call site (argv's)
        for site in by_site(calls):
            todo: list[tuple[Registration, Template | None, str]] = []
            for reg in site:
                if facts.looks_migrated(reg):
                    plan.already += 1
                    continue
                template = facts.template(reg.mechanism, reg.plane)
                todo.append((reg, template, _refusal(reg, facts, template) or unread(reg, facts)
                             or unnamed(reg, facts)))
            shared = _shared_refusal(todo, facts)
            for reg, template, reason in todo:
                if reason or shared:
                    plan.refuse(cls.id, reg, reason or shared)
                else:
                    optional = any(maybe_not_callable(r) for r, _, _ in todo)
                    plan.add(Item(reg.file, reg.line, reg.col, reg,
                                  (template, len(todo), optional)))
        return plan

    def prepare(self, item: Item, source: Source) -> None:
        """One rewrite per site: the registrations a call makes for several table entries share
        the outcome of the first."""
        reg = item.registration
        assert reg is not None and self.facts is not None
        sites: dict[Site, tuple[str, str]] = self.__dict__.setdefault("_sites", {})
        site = site_of(reg)
        if site not in sites:
            template, count, optional = item.data
            sites[site] = self._rewrite(reg, template, count, optional, source)
        outcome, text = sites[site]
        if outcome == "refused":
            return self.refuse(item, text)
        self.facts.rewritten.add(reg.key)
        return self.done(item, text) if outcome == "done" else self.already(item)

    def _rewrite(self, reg: Registration, template: Template, count: int, optional: bool,
                 source: Source) -> tuple[str, str]:
        """("done", action), ("already", ""), or ("refused", reason)."""
        assert self.facts is not None
        resolved = reg.handler.qualname is not None or reg.handler.kind != "unknown"
        why = pass_through(reg.api.rsplit(".", 1)[-1], reg.handler.expr, resolved, reg.scope,
                           source.ast)
        if why:
            return "refused", why
        found = source.locator.at(reg.line, reg.col, reg.end_line or None, reg.end_col or None)
        if found is None:
            return "refused", (f"no registering call starts at {reg.line}:{reg.col} (did the "
                               "file change since the scan?)")
        try:
            handler = handler_node(found, reg.handler.expr, reg.api.rsplit(".", 1)[-1],
                                   source.code)
        except LookupError as exc:
            return "refused", f"ambiguous handler: {exc}"
        if handler is None:
            return "refused", _not_found(reg)
        if template.handler_in(handler, source.names) is not None:
            return "already", ""
        imports = list(template.imports)
        if optional:
            adapters = template.adapters
            if adapters is None:
                return "refused", (f"the handler {reg.handler.expr} may be None at run time, and "
                                   "the template's outermost call is no adapter beside which "
                                   f"{OPTIONAL} could pass None through")
            imports.append((OPTIONAL, adapters))
        aliases = self._aliases(imports, source)
        values = template_values(reg, self.facts)
        if "\n" in template.text:  # a template over several lines moves the lines below
            self.context.scratch[MOVED] = True
        quote = self.facts.style.quote
        if optional:
            parameter = template.parameter()
            spelled = aliases.get(OPTIONAL, OPTIONAL)
            self.edit(handler, found.path(handler), lambda node: template.render_optional(
                node, values, parameter, spelled, quote, aliases))
        else:
            self.edit(handler, found.path(handler),
                      lambda node: template.render(node, values, quote, aliases))
        for name, module in imports:
            self.add_import(f"{module}.{name}", aliases.get(name))
        detail = f"stage {reg.point}" if reg.plane == "interceptor" else (
            f"policy {values['policy']}" if reg.plane.endswith("subscriber") else "D5 port")
        shared = f"; one rewrite for the {count} registrations of this call" if count > 1 else ""
        through = (f"; through {OPTIONAL}, as the handler may be None at run time (None is "
                   "handed on as before)") if optional else ""
        return "done", f"{reg.plane} ({detail}){shared}{through}"


    def _aliases(self, imports: list[tuple[str, str]], source: Source) -> dict[str, str]:
        """The names to import under another name in this file (the same for every rewrite
        in it): one the module binds to something else (a definition, an assignment, a
        ``global`` rebinding), or any name when a star import could rebind it."""
        chosen: dict[str, str] = self.__dict__.setdefault("_chosen", {})
        star = star_import(source)
        for name, module in imports:
            if name in chosen:
                continue
            if source.names.free(name, f"{module}.{name}") and not (
                    star and source.names.imports.get(name) != f"{module}.{name}"):
                chosen[name] = name
                continue
            alias, n = f"_{name}", 1
            while not source.names.free(alias, f"{module}.{name}") or alias in chosen.values():
                alias, n = f"_{name}_{n}", n + 1
            chosen[name] = alias
        return {n: a for n, a in chosen.items() if a != n}


def star_import(source: Source) -> bool:
    """Does the module star-import anything at its top level (``from .helpers import *``),
    which may bind any public name, after the imports a rewrite adds?"""
    if "*" not in source.text:
        return False
    if "_star_import" not in source.__dict__:  # once a module, not once a registration
        source.__dict__["_star_import"] = any(
            isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
            for node in top_level(source.ast.body))
    return source.__dict__["_star_import"]  # type: ignore[no-any-return]


def template_values(reg: Registration, facts: MigrateFacts) -> dict[str, str | int]:
    """What a template's placeholders (besides the handler) are filled with for *reg*."""
    mech = facts.mechanisms[reg.mechanism][0]
    policy = (mech.migrate.policy if mech.migrate else "") or mech.id
    # "order" only fills a pack template that asks for one: the packs planeshift ships write none
    return {"name": facts.registration_name(reg), "stage": stage(reg.point or ""), "order": 0,
            "policy": policy}


def _shared_refusal(todo: list[tuple[Registration, Template | None, str]],
                    facts: MigrateFacts) -> str:
    """Why the registrations one call makes (an entry each of a literal table) cannot share one
    rewrite of its handler expression, or ""."""
    if len(todo) < 2:
        return ""
    regs = [reg for reg, _, _ in todo]
    left = next(((reg, why) for reg, _, why in todo if why), None)
    if left is not None:
        return f"{entries(regs)} are rewritten together or not at all, and point {left[0].point}" \
               f" is not migrated ({left[1]})"
    shapes = []
    for reg, template, _ in todo:
        assert template is not None
        values = template_values(reg, facts)
        shapes.append((reg, {"plane": reg.plane, "template": template.text,
                             **{f: values.get(f) for f in template.fields}}))
    differ = differences(shapes)
    if not differ:
        return ""
    return f"{entries(regs)} would declare different {differ}, and one handler expression " \
           "carries one typed registration: write one call per point to migrate them"


def _not_found(reg: Registration) -> str:
    if handler_from_table(reg):
        return f"the handler {reg.handler.expr} reaches this call from a literal table through a " \
               "loop variable, which takes every entry's handler: a typed registration at the " \
               "call would name one handler for all of them (declare each in the table by hand)"
    return f"the handler {reg.handler.expr} is not an argument, list element, mapping value or " \
           "assigned value of this site"


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
    if reg.plane == "interceptor" and not reg.point:
        return "an interceptor with a dynamic point has no stage to declare"
    return ""


def maybe_not_callable(reg: Registration) -> bool:
    """The scan cannot show *reg*'s handler to be callable: it may be None at run time, or its
    kind is none the scan knows to be callable. Its rewrite is the optional form."""
    kind = reg.handler.kind
    callable_instance = kind == "instance" and bool(reg.handler.qualname) and \
        reg.handler.qualname.endswith(".__call__")  # type: ignore[union-attr]
    return reg.handler.may_be_none or not (kind in CALLABLE_KINDS or callable_instance)


def _why(reg: Registration) -> str:
    """The scan's first piece of evidence, whole, which says why it could not decide."""
    text = reg.evidence[0] if reg.evidence else reg.rule
    return text.split(" -> needs_review: ", 1)[-1]
