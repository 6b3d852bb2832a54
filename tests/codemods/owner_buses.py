"""The user-written buses of tests/codemods/test_owner_buses.py, one per dispatch loop shape the
owner codemods rewrite, as they are written (BEFORE) and as `planeshift migrate --owners` leaves
them (AFTER); tests/fixtures/packs/owner_buses.yaml describes them."""

from __future__ import annotations

BEFORE: dict[str, str] = {}
AFTER: dict[str, str] = {}

BEFORE["seq_isolate"] = '''\
"""A sequential bus: each handler in turn, a failure logged and the others still run."""

import logging

from lionagi.ln.concurrency import maybe_await

logger = logging.getLogger("buses.seq_isolate")


class SeqBus:
    def __init__(self):
        self._handlers = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    def unsubscribe(self, handler):
        if handler in self._handlers:
            self._handlers.remove(handler)

    def handler_count(self):
        return len(self._handlers)

    async def emit(self, event):
        for handler in list(self._handlers):
            try:
                await maybe_await(handler(event))  # in the order they subscribed
            except Exception:  # noqa: BLE001 — one failing handler never stops the others
                logger.exception("handler %r failed on %r", handler, event)
'''

AFTER["seq_isolate"] = '''\
"""A sequential bus: each handler in turn, a failure logged and the others still run."""

import logging

from planeshift.kernels import DispatchPolicy, FanoutDispatcher

logger = logging.getLogger("buses.seq_isolate")


# planeshift: SeqBus.emit's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
# broadcaster, differing in returned_value_classifier=inspect_awaitable)
_SEQ_BUS_EMIT_POLICY = DispatchPolicy.from_axes(
    concurrency="sequential",
    failure="isolate",
    completion="await_all",
    error_surface="log_only",
    sync_handlers="inline",
    handler_classification="by_return_value",
    returned_value_classifier="inspect_awaitable",
    returned_awaitable="await_in_invocation",
    sync_entry="unavailable",
    handler_cancellation="propagate",
    predicate_failure="isolate",
)


class SeqBus:
    def __init__(self):
        self._handlers = FanoutDispatcher(_SEQ_BUS_EMIT_POLICY, logger=logger)

    def subscribe(self, handler):
        self._handlers.append(handler)

    def unsubscribe(self, handler):
        if handler in self._handlers.handlers:
            self._handlers.remove_handler(handler)

    def handler_count(self):
        return len(self._handlers.handlers)

    async def emit(self, event):
        def _failed(handler, _error) -> None:
            logger.exception("handler %r failed on %r", handler, event)

        # in the order they subscribed
        # one failing handler never stops the others
        await self._handlers.fan_out(
            lambda handler, call: call(handler, event), failed=_failed
        )
'''

BEFORE["seq_propagate"] = '''\
"""A sequential bus that stops at the first failure: it is recorded, then raised to the emitter."""

import asyncio


class FirstFailureBus:
    def __init__(self):
        self._handlers = []
        self.failures = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        handlers = list(self._handlers)
        for handler in handlers:
            try:
                result = handler(event)
                if asyncio.iscoroutine(result):
                    await result
            except Exception as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}")
                raise
        return len(handlers)
'''

AFTER["seq_propagate"] = '''\
"""A sequential bus that stops at the first failure: it is recorded, then raised to the emitter."""

from planeshift.kernels import DispatchPolicy, FanoutDispatcher


# planeshift: FirstFailureBus.emit's dispatch policy, read from its loop (nearest ADR-0120 D2
# profile: session_observer, differing in returned_value_classifier=asyncio_coroutine_only,
# returned_awaitable=await_in_invocation)
_FIRST_FAILURE_BUS_EMIT_POLICY = DispatchPolicy.from_axes(
    concurrency="sequential",
    failure="propagate",
    completion="stop_on_failure",
    error_surface="raise_first",
    sync_handlers="inline",
    handler_classification="by_return_value",
    returned_value_classifier="asyncio_coroutine_only",
    returned_awaitable="await_in_invocation",
    sync_entry="unavailable",
    handler_cancellation="propagate",
    predicate_failure="propagate",
)


class FirstFailureBus:
    def __init__(self):
        self._handlers = FanoutDispatcher(_FIRST_FAILURE_BUS_EMIT_POLICY)
        self.failures = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        handlers = list(self._handlers.handlers)

        def _failed(handler, exc) -> None:
            self.failures.append(f"{type(exc).__name__}: {exc}")

        await self._handlers.fan_out(
            lambda handler, call: call(handler, event), failed=_failed
        )
        return len(handlers)
'''

