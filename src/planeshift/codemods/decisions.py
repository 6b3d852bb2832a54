"""Codemod ``decisions``: an interceptor's denial or stop by exception becomes a typed decision."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import ClassVar

import libcst as cst

from ..types import Registration
from .base import Codemod, Example, Item, Plan, Source, register
from .facts import MigrateFacts
from .references import Handler, find_definition, other_references
from .support.functions import definition, is_generator, own_statements

_STRINGY = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


@register
class DecisionsCodemod(Codemod):
    """Return typed interceptor decisions instead of raising StopHook or PermissionError.

    ## What it does
    In a function the scan classified as an interceptor's handler, `raise StopHook(...)` becomes
    `return InterceptorDecision(disposition=InterceptorDisposition.STOP, ...)` and
    `raise PermissionError(msg)` becomes a DENY decision carrying `msg` as its reason; the
    function is marked `@returns_decisions(stop=..., deny=...)` with the legacy exceptions its
    mechanism names in the pack (`stop:` / `deny:` under `migrate:`).

    ## Why
    ADR-0120 D2: "Handlers do not raise a generic PermissionError to express an ordinary denial";
    STOP is "the typed equivalent of StopHook". A typed decision is what the kernel's
    OrderedInterceptorChain reads once the owner runs on it.

    ## Example
    ```python
    def guard(**payload):
        if payload.get("tool") == "rm":
            raise PermissionError("rm is not allowed")
    ```
    becomes
    ```python
    @returns_decisions(deny=PermissionError)
    def guard(**payload):
        if payload.get("tool") == "rm":
            return InterceptorDecision(disposition=InterceptorDisposition.DENY, reason="rm is not allowed")
    ```

    ## What it leaves alone
    A handler registered anywhere without the adapter (`as_interceptor`, from the
    `registration` codemod in this run or an earlier one), or on mechanisms naming different
    legacy exceptions; a handler named anywhere else in the project (a direct caller, `__all__`,
    an unregistration) would see a decision instead of an exception; a handler with other
    decorators or that is a generator; a `raise` inside `try` or `with` (a handler or context
    manager might observe it), inside an `except` block or with `from` (its chained cause would
    be lost), or whose message is not one string expression.

    ## Behaviour
    Unchanged: `as_interceptor` wraps a marked handler (async for async) so that a STOP decision
    raises the legacy stop exception and a DENY decision raises `deny(reason)`, exactly the
    exception the handler raised before, at the point the dispatcher called it.

    ## References
    ADR-0120 D2 (InterceptorDecision, InterceptorDisposition), D4, P4.
    """

    id = "decisions"
    after = ("registration",)  # its handlers' registrations go through as_interceptor
    after_rewrites = True  # only handlers whose registrations are rewritten, in this run too
    DESCRIPTION = "Interceptor handlers return typed STOP / DENY decisions instead of raising."
    EXAMPLES: ClassVar[list[Example]] = [Example(
        before='''
            from demo.bus import EventBus, Point


            def guard(**payload):
                if payload.get("tool") == "rm":
                    raise PermissionError(f"{payload['tool']} is not allowed")
                return None


            bus = EventBus()
            bus.on(Point.BEFORE, guard)
            ''',
        after='''
            from planeshift.kernels import (
                InterceptorDecision,
                InterceptorDisposition,
                InterceptorRegistration,
            )
            from planeshift.kernels.adapters import as_interceptor, returns_decisions

            from demo.bus import EventBus, Point


            @returns_decisions(deny=PermissionError)
            def guard(**payload):
                if payload.get("tool") == "rm":
                    return InterceptorDecision(
                        disposition=InterceptorDisposition.DENY,
                        reason=f"{payload['tool']} is not allowed",
                    )
                return None


            bus = EventBus()
            bus.on(
                Point.BEFORE,
                as_interceptor(
                    InterceptorRegistration(
                        name="app.guard", stage="BEFORE", handler=guard, order=0
                    )
                ),
            )
            ''')]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        by_handler: dict[str, list[Registration]] = defaultdict(list)
        for reg in facts.scan.registrations:
            if reg.handler.qualname and reg.handler.kind in ("function", "method"):
                by_handler[reg.handler.qualname].append(reg)
        candidates = [(q, regs) for q, regs in sorted(by_handler.items())
                      if any(r.plane == "interceptor" and _legacy(facts, r) for r in regs)]
        for qualname, regs in candidates:
            handler = find_definition(facts, qualname, regs)
            if handler is None or not facts.in_scope(handler.file):
                continue
            reason = _refusal(facts, handler)
            if reason:
                plan.refused.append(handler.not_migrated(cls.id, reason))
            else:
                plan.add(Item(handler.file, handler.line, data=handler))
        return plan

    def prepare(self, item: Item, source: Source) -> None:
        handler: Handler = item.data
        found = definition(source.tree, handler.local)
        if found is None:
            return self.refuse(item, f"no definition of {handler.local} in this file")
        if found.node.decorators or is_generator(found.node):
            return self.refuse(item, f"{handler.local} has decorators or yields: a marker or a "
                                     "`return` would change what it is")
        converted: dict[str, str] = {}
        for entry in own_statements(found.node, found.ancestors):
            if not isinstance(entry.node, cst.Raise):
                continue
            disposition, legacy = self._which(entry.node, handler, source)
            if disposition is None:
                continue
            why = _unsafe(entry.node, entry.ancestors)
            if why:
                self.refuse(item, f"{handler.local}: a raise at this handler {why}; left raising")
                continue
            converted[disposition] = legacy
            path = entry.ancestors + ((entry.unit,) if entry.unit is not entry.node else ())
            self.edit(entry.node, path, _returning(disposition))
        if not converted:
            return None
        marker = cst.Decorator(decorator=cst.parse_expression(
            "returns_decisions(" + ", ".join(f"{k}={v}" for k, v in sorted(converted.items()))
            + ")"))
        self.edit(found.node, found.ancestors,
                  lambda node: node.with_changes(decorators=[marker]))
        for name in ("InterceptorDecision", "InterceptorDisposition", "returns_decisions"):
            self.add_import(self.facts.adapter(handler.pack, name))  # type: ignore[union-attr]
        return self.done(item, f"{handler.local}: raises -> typed decisions "
                               f"({', '.join(sorted(converted))})")

    def _which(self, raised: cst.Raise, handler: Handler, source: Source
               ) -> tuple[str | None, str]:
        """("stop" | "deny", the exception's local spelling) when *raised* raises a legacy
        exception of the handler's mechanism; (None, "") otherwise."""
        exc = raised.exc.func if isinstance(raised.exc, cst.Call) else raised.exc
        spelled = source.code(exc) if exc is not None else ""
        qualified = source.names.resolve(spelled) or (
            f"builtins.{spelled}" if source.names.builtin(spelled) else None)
        for disposition, legacy in (("stop", handler.stop), ("deny", handler.deny)):
            if legacy and qualified == legacy:
                return disposition, spelled
        return None, ""


def _legacy(facts: MigrateFacts, reg: Registration) -> bool:
    mech = facts.mechanisms.get(reg.mechanism, (None, None))[0]
    return bool(mech and mech.migrate and (mech.migrate.stop or mech.migrate.deny))


def _refusal(facts: MigrateFacts, handler: Handler) -> str:
    """"": convert; else why not (a handler whose file raises no legacy exception was not
    found)."""
    if handler.conflict:
        return handler.conflict
    unmigrated = [r for r in handler.registrations if r.key not in facts.rewritten
                  and not facts.looks_migrated(r, "interceptor")]
    if unmigrated:
        r = unmigrated[0]
        return f"registered at {r.file}:{r.line} without the as_interceptor adapter (neither " \
               "rewritten by registration in this run nor before), which would not translate " \
               "its decisions"
    used = other_references(facts, handler)
    if used:
        return f"{used}: a caller there would get a decision, not an exception"
    return ""


def _unsafe(raised: cst.Raise, ancestors: tuple[cst.CSTNode, ...]) -> str:
    if raised.cause is not None:
        return "chains a cause (`from`)"
    if any(isinstance(a, (cst.ExceptHandler, cst.ExceptStarHandler)) for a in ancestors):
        return "is in an except block (its implicit context would be lost)"
    if any(isinstance(a, (cst.Try, cst.TryStar, cst.With)) for a in ancestors):
        return "is inside try/with (a handler or context manager could see it)"
    if isinstance(raised.exc, cst.Call):
        args = raised.exc.args
        if len(args) > 1 or any(a.keyword or a.star for a in args) or (
                args and not isinstance(args[0].value, _STRINGY)):
            return "has a message that is not one string expression"
    return ""


def _returning(disposition: str) -> Callable[[cst.Raise], cst.Return]:
    return lambda node: _decision(node, disposition)


_TIGHT = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""))


def _decision(raised: cst.Raise, disposition: str) -> cst.Return:
    kind = cst.Arg(keyword=cst.Name("disposition"), equal=_TIGHT, value=cst.parse_expression(
        f"InterceptorDisposition.{disposition.upper()}"))
    if isinstance(raised.exc, cst.Call):
        call = raised.exc
        args = [kind.with_changes(comma=cst.MaybeSentinel.DEFAULT if not call.args else
                                  cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
        args += [a.with_changes(keyword=cst.Name("reason"), equal=_TIGHT) for a in call.args]
        value = call.with_changes(func=cst.Name("InterceptorDecision"), args=args)
    else:
        value = cst.Call(func=cst.Name("InterceptorDecision"), args=[kind])
    return cst.Return(value=value, whitespace_after_return=raised.whitespace_after_raise,
                      semicolon=raised.semicolon)
