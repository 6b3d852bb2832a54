"""Codemod ``discard_gate``: every DISCARD_UNAWAITED registration is converted or recorded, never
flipped silently (ADR-0120 D2)."""

from __future__ import annotations

from typing import Any, ClassVar

import libcst as cst

from ..rules.discard_annotation import (
    UNASSIGNED,
    annotation_comment,
    is_recorded,
    owner_token,
    recorded,
)
from ..types import Registration
from .base import Codemod, Example, Item, Plan, Source, register
from .facts import MigrateFacts
from .sites import Site, by_site, entries, site_of
from .support.locate import Found, handler_node
from .support.templates import OPTIONAL, Template

REASON = "returned awaitables stay unawaited as today; the flip is its own change (ADR-0120 D2)"
# shorter forms of the reason, the longest that keeps the note within the target's line length
REASONS = (REASON, "unawaited as today (ADR-0120 D2)", "ADR-0120 D2")


def fitting_comment(owner: str, indent: int, line_length: int) -> str:
    """The note with the longest reason that keeps its line within *line_length* (the shortest
    when none does: an owner token can be long)."""
    for reason in REASONS:
        comment = annotation_comment(owner, reason)
        if indent + len(comment) <= line_length:
            return comment
    return annotation_comment(owner, REASONS[-1])


