"""Adapters that install a typed ADR-0120 registration on today's dispatcher with
today's behaviour.

`planeshift migrate` rewrites a registration's handler argument into one of these calls,
so the call site declares its plane (an InterceptorRegistration, a Subscription under a
named policy, a D5 port registration) while the dispatcher it lands on is unchanged.
Each adapter returns what the legacy registration API receives: the original handler
object itself, so identity (``bus.off(point, handler)``), ``is_coro_func`` and
by-return-value classification stay exactly as they were. Only two things ever wrap a
handler, and both are opt-in at the definition or the call site: a handler marked
``@returns_decisions(...)`` (its typed decisions are translated back into the legacy
exceptions the marker names) and the DISCARD_UNAWAITED conversions ``awaiting`` and
``scheduling`` (a behaviour change, chosen with ``planeshift migrate
--convert-discard``). A handler the scan cannot show to be callable (a parameter
defaulting to None, ``h if c else None``, a call that may return None, a value of
unknown kind) is registered through ``optional``: ``optional(h, lambda handler:
as_subscriber(Subscription(..., handler=handler)))`` hands None to the legacy API as it
is, and anything else through the typed registration (so a non-None value that is not
callable raises PolicyError at registration, where it used to fail when dispatched).
When a dispatcher later runs on its kernel, these functions change and the call sites do
not.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from ._vocab import InterceptorDisposition, UnsetType
from .errors import PolicyError
from .interceptors import InterceptorDecision, InterceptorRegistration
from .ports import CommitParticipant, DeliverySink

__all__ = [
    "DECISIONS_ATTRIBUTE",
    "SinkRegistration",
    "Subscription",
    "as_interceptor",
    "as_sink",
    "as_subscriber",
    "awaiting",
    "legacy_result",
    "optional",
    "returns_decisions",
    "scheduling",
]

logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
R = TypeVar("R")
DECISIONS_ATTRIBUTE = "__planeshift_decisions__"
_PORTS = (DeliverySink, CommitParticipant)
_RUNNING: set[asyncio.Task[Any]] = set()  # scheduled awaitables, held until they finish


def _check(
    name: object,
    handler: object,
    extra: list[tuple[str, str]],
    order: object = None,
) -> None:
    bad = list(extra)
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        bad.append(("field-type", f"order must be an int or None, got {order!r}"))
    if not isinstance(name, str) or not name:
        bad.append(("field-type", f"name must be a non-empty str, got {name!r}"))
    if not callable(handler):
        bad.append(("field-type", f"handler of {name!r} must be callable"))
    if bad:
        raise PolicyError(bad)


@dataclass(frozen=True, slots=True, kw_only=True)
class Subscription:
    """An in-process subscriber of a Signal, under the named dispatch policy of its
    dispatcher (an ADR-0120 D2 profile such as ``session_observer``, or the mechanism's
    own)."""

    name: str
    policy: str
    handler: Callable[..., Any]
    # a rank among the owner's registrations; None: as registered
    order: int | None = None

    def __post_init__(self) -> None:
        policy = (
            []
            if isinstance(self.policy, str) and self.policy
            else [
                ("field-type", f"policy must be a non-empty str, got {self.policy!r}"),
            ]
        )
        _check(self.name, self.handler, policy, self.order)


@dataclass(frozen=True, slots=True, kw_only=True)
class SinkRegistration:
    """A handler behind one of the ADR-0120 D5 ports: a DeliverySink (post-commit
    delivery) or a CommitParticipant (staging inside the owner's transaction)."""

    name: str
    port: type
    handler: Callable[..., Any]
    # a rank among the owner's registrations; None: as registered
    order: int | None = None

    def __post_init__(self) -> None:
        port = (
            []
            if self.port in _PORTS
            else [
                (
                    "field-type",
                    f"port must be DeliverySink or CommitParticipant, got {self.port!r}",
                ),
            ]
        )
        _check(self.name, self.handler, port, self.order)


def as_interceptor(registration: InterceptorRegistration[Any]) -> Callable[..., Any]:
    """The legacy handler of an interceptor: the handler itself, unless it is marked
    ``@returns_decisions``, in which case a wrapper of the same declared kind (async for
    an async handler) turns its STOP / DENY decisions into the legacy exceptions the
    marker names."""
    if not isinstance(registration, InterceptorRegistration):
        raise TypeError(
            f"expected an InterceptorRegistration, got {type(registration).__name__}",
        )
    handler = registration.handler
    legacy = getattr(handler, DECISIONS_ATTRIBUTE, None)
    if legacy is None:
        return handler
    stop, deny = legacy
    name = registration.name
    if inspect.iscoroutinefunction(handler):

        async def translated_async(*args: Any, **kwargs: Any) -> Any:
            return legacy_result(await handler(*args, **kwargs), stop, deny, name)

        wrapper: Callable[..., Any] = translated_async
    else:

        def translated(*args: Any, **kwargs: Any) -> Any:
            return legacy_result(handler(*args, **kwargs), stop, deny, name)

        wrapper = translated
    functools.update_wrapper(wrapper, handler)
    wrapper.__dict__.pop(
        DECISIONS_ATTRIBUTE,
        None,
    )  # the wrapper itself returns no decision
    return wrapper


def as_subscriber(subscription: Subscription) -> Callable[..., Any]:
    """The legacy handler of a subscription: the handler object itself."""
    if not isinstance(subscription, Subscription):
        raise TypeError(f"expected a Subscription, got {type(subscription).__name__}")
    return subscription.handler


def as_sink(registration: SinkRegistration) -> Callable[..., Any]:
    """The legacy handler behind a D5 port registration: the handler object itself."""
    if not isinstance(registration, SinkRegistration):
        raise TypeError(
            f"expected a SinkRegistration, got {type(registration).__name__}",
        )
    return registration.handler


def optional(value: T | None, register: Callable[[T], R]) -> R | None:
    """*value* itself when it is None, else ``register(value)``: a handler that may be
    None at run time keeps reaching the legacy API as None (exactly as before), and any
    other value is handed on through its typed registration, whose validation it now
    meets at registration time. *value* is evaluated once, by the caller, before the
    typed registration is built."""
    if value is None:
        return None
    return register(value)


def returns_decisions(
    *,
    stop: type[BaseException] | None = None,
    deny: type[BaseException] | None = None,
) -> Callable[[F], F]:
    """Mark an interceptor handler that returns typed decisions; the function is
    returned unchanged. ``as_interceptor`` raises ``stop(reason)`` for STOP and
    ``deny(reason)`` for DENY (without an argument when the decision has no reason),
    exactly as the handler did before."""
    for label, exc in (("stop", stop), ("deny", deny)):
        is_exception_class = isinstance(exc, type) and issubclass(exc, BaseException)
        if exc is not None and not is_exception_class:
            raise TypeError(f"{label} must be an exception class, got {exc!r}")

    def mark(fn: F) -> F:
        setattr(fn, DECISIONS_ATTRIBUTE, (stop, deny))
        return fn

    return mark


def legacy_result(
    result: Any,
    stop: type[BaseException] | None,
    deny: type[BaseException] | None,
    name: str,
) -> Any:
    """What the legacy dispatcher saw before the handler returned decisions: a raised
    exception for STOP / DENY, the replacement context (or None) for CONTINUE, any other
    value as is."""
    if not isinstance(result, InterceptorDecision):
        return result
    if result.disposition is InterceptorDisposition.CONTINUE:
        return None if isinstance(result.context, UnsetType) else result.context
    exc = stop if result.disposition is InterceptorDisposition.STOP else deny
    if exc is None:
        raise TypeError(
            f"interceptor {name!r} returned {result.disposition.value}, for which its "
            "dispatcher names no legacy exception",
        )
    if isinstance(result.reason, UnsetType):
        raise exc()
    raise exc(result.reason)


def awaiting(handler: Callable[..., Any]) -> Callable[..., Coroutine[Any, Any, Any]]:
    """DISCARD_UNAWAITED converted for a dispatcher that classifies by declaration: an
    async wrapper, so the dispatcher's async path awaits what the handler returns (a
    sync entry that rejects declared-async callbacks now rejects it: that is the flip).
    """

    @functools.wraps(handler)
    async def awaited(*args: Any, **kwargs: Any) -> Any:
        result = handler(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    return awaited


def scheduling(handler: Callable[..., Any]) -> Callable[..., Any]:
    """DISCARD_UNAWAITED converted for a dispatcher that calls handlers synchronously
    and drops the result: a returned awaitable is run. With an event loop running in the
    calling thread it becomes a task on that loop (held until done; its failure is
    logged at ERROR on this module's logger, since the dispatcher has already returned);
    with none, it is run to completion by ``asyncio.run`` before the call returns, so
    its failure is the call's."""

    @functools.wraps(handler)
    def scheduled(*args: Any, **kwargs: Any) -> Any:
        result = handler(*args, **kwargs)
        if not inspect.isawaitable(result):
            return result
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_await(result))
        task = loop.create_task(_await(result))
        _RUNNING.add(task)
        task.add_done_callback(_finished)
        return task

    return scheduled


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _finished(task: asyncio.Task[Any]) -> None:
    _RUNNING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("scheduled awaitable failed", exc_info=task.exception())
