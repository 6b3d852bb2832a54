"""The owner codemods' before/after fixtures: the tests migrate each for real against the demo
pack's ``example.Relay`` dispatcher (tests/fixtures/packs/demo.yaml), and ``planeshift explain``
and docs/codemods/ show them."""

from __future__ import annotations

from ..base import Example

DISPATCH_EXAMPLES: list[Example] = [
    # a sequential loop that isolates and logs each failure: the log line is the owner's hook
    Example(
        path="example.py",
        before='''
            import logging

            from lionagi.ln.concurrency import maybe_await

            logger = logging.getLogger(__name__)


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    for listener in list(self._listeners):
                        try:
                            await maybe_await(listener(event))
                        except Exception:
                            logger.exception("listener failed on %s", event)
            ''',
        after='''
            import logging

            from planeshift.kernels import DispatchPolicy, fan_out

            logger = logging.getLogger(__name__)


            # planeshift: Relay.fire's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
            # broadcaster, differing in returned_value_classifier=inspect_awaitable)
            _RELAY_FIRE_POLICY = DispatchPolicy.from_axes(
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


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    def _failed(listener, _error) -> None:
                        logger.exception("listener failed on %s", event)

                    await fan_out(
                        _RELAY_FIRE_POLICY,
                        list(self._listeners),
                        lambda listener, call: call(listener, event),
                        logger=logger,
                        failed=_failed,
                    )
            '''),
    # a task group in a shared deadline, sync listeners offloaded, every failure isolated
    Example(
        path="example.py",
        before='''
            import logging

            from lionagi.ln.concurrency import create_task_group, get_cancelled_exc_class, is_coro_func, move_on_after

            import anyio.to_thread

            logger = logging.getLogger(__name__)


            class Relay:
                def __init__(self, budget=10.0):
                    self._listeners = {}
                    self._budget = budget

                def listen(self, name, listener):
                    self._listeners[name] = listener

                async def fire(self, event):
                    chosen = [(name, fn) for name, fn in self._listeners.items()]

                    async def _one(item):
                        name, listener = item
                        try:
                            if is_coro_func(listener):
                                await listener(event)
                            else:
                                await anyio.to_thread.run_sync(listener, event, abandon_on_cancel=True)
                        except get_cancelled_exc_class():
                            raise
                        except BaseException:
                            logger.warning("listener %s failed on %s", name, event, exc_info=True)

                    with move_on_after(self._budget):
                        async with create_task_group() as tg:
                            for item in chosen:
                                tg.start_soon(_one, item)
            ''',
        after='''
            import logging

            import anyio.to_thread
            from planeshift.kernels import DispatchPolicy, fan_out

            logger = logging.getLogger(__name__)


            # planeshift: Relay.fire's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
            # terminal_callback, differing in failure=isolate_base_exceptions,
            # returned_value_classifier=not_inspected, returned_awaitable=discard_unawaited,
            # handler_cancellation=cancel_siblings_and_return)
            def _relay_fire_policy(deadline_seconds: float | None) -> DispatchPolicy:
                # a budget of None is no deadline, as move_on_after(None)
                return DispatchPolicy.from_axes(
                    concurrency="concurrent",
                    failure="isolate_base_exceptions",
                    completion="await_all",
                    error_surface="log_only",
                    sync_handlers="offload",
                    handler_classification="by_declaration",
                    returned_value_classifier="not_inspected",
                    returned_awaitable="discard_unawaited",
                    sync_entry="unavailable",
                    handler_cancellation="cancel_siblings_and_return",
                    predicate_failure="propagate",
                    deadline_disposition="silent_stop" if deadline_seconds is not None else "none",
                    deadline_seconds=deadline_seconds,
                )


            class Relay:
                def __init__(self, budget=10.0):
                    self._listeners = {}
                    self._budget = budget

                def listen(self, name, listener):
                    self._listeners[name] = listener

                async def fire(self, event):
                    chosen = [(name, fn) for name, fn in self._listeners.items()]

                    async def _one(item, call):
                        name, listener = item
                        await call(listener, event)

                    def _failed(item, _error) -> None:
                        name, listener = item
                        logger.warning("listener %s failed on %s", name, event, exc_info=True)

                    await fan_out(
                        _relay_fire_policy(self._budget),
                        chosen,
                        _one,
                        logger=logger,
                        offload=lambda fn: anyio.to_thread.run_sync(fn, abandon_on_cancel=True),
                        failed=_failed,
                    )
            '''),
    # gather(return_exceptions=True): the owner's group and translated cancellation
    Example(
        path="example.py",
        before='''
            import asyncio

            from lionagi.ln.concurrency import gather, maybe_await


            class ListenerCancelled(asyncio.CancelledError):
                pass


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    async def _one(listener):
                        return await maybe_await(listener(event))

                    raw = await gather(*(_one(fn) for fn in list(self._listeners)), return_exceptions=True)
                    cancelled = [r for r in raw if isinstance(r, BaseException) and not isinstance(r, Exception)]
                    errors = [r for r in raw if isinstance(r, Exception)]
                    if cancelled:
                        first = ListenerCancelled(str(cancelled[0]))
                        if errors:
                            raise first from ExceptionGroup(f"{len(errors)} listener(s) failed", errors)
                        raise first from cancelled[0]
                    if errors:
                        raise ExceptionGroup(f"{len(errors)} listener(s) failed", errors)
                    return raw
            ''',
        after='''
            import asyncio

            from planeshift.kernels import DispatchPolicy, fan_out


            class ListenerCancelled(asyncio.CancelledError):
                pass


            # planeshift: Relay.fire's dispatch policy, read from its loop (ADR-0120 D2's scheduler profile)
            _RELAY_FIRE_POLICY = DispatchPolicy.scheduler()


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    async def _one(listener, call):
                        return await call(listener, event)

                    report = await fan_out(
                        _RELAY_FIRE_POLICY,
                        list(self._listeners),
                        _one,
                        group=lambda errors: ExceptionGroup(
                            f"{len(errors)} listener(s) failed", errors
                        ),
                        translated=lambda cancellation: ListenerCancelled(str(cancellation)),
                    )
                    raw = list(report.values)
                    return raw
            '''),
]

TABLE_EXAMPLES: list[Example] = [
    # with owner_dispatch first: the handler list becomes the kernel's table
    Example(
        path="example.py",
        before='''
            import logging

            from lionagi.ln.concurrency import maybe_await

            logger = logging.getLogger(__name__)


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    for listener in list(self._listeners):
                        try:
                            await maybe_await(listener(event))
                        except Exception:
                            logger.exception("listener failed on %s", event)
            ''',
        after='''
            import logging

            from planeshift.kernels import DispatchPolicy, FanoutDispatcher

            logger = logging.getLogger(__name__)


            # planeshift: Relay.fire's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
            # broadcaster, differing in returned_value_classifier=inspect_awaitable)
            _RELAY_FIRE_POLICY = DispatchPolicy.from_axes(
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


            class Relay:
                def __init__(self):
                    self._listeners = FanoutDispatcher(_RELAY_FIRE_POLICY, logger=logger)

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    def _failed(listener, _error) -> None:
                        logger.exception("listener failed on %s", event)

                    await self._listeners.fan_out(
                        lambda listener, call: call(listener, event), failed=_failed
                    )
            '''),
]