@register
class DiscardGateCodemod(Codemod):
    """Record each DISCARD_UNAWAITED registration in the code with its owner, or convert it.

    ## What it does
    Every registration the scan flags `discard_unawaited` (its dispatcher drops what the handler
    returns, so a returned coroutine never runs) gets, on the line above it, the annotation

        # planeshift: discard-unawaited owner=@team <reason>

    with its owner from `[tool.planeshift] owners` or CODEOWNERS, so the enumeration ADR-0120 D2
    asks for lives in the code; `planeshift lint` reads it as the recorded decision for PS101.
    Where the project names no owner for the file, the owner is written `unassigned` and the
    report lists those files once, to fill in: such an annotation suppresses nothing until it
    names a team (lint keeps PS101 and adds PS901).
    With `--convert-discard`, the handler is instead wrapped in the mechanism's
    `convert_discard` template (`scheduling(h)` or `awaiting(h)`), so what it returns is run;
    in a typed registration the handler inside it is wrapped, and in the optional form
    `optional(h, lambda handler: ...)` the lambda's `handler`, so None is still handed on as it
    is (not wrapped into a callable that fails when called).

    ## Why
    ADR-0120 D2: the removal of DISCARD_UNAWAITED "is a behavior change rather than cleanup";
    "each is either converted deliberately or recorded as intentionally discarding", with the
    owner accountable for the enumeration named.

    ## Example
    ```python
    bus = EventBus(on_event=[lambda event: notify(event)])
    ```
    becomes
    ```python
    # planeshift: discard-unawaited owner=@demo-team returned awaitables stay unawaited ...
    bus = EventBus(on_event=[lambda event: notify(event)])
    ```
    and with `--convert-discard`
    ```python
    bus = EventBus(on_event=[scheduling(lambda event: notify(event))])
    ```

    ## What it leaves alone
    Registrations already recorded (this annotation, or a `# planeshift: ignore[PS101] ...`
    comment, on their line or the line above) or already converted; with `--convert-discard`,
    a registration whose mechanism has no `convert_discard` template, or whose handler is not an
    expression (a decorator), is annotated instead, and listed. A call that registers one handler
    expression for every entry of a literal table has it converted once, for all entries, or
    annotated when they would not all be converted alike.

    ## Behaviour
    The annotation changes nothing. `--convert-discard` is a behaviour change, deliberately:
    `scheduling(h)` keeps `h` synchronous for the dispatcher and runs an awaitable `h` returns
    (a task on the running event loop, or `asyncio.run` to completion when none runs);
    `awaiting(h)` declares `h` async, so a dispatcher that classifies by declaration awaits it
    (and a sync entry that rejects declared-async callbacks now rejects it).

    ## References
    ADR-0120 D2 (DISCARD_UNAWAITED and its gate), PS101.
    """

    id = "discard_gate"
    after = ("registration",)  # it wraps the handler inside the typed registration
    DESCRIPTION = "DISCARD_UNAWAITED registrations are annotated with their owner, or converted."
    EXAMPLES: ClassVar[list[Example]] = [
        Example(
            before='''
                from demo.bus import EventBus


                async def notify(event):
                    print("notified", event)


                bus = EventBus(on_event=[lambda event: notify(event)])
                ''',
            after=f'''
                from demo.bus import EventBus


                async def notify(event):
                    print("notified", event)


                # planeshift: discard-unawaited owner=@demo-team {REASONS[1]}
                bus = EventBus(on_event=[lambda event: notify(event)])
                '''),
        Example(
            before='''
                from demo.bus import EventBus


                async def notify(event):
                    print("notified", event)


                bus = EventBus(on_event=[lambda event: notify(event)])
                ''',
            after='''
                from planeshift.kernels.adapters import scheduling

                from demo.bus import EventBus


                async def notify(event):
                    print("notified", event)


                bus = EventBus(on_event=[scheduling(lambda event: notify(event))])
                ''',
            convert_discard=True),
    ]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        calls = (r for r in facts.scan.registrations if r.via != "config"
                 and facts.in_scope(r.file))
        for site in by_site(calls):
            mixed = _mixed(site, facts)
            for reg in site:
                if "discard_unawaited" not in reg.flags:
                    continue
                if is_recorded(facts.lines(reg.file), reg.line) or facts.looks_converted(reg):
                    plan.already += 1  # recorded, or converted by an earlier run
                    continue
                decision, detail = gate_decision(reg, facts, convert=not mixed)
                unconverted = ""
                if facts.options.convert_discard and decision != "convert":
                    why = mixed or ("a decorator registration" if reg.via == "decorator" else
                                    f"mechanism {reg.mechanism} has no convert_discard template")
                    unconverted = f"not converted ({why}); "
                if unconverted:
                    plan.refuse(cls.id, reg, unconverted + "annotated instead")
                plan.add(Item(reg.file, reg.line, reg.col, reg, (decision, detail)))
        return plan

    def prepare(self, item: Item, source: Source) -> None:
        action, detail = item.data
        if action == "convert":
            return self._convert(item, source, detail)
        return self._annotate(item, source, owner_token(detail))

    def _annotate(self, item: Item, source: Source, owner: str) -> None:
        done = self.__dict__.setdefault("_annotated", set())
        if item.line in done:  # two registrations on one line share the annotation
            return self.done(item, recorded(owner))
        entry = source.locator.statement_at(item.line)
        if entry is None:
            return self.refuse(item, f"no statement at line {item.line}")
        text = source.locator.lines[item.line - 1]
        indent = len(text) - len(text.lstrip(" \t"))
        assert self.facts is not None
        comment = cst.Comment(fitting_comment(owner, indent, self.facts.style.line_length))
        target, path = _line_owner(source, entry, item)
        if target is not None:
            line = cst.EmptyLine(comment=comment)
            self.edit(target, path, lambda node: _with_comment(node, line, "leading_lines"))
        else:  # a continuation line: a comment line inside the brackets, indented like it
            found = source.locator.line_break_before(item.line, item.col)
            if found is None:
                return self.refuse(item, f"line {item.line} continues a statement where no "
                                         "comment line can go; annotate it by hand")
            text = source.locator.lines[item.line - 1]
            indent = text[: len(text) - len(text.lstrip(" \t"))]
            line = cst.EmptyLine(indent=False, whitespace=cst.SimpleWhitespace(indent),
                                 comment=comment)
            self.edit(found.nodes[0], found.path(found.nodes[0]),
                      lambda node: _with_comment(node, line, "empty_lines"))
        done.add(item.line)
        return self.done(item, recorded(owner))

    def _convert(self, item: Item, source: Source, convert: Template) -> None:
        """One conversion per site: the registrations a call makes for several table entries
        share the outcome of the first."""
        reg = item.registration
        assert reg is not None
        sites: dict[Site, tuple[str, str]] = self.__dict__.setdefault("_converted", {})
        site = site_of(reg)
        if site not in sites:
            sites[site] = self._conversion(reg, source, convert)
        outcome, text = sites[site]
        if outcome == "refused":
            return self.refuse(item, text)
        return self.done(item, text) if outcome == "done" else self.already(item)

    def _conversion(self, reg: Registration, source: Source, convert: Template
                    ) -> tuple[str, str]:
        found = source.locator.at(reg.line, reg.col)
        handler = self._handler(found, reg, source) if found is not None else None
        if found is None or handler is None:
            return "refused", f"the handler {reg.handler.expr} is not found at {reg.line}:{reg.col}"
        if convert.handler_in(handler, source.names) is not None:
            return "already", ""
        self.edit(handler, found.path(handler), lambda node: convert.render(node, {}))
        for name, module in convert.imports:
            self.add_import(f"{module}.{name}")
        written = " ".join(source.code(handler).split())
        done = f"converted: {convert.text.replace('{handler}', written)}"
        if isinstance(handler, cst.Name) and written != " ".join(reg.handler.expr.split()) \
                and _parameter_of_lambda(found, handler):
            done += f" inside the typed registration of {OPTIONAL}(...) (None is handed on " \
                    "unconverted)"
        return "done", done

    def _handler(self, found: Found, reg, source: Source) -> cst.BaseExpression | None:  # type: ignore[no-untyped-def]
        """The handler expression, also when ``registration`` has wrapped it in an adapter: then
        what the typed registration receives (in the optional form, the lambda's parameter, so
        None still passes through unconverted)."""
        assert self.facts is not None
        template = self.facts.template(reg.mechanism, reg.plane)
        names = source.names_with(self.context)
        unwrap = (lambda v: template.handler_in(v, names)) if template else None
        handler = handler_node(found, reg.handler.expr, reg.api.rsplit(".", 1)[-1], source.code,
                               unwrap)
        if template is None or handler is None:
            return handler
        inner = template.registered_in(handler, names)  # an earlier run's typed registration
        if inner is not None:
            return inner
        wrapped = _wrapping(found, handler)  # this run's: the handler found inside it
        inner = template.registered_in(wrapped, names) if wrapped is not None else None
        return inner if inner is not None else handler


