"""owner_dispatch's before/after fixtures for a loop that collects every failure (the message-
manager profiles, ADR-0120 D2): an async entry on ``fan_out``, a sync entry on ``fan_out_sync``.
Migrated for real by the tests like ``examples.DISPATCH_EXAMPLES``."""

from __future__ import annotations

from ..base import Example

COLLECT_EXAMPLES: list[Example] = [
    # a sequential loop that collects every failure and raises one as itself, several as a
    # group, through a module function: the kernel raises one itself and calls it for several
    Example(
        path="example.py",
        before='''
            import logging

            from lionagi.ln.concurrency import is_coro_func

            logger = logging.getLogger(__name__)


            def raise_failures(errors):
                """One failure leaves as itself, several as one group."""
                if len(errors) == 1:
                    raise errors[0]
                raise BaseExceptionGroup("listeners failed", errors)


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    """Tell every listener; raise what they raised once all of them ran."""
                    listeners = list(self._listeners)
                    # every listener runs, whatever the others raise
                    errors: list[BaseException] = []
                    for listener in listeners:
                        try:
                            if is_coro_func(listener):
                                await listener(event)
                            else:
                                listener(event)
                        except BaseException as exc:  # noqa: BLE001 — raised together
                            errors.append(exc)
                    if errors:
                        raise_failures(errors)
                    return event
            ''',
        after='''
            import logging

            from planeshift.kernels import DispatchPolicy, fan_out

            logger = logging.getLogger(__name__)


            def raise_failures(errors):
                """One failure leaves as itself, several as one group."""
                if len(errors) == 1:
                    raise errors[0]
                raise BaseExceptionGroup("listeners failed", errors)


            # planeshift: Relay.fire's dispatch policy, read from its loop (ADR-0120 D2's
            # message_manager_async profile)
            _RELAY_FIRE_POLICY = DispatchPolicy.message_manager_async()


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    self._listeners.append(listener)

                async def fire(self, event):
                    """Tell every listener; raise what they raised once all of them ran."""
                    listeners = list(self._listeners)
                    # every listener runs, whatever the others raise
                    # raised together
                    await fan_out(
                        _RELAY_FIRE_POLICY,
                        listeners,
                        lambda listener, call: call(listener, event),
                        logger=logger,
                        group=raise_failures,
                    )
                    return event
            '''),
    # a sync entry: its own preflight refuses a declared-async listener before the mutation, and
    # the loop over that snapshot (collecting, raised inline) runs on fan_out_sync
    Example(
        path="example.py",
        before='''
            from lionagi.ln.concurrency import is_coro_func


            class Relay:
                def __init__(self):
                    self._listeners = []
                    self.history = []

                def listen(self, listener):
                    self._listeners.append(listener)

                def fire(self, event):
                    listeners = self._preflight()  # before the event is recorded
                    self.history.append(event)
                    self._notify(event, listeners)
                    return event

                def _preflight(self):
                    listeners = list(self._listeners)
                    for listener in listeners:
                        if is_coro_func(listener):
                            raise RuntimeError(f"{listener!r} is async: fire it from an async entry")
                    return listeners

                def _notify(self, event, listeners):
                    errors = []
                    for listener in listeners:
                        try:
                            listener(event)
                        except BaseException as exc:
                            errors.append(exc)
                    if errors:
                        if len(errors) == 1:
                            raise errors[0]
                        raise BaseExceptionGroup(f"{len(errors)} listener(s) failed", errors)
            ''',
        after='''
            from lionagi.ln.concurrency import is_coro_func
            from planeshift.kernels import DispatchPolicy, fan_out_sync


            # planeshift: Relay.fire's dispatch policy, read from its loop (ADR-0120 D2's message_manager_sync
            # profile)
            _RELAY_FIRE_POLICY = DispatchPolicy.message_manager_sync()


            class Relay:
                def __init__(self):
                    self._listeners = []
                    self.history = []

                def listen(self, listener):
                    self._listeners.append(listener)

                def fire(self, event):
                    listeners = self._preflight()  # before the event is recorded
                    self.history.append(event)
                    self._notify(event, listeners)
                    return event

                def _preflight(self):
                    listeners = list(self._listeners)
                    for listener in listeners:
                        if is_coro_func(listener):
                            raise RuntimeError(f"{listener!r} is async: fire it from an async entry")
                    return listeners

                def _notify(self, event, listeners):
                    fan_out_sync(
                        _RELAY_FIRE_POLICY,
                        listeners,
                        lambda listener, call: call(listener, event),
                        group=lambda errors: BaseExceptionGroup(
                            f"{len(errors)} listener(s) failed", errors
                        ),
                    )
            '''),
]