BEFORE["gather_collect"] = '''\
"""A concurrent bus: every handler runs, failures are raised together, a handler's own
cancellation is translated so the emitter can tell it from its own."""

import asyncio

from lionagi.ln.concurrency import gather, maybe_await


class HandlerCancelled(asyncio.CancelledError):
    """A handler, not the emitter, was cancelled."""


class GatherBus:
    def __init__(self):
        self._subs = []
        self.delivered = 0

    def subscribe(self, handler, *, when=None):
        self._subs.append((when, handler))

    async def emit(self, event):
        subs = [sub for sub in self._subs]

        async def _deliver(sub):
            when, handler = sub
            if when is not None and not when(event):
                return None
            self.delivered += 1
            return await maybe_await(handler(event))

        raw = await gather(*(_deliver(sub) for sub in subs), return_exceptions=True)
        cancellations = [r for r in raw if isinstance(r, BaseException) and not isinstance(r, Exception)]
        errors = [r for r in raw if isinstance(r, Exception)]
        if cancellations:
            cancelled = HandlerCancelled(str(cancellations[0]))
            if errors:
                raise cancelled from ExceptionGroup(f"{len(errors)} handler(s) failed for {event!r}", errors)
            raise cancelled from cancellations[0]
        if errors:
            raise ExceptionGroup(f"{len(errors)} handler(s) failed for {event!r}", errors)
        return [r for r in raw if r is not None]
'''

AFTER["gather_collect"] = '''\
"""A concurrent bus: every handler runs, failures are raised together, a handler's own
cancellation is translated so the emitter can tell it from its own."""

import asyncio

from planeshift.kernels import DispatchPolicy, fan_out


class HandlerCancelled(asyncio.CancelledError):
    """A handler, not the emitter, was cancelled."""


# planeshift: GatherBus.emit's dispatch policy, read from its loop (ADR-0120 D2's scheduler
# profile)
_GATHER_BUS_EMIT_POLICY = DispatchPolicy.scheduler()


class GatherBus:
    def __init__(self):
        self._subs = []
        self.delivered = 0

    def subscribe(self, handler, *, when=None):
        self._subs.append((when, handler))

    async def emit(self, event):
        subs = [sub for sub in self._subs]

        async def _deliver(sub, call):
            when, handler = sub
            if when is not None and not when(event):
                return None
            self.delivered += 1
            return await call(handler, event)

        report = await fan_out(
            _GATHER_BUS_EMIT_POLICY,
            subs,
            _deliver,
            group=lambda errors: ExceptionGroup(
                f"{len(errors)} handler(s) failed for {event!r}", errors
            ),
            translated=lambda cancellation: HandlerCancelled(str(cancellation)),
        )
        raw = list(report.values)
        return [r for r in raw if r is not None]
'''

BEFORE["task_group"] = '''\
"""A concurrent bus on an anyio task group: failures logged, a handler's own cancellation ends
the others, the emit returns."""

import logging

import anyio

from lionagi.ln.concurrency import maybe_await

log = logging.getLogger("buses.task_group")


class TaskGroupBus:
    def __init__(self):
        self._listeners = []

    def listen(self, listener):
        self._listeners.append(listener)

    async def emit(self, event):
        listeners = list(self._listeners)

        async def _run(listener):
            try:
                await maybe_await(listener(event))
            except Exception as exc:
                log.warning("listener %s failed: %s", getattr(listener, "__name__", listener), exc)

        async with anyio.create_task_group() as tg:
            for listener in listeners:
                tg.start_soon(_run, listener)
'''

AFTER["task_group"] = '''\
"""A concurrent bus on an anyio task group: failures logged, a handler's own cancellation ends
the others, the emit returns."""

import logging

from planeshift.kernels import DispatchPolicy, FanoutDispatcher

log = logging.getLogger("buses.task_group")


# planeshift: TaskGroupBus.emit's dispatch policy, read from its loop (nearest ADR-0120 D2
# profile: scheduler, differing in failure=isolate, error_surface=log_only,
# handler_cancellation=cancel_siblings_and_return)
_TASK_GROUP_BUS_EMIT_POLICY = DispatchPolicy.from_axes(
    concurrency="concurrent",
    failure="isolate",
    completion="await_all",
    error_surface="log_only",
    sync_handlers="inline",
    handler_classification="by_return_value",
    returned_value_classifier="inspect_awaitable",
    returned_awaitable="await_in_invocation",
    sync_entry="unavailable",
    handler_cancellation="cancel_siblings_and_return",
    predicate_failure="collect_as_handler_failure",
)


class TaskGroupBus:
    def __init__(self):
        self._listeners = FanoutDispatcher(_TASK_GROUP_BUS_EMIT_POLICY, logger=log)

    def listen(self, listener):
        self._listeners.append(listener)

    async def emit(self, event):
        async def _run(listener, call):
            await call(listener, event)

        def _failed(listener, exc) -> None:
            log.warning(
                "listener %s failed: %s", getattr(listener, "__name__", listener), exc
            )

        await self._listeners.fan_out(_run, failed=_failed)
'''

