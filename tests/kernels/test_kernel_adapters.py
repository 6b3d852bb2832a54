"""The adapters hand today's dispatchers exactly what they received before a call site migrated."""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import logging
from types import ModuleType

import pytest


@pytest.fixture
def adapters(kernels: ModuleType) -> ModuleType:
    return importlib.import_module(f"{kernels.__name__}.adapters")


def _interceptor(kernels: ModuleType, handler, name: str = "guard"):
    return kernels.InterceptorRegistration(name=name, stage="TOOL_PRE", handler=handler, order=0)


class Service:
    def handle(self, payload):
        return payload


async def deny_all(**_):
    return None


def test_subscribers_and_sinks_receive_the_handler_object_itself(kernels, adapters) -> None:
    service = Service()
    for handler in (deny_all, service.handle, functools.partial(deny_all), lambda e: e, print):
        sub = adapters.Subscription(name="n", policy="session_observer", handler=handler)
        assert adapters.as_subscriber(sub) is handler
        sink = adapters.SinkRegistration(name="n", port=kernels.DeliverySink, handler=handler)
        assert adapters.as_sink(sink) is handler
    participant = adapters.SinkRegistration(name="n", port=kernels.CommitParticipant,
                                            handler=deny_all)
    assert adapters.as_sink(participant) is deny_all


def test_an_unmarked_interceptor_is_installed_as_itself(kernels, adapters) -> None:
    handlers = [deny_all]
    legacy = adapters.as_interceptor(_interceptor(kernels, deny_all))
    assert legacy is deny_all
    handlers.remove(legacy)  # `bus.off(point, deny_all)` still finds it


def test_typed_registrations_are_validated(kernels, adapters) -> None:
    with pytest.raises(kernels.PolicyError, match="callable"):
        adapters.Subscription(name="n", policy="p", handler=None)
    with pytest.raises(kernels.PolicyError, match="policy"):
        adapters.Subscription(name="n", policy="", handler=print)
    with pytest.raises(kernels.PolicyError, match="port"):
        adapters.SinkRegistration(name="n", port=object, handler=print)
    with pytest.raises(kernels.PolicyError, match="name"):
        adapters.SinkRegistration(name="", port=kernels.DeliverySink, handler=print)
    with pytest.raises(TypeError, match="InterceptorRegistration"):
        adapters.as_interceptor(print)
    with pytest.raises(TypeError, match="Subscription"):
        adapters.as_subscriber(print)
    with pytest.raises(TypeError, match="SinkRegistration"):
        adapters.as_sink(print)
    with pytest.raises(TypeError, match="exception class"):
        adapters.returns_decisions(deny="PermissionError")


class StopHook(Exception):
    pass


def test_a_marked_async_handler_raises_the_legacy_exceptions_for_its_decisions(kernels,
                                                                               adapters) -> None:
    D = kernels.InterceptorDisposition

    @adapters.returns_decisions(stop=StopHook, deny=PermissionError)
    async def guard(tool_name: str = "", **_):
        if tool_name == "bash":
            return kernels.InterceptorDecision(disposition=D.DENY, reason="no shell")
        if tool_name == "stop":
            return kernels.InterceptorDecision(disposition=D.STOP)
        if tool_name == "swap":
            return kernels.InterceptorDecision(disposition=D.CONTINUE, context={"x": 1})
        return "plain"

    legacy = adapters.as_interceptor(_interceptor(kernels, guard))
    assert legacy is not guard and inspect.iscoroutinefunction(legacy)
    assert legacy.__name__ == "guard" and legacy.__wrapped__ is guard
    assert not hasattr(legacy, adapters.DECISIONS_ATTRIBUTE)
    with pytest.raises(PermissionError) as denied:
        asyncio.run(legacy(tool_name="bash"))
    assert denied.value.args == ("no shell",)
    with pytest.raises(StopHook) as stopped:
        asyncio.run(legacy(tool_name="stop"))
    assert stopped.value.args == ()
    assert asyncio.run(legacy(tool_name="swap")) == {"x": 1}
    assert asyncio.run(legacy(tool_name="read")) == "plain"


def test_a_marked_sync_handler_stays_sync_and_a_missing_exception_is_a_type_error(kernels,
                                                                                  adapters) -> None:
    D = kernels.InterceptorDisposition

    @adapters.returns_decisions(deny=PermissionError)
    def check(payload):
        if payload == "stop":
            return kernels.InterceptorDecision(disposition=D.STOP)
        return kernels.InterceptorDecision(disposition=D.CONTINUE)

    assert adapters.returns_decisions(deny=PermissionError)(check) is check  # marks, no wrapper
    legacy = adapters.as_interceptor(_interceptor(kernels, check))
    assert not inspect.iscoroutinefunction(legacy)
    assert legacy("go") is None
    with pytest.raises(TypeError, match="no legacy exception"):
        legacy("stop")


def test_awaiting_declares_the_handler_async_and_awaits_what_it_returns(adapters) -> None:
    ran = []

    async def work(event):
        ran.append(event)
        return "done"

    wrapped = adapters.awaiting(lambda event: work(event))
    assert inspect.iscoroutinefunction(wrapped)
    assert asyncio.run(wrapped("e1")) == "done" and ran == ["e1"]
    assert asyncio.run(adapters.awaiting(lambda e: e * 2)(21)) == 42


def test_scheduling_runs_a_returned_awaitable_now_or_on_the_running_loop(adapters,
                                                                        caplog) -> None:
    ran = []

    async def work(event):
        ran.append(event)
        if event == "bad":
            raise ValueError("boom")

    handler = adapters.scheduling(lambda event: work(event))
    assert not inspect.iscoroutinefunction(handler)
    handler("no loop")  # run to completion before the call returns
    assert ran == ["no loop"]
    with pytest.raises(ValueError):
        handler("bad")

    async def dispatcher() -> None:
        task = handler("in loop")  # scheduled; the dispatcher does not wait for it
        assert ran[-1] != "in loop"
        await task
        failing = handler("bad")
        await asyncio.gather(failing, return_exceptions=True)
        await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR):
        asyncio.run(dispatcher())
    assert ran[-2:] == ["in loop", "bad"]
    assert "scheduled awaitable failed" in caplog.text
    assert adapters.scheduling(lambda e: e)(7) == 7


def test_optional_passes_none_through_and_registers_anything_else(kernels, adapters) -> None:
    calls = []

    def register(handler):
        calls.append(handler)
        return adapters.as_subscriber(
            adapters.Subscription(name="n", policy="session_observer", handler=handler))

    assert adapters.optional(None, register) is None and calls == []
    assert adapters.optional(deny_all, register) is deny_all and calls == [deny_all]
    assert "optional" in adapters.__all__


def test_optional_validates_a_non_none_value_at_registration(kernels, adapters) -> None:
    with pytest.raises(kernels.PolicyError, match="callable"):
        adapters.optional(42, lambda handler: adapters.as_interceptor(
            _interceptor(kernels, handler)))
    falsy = Service().handle
    assert adapters.optional(falsy, lambda handler: adapters.as_interceptor(
        _interceptor(kernels, handler))) is falsy
