"""PS101: registrations whose dispatcher drops a returned awaitable (ADR-0120 D2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...types import Registration
from .base import Hazard, Invalid, Rule, register

if TYPE_CHECKING:
    from ...project import ProjectFacts


def discards(reg: Registration, policy: dict[str, str]) -> bool:
    """The dispatcher drops what this handler returns: its policy discards returned awaitables,
    and it does not route the handler to an awaiting path by its declaration."""
    if policy.get("returned_awaitable") != "discard_unawaited":
        return False
    routed_async = policy.get("handler_classification") == "by_declaration" and bool(
        reg.handler.declared_async)
    return not routed_async


def severity_of(reg: Registration) -> str:
    """error when the handler can return an awaitable; warning when unknown; info otherwise."""
    if reg.handler.returns_awaitable:
        return "error"
    if reg.handler.returns_awaitable is None:
        return "warning"
    return "info"


@register
class DiscardUnawaited(Rule):
    """Flag every registration that resolves to the DISCARD_UNAWAITED disposition.

    ## What it does
    Lists each registration on a dispatcher whose loop calls a handler it treats as synchronous
    and drops whatever the call returns. The severity says how real the loss is: **error** when
    the handler can return an awaitable (a sync function returning a coroutine call, a lambda
    around an async call, a `functools.partial` of a coroutine function on a dispatcher that does
    not classify), **warning** when planeshift cannot tell, **info** when it cannot return one.
    A hook implementation (pluggy) whose hook some call in view keeps the results of is not
    flagged: the hook caller hands the coroutine back to that caller, which may await it
    (datasette's `await await_me_maybe(result)`).
    Each finding carries the site's `owner` (`owners` in `[tool.planeshift]`, else the
    repository's CODEOWNERS), so `planeshift scan --format json` is the enumeration, with an
    accountable owner per site, that ADR-0120 D2 gates the DISCARD_UNAWAITED flip on.

    ## Why is this bad?
    The awaitable is never run: the work a maintainer believes happens never executes, silently.
    ADR-0120 D2 makes DISCARD_UNAWAITED a deprecated compatibility behaviour with its own gate:
    every registration resolving to it is enumerated and either converted deliberately or
    recorded as intentionally discarding, with a named owner.

    ## Example
    ```python
    manager = MessageManager(on_message_added=[lambda msg: notify_slack(msg)])
    ```

    ## Use instead
    ```python
    async def on_message(msg):
        await notify_slack(msg)

    manager = MessageManager(on_message_added=[on_message])  # declared async: awaited
    ```

    ## Fix safety
    Not automatic: converting a discarded awaitable starts work that has never run in
    production (ADR-0120 D2). Record the decision per registration.

    ## References
    ADR-0120 D2 (returned-awaitable disposition; the DISCARD_UNAWAITED gate).
    """

    code = "PS101"
    kind = "discard_unawaited"
    severity = "error"
    message = "{handler} lands on {mechanism}, whose policy never awaits a returned awaitable"
    VALID = [
        """
        from demo.bus import EventBus, Point

        async def log(**kw):
            return None

        EventBus().on(Point.AFTER, log)  # this dispatcher awaits what a handler returns
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus

            async def send(payload):
                return payload

            bus = EventBus(on_event=[lambda payload: send(payload)])
            """,
            line=6,
            severity="error",
        ),
    ]

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        kept = {(e.mechanism, e.point) for e in project.emissions if not e.dropped}
        for reg in project.registrations:
            if "pass_through" in reg.flags:  # a handler put back or copied: its own site has it
                continue
            mech = project.mechanism(reg.mechanism)
            if not discards(reg, mech.policy_map):
                continue
            if reg.via == "hookimpl" and (reg.mechanism, reg.point) in kept:
                continue  # a hook caller hands the coroutine back: a caller in view keeps it
            severity = severity_of(reg)
            if severity == "info" and not mech.model.discard_gate:
                continue  # a pack outside the ADR's gate: only what is really lost
            message = self.message.format(handler=reg.handler.expr, mechanism=reg.mechanism)
            if severity == "error":
                message += "; it returns an awaitable that is never run"
            elif severity == "info":
                message += (" (it cannot return an awaitable today; record it as intentionally"
                            " discarding)")
            yield self.on(reg, message, severity)