BEFORE["offload"] = '''\
"""A sequential bus that runs sync handlers in a worker thread and awaits async ones."""

import logging

import anyio.to_thread

from lionagi.ln.concurrency import is_coro_func, maybe_await

logger = logging.getLogger("buses.offload")


class OffloadBus:
    def __init__(self):
        self._handlers = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        for handler in self._handlers[:]:
            try:
                if is_coro_func(handler):
                    await handler(event)
                else:
                    await maybe_await(
                        await anyio.to_thread.run_sync(handler, event, abandon_on_cancel=True)
                    )
            except Exception:
                logger.exception("handler failed")
'''

AFTER["offload"] = '''\
"""A sequential bus that runs sync handlers in a worker thread and awaits async ones."""

import logging

import anyio.to_thread

from planeshift.kernels import DispatchPolicy, FanoutDispatcher

logger = logging.getLogger("buses.offload")


# planeshift: OffloadBus.emit's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
# terminal_callback, differing in concurrency=sequential, deadline=none,
# deadline_disposition=none)
_OFFLOAD_BUS_EMIT_POLICY = DispatchPolicy.from_axes(
    concurrency="sequential",
    failure="isolate",
    completion="await_all",
    error_surface="log_only",
    sync_handlers="offload",
    handler_classification="by_declaration",
    returned_value_classifier="inspect_awaitable",
    returned_awaitable="await_in_invocation",
    sync_entry="unavailable",
    handler_cancellation="propagate",
    predicate_failure="propagate",
)


class OffloadBus:
    def __init__(self):
        self._handlers = FanoutDispatcher(_OFFLOAD_BUS_EMIT_POLICY, logger=logger)

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        def _failed(handler, _error) -> None:
            logger.exception("handler failed")

        await self._handlers.fan_out(
            lambda handler, call: call(handler, event),
            offload=lambda fn: anyio.to_thread.run_sync(fn, abandon_on_cancel=True),
            failed=_failed,
        )
'''

BEFORE["deadline"] = '''\
"""A concurrent bus with one shared deadline for the whole fan-out: slow handlers are cancelled
silently when it expires, failures are logged."""

import logging

from lionagi.ln.concurrency import create_task_group, get_cancelled_exc_class, maybe_await, move_on_after

logger = logging.getLogger("buses.deadline")


class DeadlineBus:
    def __init__(self, budget=1.0):
        self.budget = budget
        self._handlers = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        handlers = list(self._handlers)

        async def one(handler):
            try:
                await maybe_await(handler(event))
            except get_cancelled_exc_class():
                raise
            except BaseException:
                logger.warning("handler %r failed", handler, exc_info=True)

        with move_on_after(self.budget):
            async with create_task_group() as tg:
                for handler in handlers:
                    tg.start_soon(one, handler)
'''

AFTER["deadline"] = '''\
"""A concurrent bus with one shared deadline for the whole fan-out: slow handlers are cancelled
silently when it expires, failures are logged."""

import logging

from planeshift.kernels import DispatchPolicy, fan_out

logger = logging.getLogger("buses.deadline")


# planeshift: DeadlineBus.emit's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
# terminal_callback, differing in failure=isolate_base_exceptions, sync_handlers=inline,
# handler_classification=by_return_value, handler_cancellation=cancel_siblings_and_return)
def _deadline_bus_emit_policy(deadline_seconds: float | None) -> DispatchPolicy:
    # a budget of None is no deadline, as move_on_after(None)
    return DispatchPolicy.from_axes(
        concurrency="concurrent",
        failure="isolate_base_exceptions",
        completion="await_all",
        error_surface="log_only",
        sync_handlers="inline",
        handler_classification="by_return_value",
        returned_value_classifier="inspect_awaitable",
        returned_awaitable="await_in_invocation",
        sync_entry="unavailable",
        handler_cancellation="cancel_siblings_and_return",
        predicate_failure="propagate",
        deadline_disposition="silent_stop" if deadline_seconds is not None else "none",
        deadline_seconds=deadline_seconds,
    )


class DeadlineBus:
    def __init__(self, budget=1.0):
        self.budget = budget
        self._handlers = []

    def subscribe(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        handlers = list(self._handlers)

        async def one(handler, call):
            await call(handler, event)

        def _failed(handler, _error) -> None:
            logger.warning("handler %r failed", handler, exc_info=True)

        await fan_out(
            _deadline_bus_emit_policy(self.budget),
            handlers,
            one,
            logger=logger,
            failed=_failed,
        )
'''
