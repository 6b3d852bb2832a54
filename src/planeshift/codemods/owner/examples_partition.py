"""owner_dispatch's before/after fixture for a loop that invokes each handler inline, once per
value its filter matches, and gathers the awaitables they returned after the last
(SessionObserver.emit's shape; see ``owner.partition``)."""

from __future__ import annotations

from ..base import Example

PARTITION_EXAMPLES: list[Example] = [
    Example(
        path="example.py",
        before='''
            import inspect

            from lionagi.ln.concurrency import gather


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener, *keys):
                    self._listeners.append((keys, listener))

                async def fire(self, event):
                    results = []
                    pending = []
                    for keys, listener in self._listeners:
                        for key in keys:
                            if key in event:
                                out = listener(event[key])
                                if inspect.isawaitable(out):
                                    pending.append(out)
                                else:
                                    results.append(out)
                    if pending:
                        gathered = list(await gather(*pending))
                    else:
                        gathered = []
                    return results + gathered
            ''',
        after='''
            from lionagi.ln.concurrency import gather
            from planeshift.kernels import DispatchPolicy, fan_out


            # planeshift: Relay.fire's dispatch policy, read from its loop (ADR-0120 D2's session_observer
            # profile)
            _RELAY_FIRE_POLICY = DispatchPolicy.session_observer()


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener, *keys):
                    self._listeners.append((keys, listener))

                async def fire(self, event):
                    def _entries():
                        for keys, listener in self._listeners:
                            for key in keys:
                                if key in event:
                                    yield listener, key

                    async def _step(_entry, call):
                        listener, key = _entry
                        return await call(listener, event[key])

                    report = await fan_out(_RELAY_FIRE_POLICY, _entries(), _step, gather=gather)
                    results = list(report.invocation_values)
                    gathered = list(report.gathered_values)
                    return results + gathered
            ''',
    ),
]