def _wrapping(found: Found, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The call *node* is the first argument of (as in ``optional(node, lambda ...)``), else
    None."""
    arg = found.parents.get(id(node))
    call = found.parents.get(id(arg)) if isinstance(arg, cst.Arg) else None
    return call if isinstance(call, cst.Call) and call.args and call.args[0] is arg else None


def _parameter_of_lambda(found: Found, name: cst.Name) -> bool:
    """*name* reads the parameter of a lambda it is inside (the optional form's)."""
    node = found.parents.get(id(name))
    while node is not None and not isinstance(node, cst.Lambda):
        node = found.parents.get(id(node))
    return node is not None and any(p.name.value == name.value for p in node.params.params)


def gate_decision(reg: Registration, facts: MigrateFacts, convert: bool = True
                  ) -> tuple[str, Any]:
    """("convert", template) or ("annotate", owner), the owner ``unassigned`` when the project
    names none; never "convert" unless *convert*."""
    wanted = convert and facts.options.convert_discard
    template = facts.convert_template(reg.mechanism) if wanted else None
    if template is not None and reg.via != "decorator":
        return "convert", template
    owner = facts.owners(reg.file)
    return "annotate", UNASSIGNED if owner is None else owner


def _mixed(site: list[Registration], facts: MigrateFacts) -> str:
    """Why the handler the registrations of one call share (an entry each of a literal table)
    cannot be converted once for all of them, or "": converting it converts every entry."""
    if len(site) < 2 or not facts.options.convert_discard:
        return ""
    kept = next((r for r in site if "discard_unawaited" not in r.flags), None)
    if kept is not None:
        return f"{entries(site)} are converted together or not at all, and at point " \
               f"{kept.point} what it returns is not dropped"
    templates = {getattr(facts.convert_template(r.mechanism), "text", None) for r in site}
    if len(templates) > 1:
        return f"{entries(site)} are converted together or not at all, and their mechanisms " \
               "convert differently"
    return ""


def _line_owner(source: Source, entry, item: Item):  # type: ignore[no-untyped-def]
    """The node whose leading lines render directly above *item*'s line, and its path."""
    unit = entry.unit
    first = source.locator.first_line(entry)
    if isinstance(unit, (cst.FunctionDef, cst.ClassDef)) and unit.decorators:
        for decorator in unit.decorators[1:]:
            found = source.locator.at(item.line, item.col)
            if found is not None and decorator in found.nodes:
                return decorator, (*entry.ancestors, unit)
    if first == item.line:
        return unit, entry.ancestors
    return None, ()


def _with_comment(node: cst.CSTNode, line: cst.EmptyLine, field: str) -> cst.CSTNode:
    return node.with_changes(**{field: [*getattr(node, field), line]})
