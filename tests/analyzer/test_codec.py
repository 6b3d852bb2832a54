"""The fact cache's codec: what goes in comes out, and a function's body stays bytes until read."""

from __future__ import annotations

import textwrap
from dataclasses import fields, replace

import pytest

import planeshift.rules.checks  # noqa: F401  (gives extraction the rules' per-file reader)
from planeshift.analyzer.extract.facts import Function
from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.extract.sites import Vocabulary
from planeshift.analyzer.store.codec import (
    DIGEST,
    LazyFunction,
    digest,
    digest_of,
    dumps,
    encode,
    loads,
)

SOURCE = textwrap.dedent('''
    import asyncio
    from demo.bus import EventBus, Point

    class Service:
        flag: bool = False

        def __init__(self, bus: EventBus, *names: str, timeout: float = 1.0, **extra) -> None:
            self.bus = bus
            self._error_hooks = []
            local = [n for n in names]
            self.names = local

        @property
        def hooks(self):
            return self._error_hooks

        async def fire(self, event):
            for hook in self._error_hooks:
                result = hook(event)
                if asyncio.iscoroutine(result):
                    await result
            return event

    def setup(bus: EventBus) -> "Service":
        bus.on(Point.BEFORE, print)
        return Service(bus)
''')


@pytest.fixture
def facts():
    return extract_source(SOURCE.encode(), "app/service.py", "app.service", False,
                          Vocabulary(calls=frozenset({"on"})))


def test_facts_round_trip_field_by_field(facts) -> None:
    again = loads(dumps(facts))
    assert [f.qualname for f in again.functions] == [f.qualname for f in facts.functions]
    for before, after in zip(facts.functions, again.functions):
        assert isinstance(after, LazyFunction)
        for field in fields(Function):
            assert getattr(after, field.name) == getattr(before, field.name), field.name
    assert (again.classes, again.sites, again.bindings) == (facts.classes, facts.sites,
                                                            facts.bindings)


def test_a_function_body_is_decoded_on_first_read(facts) -> None:
    init = next(f for f in loads(dumps(facts)).functions if f.name == "__init__")
    with pytest.raises(AttributeError):
        object.__getattribute__(init, "bindings")  # still bytes
    assert init.kind == "method" and init.loop is None  # the head needs no body
    assert {name for name, _ in init.bindings} >= {"local", "bus", "names"}
    assert [p.kind for p in init.params] == ["self", "pos", "vararg", "kwonly", "kwarg"]
    assert object.__getattribute__(init, "self_stores")  # decoded together, once


def test_a_row_of_the_wrong_shape_is_rejected(facts) -> None:
    import marshal

    blob = dumps(facts)
    version, row = marshal.loads(blob[DIGEST:])
    row[4][0] = row[4][0][:-1]  # a function row without its body
    with pytest.raises(ValueError):
        loads(blob[:DIGEST] + marshal.dumps((version, row)))


def test_equal_facts_have_one_digest_however_marshal_shares_objects(facts) -> None:
    """marshal's bytes depend on which objects are shared (a back-reference for an object met
    twice); the digest is of the value, so a copy built from fresh objects digests alike."""
    import copy
    import marshal

    twin = copy.deepcopy(facts)
    shared = replace(facts, exports=("export",) * 3)
    fresh = replace(twin, exports=tuple("".join(["ex", "port"]) for _ in range(3)))
    assert shared == fresh
    assert marshal.dumps(encode(shared)) != marshal.dumps(encode(fresh))  # the trap
    assert digest(dumps(shared)) == digest(dumps(fresh)) == digest_of(shared)
    assert digest_of(replace(shared, exports=("y",))) != digest_of(shared)


DISPATCHER = textwrap.dedent("""
    import asyncio
    import anyio
    from anyio import to_thread


    class StopAll(Exception):
        pass


    class Bus:
        def __init__(self):
            self._subs = []

        async def emit(self, event):
            errors = []
            pending = []
            for sub in self._subs:
                if not sub.matches(event):
                    continue
                if asyncio.iscoroutinefunction(sub.handler):
                    raise TypeError("sync handlers only")
                try:
                    with anyio.fail_after(1):
                        result = sub.handler(event)
                    pending.append(result)
                except Exception as exc:
                    errors.append(exc)
                except BaseException:
                    raise StopAll("cancelled")
            await asyncio.gather(*pending)
            async with anyio.create_task_group() as tg:
                for sub in self._subs:
                    tg.start_soon(sub.handler, event)
            for sub in self._subs:
                await to_thread.run_sync(sub.handler, event)
            results = await asyncio.gather(*(s.handler(event) for s in self._subs),
                                           return_exceptions=True)
            failures = [r for r in results if isinstance(r, Exception)]
            self._raise(errors)
            return failures

        def _raise(self, errors):
            if len(errors) == 1:
                raise errors[0]
            if errors:
                raise ExceptionGroup("handlers failed", errors)
            raise asyncio.CancelledError()
""")


def test_every_kind_of_dispatch_observation_round_trips_as_its_record() -> None:
    """A dispatcher doing one of everything extraction observes: each observation is a typed
    record (``extract/observations.py``), tagged by its kind in the cache row, and comes back
    equal."""
    from planeshift.analyzer.extract.observations import (
        DETAILS,
        LOCAL,
        Action,
        Concurrency,
        Follow,
        Guard,
        Passed,
        Raise,
    )

    facts = extract_source(DISPATCHER.encode(), "app/bus.py", "app.bus", False,
                           Vocabulary(calls=frozenset({"emit"})))
    seen = [s for f in facts.functions if f.loop for s in f.loop.seen]
    assert {s.kind for s in seen} == {cls.kind for cls in DETAILS}
    details = [s.detail for s in seen]
    try_line = next(n for n, line in enumerate(DISPATCHER.splitlines(), 1)
                    if line.strip() == "try:")
    assert Guard("Exception", (Action("collect", "errors"),), try_line=try_line) in details
    assert Guard("BaseException", implied="task_group", library="anyio") in details
    assert Concurrency("gather", awaitables="pending") in details
    assert Follow("Bus._raise", (Passed("errors", "errors", LOCAL),)) in details
    assert Raise("one", single=True) in details and Raise("translate", raised="CancelledError") \
        in details
    again = loads(dumps(facts))
    assert [f.loop for f in again.functions] == [f.loop for f in facts.functions]
