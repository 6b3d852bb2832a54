"""owner_dispatch's fixtures for a loop's stop signal (``except <Type>: break``, ``stops.py``),
a clause that re-raises some failures and records the others, and a fan-out inside the method's
``try`` (``nested.py``): a generic bus with its own stop exception, migrated for real by the tests
against the demo pack's ``example.Relay`` like the fixtures in ``examples.py``."""

from __future__ import annotations

from ..base import Example

STOP_EXAMPLES: list[Example] = [
    # a guard loop: the stop signal skips the rest quietly, any other failure is recorded and
    # propagates
    Example(
        path="example.py",
        before='''
            from lionagi.ln.concurrency import maybe_await


            class Enough(Exception):
                """A listener raises it to skip the listeners after it."""


            class Relay:
                def __init__(self):
                    self._listeners = []
                    self.denied = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    """Run the listeners in order; the first failure is recorded and raised."""
                    for listener in list(self._listeners):
                        try:
                            await maybe_await(listener(event))
                        except Enough:
                            break
                        except Exception as exc:
                            self.denied.append((event, repr(exc)))
                            raise
                    return event
            ''',
        after='''
            from planeshift.kernels import DispatchPolicy, fan_out


            class Enough(Exception):
                """A listener raises it to skip the listeners after it."""


            # planeshift: Relay.fire's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
            # session_observer, differing in returned_awaitable=await_in_invocation)
            _RELAY_FIRE_POLICY = DispatchPolicy.from_axes(
                concurrency="sequential",
                failure="propagate",
                completion="stop_on_failure",
                error_surface="raise_first",
                sync_handlers="inline",
                handler_classification="by_return_value",
                returned_value_classifier="inspect_awaitable",
                returned_awaitable="await_in_invocation",
                sync_entry="unavailable",
                handler_cancellation="propagate",
                predicate_failure="propagate",
            )


            class Relay:
                def __init__(self):
                    self._listeners = []
                    self.denied = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    """Run the listeners in order; the first failure is recorded and raised."""

                    def _failed(listener, exc) -> None:
                        self.denied.append((event, repr(exc)))

                    await fan_out(
                        _RELAY_FIRE_POLICY,
                        list(self._listeners),
                        lambda listener, call: call(listener, event),
                        failed=_failed,
                        stop=Enough,
                    )
                    return event
            '''),
    # the loop inside the method's try: the stop signal, and a clause that lets some failures
    # leave while it logs the others; the try, its finally and the return stay the façade's
    Example(
        path="example.py",
        before='''
            import logging
            from contextvars import ContextVar

            from lionagi.ln.concurrency import maybe_await

            logger = logging.getLogger(__name__)
            _firing = ContextVar("firing", default=None)


            class Enough(Exception):
                """A listener raises it to skip the listeners after it."""


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    token = _firing.set(self)
                    try:
                        listeners = list(self._listeners)
                        for listener in listeners:
                            try:
                                await maybe_await(listener(event))
                            except Enough:
                                break
                            except Exception as exc:
                                if isinstance(exc, LookupError):
                                    # the caller's own mistake: it leaves the fan-out
                                    raise
                                logger.exception("listener failed on %s", event)
                    finally:
                        _firing.reset(token)
                    return len(listeners)
            ''',
        after='''
            import logging
            from contextvars import ContextVar

            from planeshift.kernels import DispatchPolicy, fan_out

            logger = logging.getLogger(__name__)
            _firing = ContextVar("firing", default=None)


            class Enough(Exception):
                """A listener raises it to skip the listeners after it."""


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
                    token = _firing.set(self)
                    try:
                        listeners = list(self._listeners)

                        def _failed(listener, exc) -> None:
                            if isinstance(exc, LookupError):
                                # the caller's own mistake: it leaves the fan-out
                                raise exc
                            logger.exception("listener failed on %s", event)

                        await fan_out(
                            _RELAY_FIRE_POLICY,
                            listeners,
                            lambda listener, call: call(listener, event),
                            logger=logger,
                            failed=_failed,
                            stop=Enough,
                        )
                    finally:
                        _firing.reset(token)
                    return len(listeners)
            '''),
]
