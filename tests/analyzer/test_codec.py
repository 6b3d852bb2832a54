"""The fact cache's codec: what goes in comes out, and a function's body stays bytes until read."""

from __future__ import annotations

import textwrap
from dataclasses import fields, replace

import pytest

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
