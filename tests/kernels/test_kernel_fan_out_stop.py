"""fan_out's stop signal (``stop=``): an owner's ``except StopHook: break`` on the kernel.

An entry raising the owner's stop exception ends the fan-out quietly: that entry is STOPPED, the
later ones are NOT_STARTED, and nothing is logged, recorded (no ``failed`` hook) or raised,
whatever the policy does with an ordinary failure.
"""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType
from typing import Any

import pytest

from .helpers import axes, run


class Halt(Exception):
    pass


class HaltHere(Halt):
    pass


class Exit(BaseException):
    pass


def _isolating(k: ModuleType) -> Any:
    return k.DispatchPolicy.from_axes(**axes())


def _propagating(k: ModuleType) -> Any:
    return k.DispatchPolicy.from_axes(**axes(failure="propagate", completion="stop_on_failure",
                                             error_surface="raise_first"))


def _recorder(trace: list[str]) -> Any:
    def failed(handler: Any, error: BaseException) -> None:
        trace.append(f"failed {type(error).__name__}")

    return failed


def _handlers(trace: list[str], raising: BaseException) -> list[Any]:
    def first(signal: Any) -> None:
        trace.append("first")

    def stopper(signal: Any) -> None:
        trace.append("stopper")
        raise raising

    def last(signal: Any) -> None:
        trace.append("last")

    return [first, stopper, last]


def _step(handler: Any, call: Any) -> Any:
    return call(handler, "s")


@pytest.mark.parametrize("make", [_isolating, _propagating], ids=["isolate", "propagate"])
def test_a_stop_signal_skips_the_rest_and_returns_normally_without_a_record(
        kernels: ModuleType, make: Any, caplog: pytest.LogCaptureFixture) -> None:
    trace: list[str] = []
    caplog.set_level(logging.DEBUG)
    report = run(kernels.fan_out(make(kernels), _handlers(trace, Halt("enough")), _step,
                                 failed=_recorder(trace), stop=Halt))
    assert trace == ["first", "stopper"]
    status = kernels.OutcomeStatus
    assert [o.status for o in report.outcomes] == [status.RETURNED, status.STOPPED,
                                                   status.NOT_STARTED]
    stopped = report.outcomes[1]
    assert isinstance(stopped.error, Halt) and str(stopped.error) == "enough"
    assert stopped.ok and report.failures == ()
    assert [r for r in caplog.records if r.name != "asyncio"] == []


def test_a_subclass_of_the_stop_signal_stops_as_an_except_clause_would(kernels: ModuleType) -> None:
    trace: list[str] = []
    report = run(kernels.fan_out(_isolating(kernels), _handlers(trace, HaltHere()), _step,
                                 stop=(KeyError, Halt)))
    assert trace == ["first", "stopper"]
    assert report.status_of("_handlers.<locals>.stopper") is kernels.OutcomeStatus.STOPPED


def test_a_stop_signal_from_a_returned_awaitable_stops_too(kernels: ModuleType) -> None:
    trace: list[str] = []

    async def later(signal: Any) -> None:
        await asyncio.sleep(0)
        trace.append("async stopper")
        raise Halt

    def last(signal: Any) -> None:
        trace.append("last")

    run(kernels.fan_out(_isolating(kernels), [later, last], _step, stop=Halt))
    assert trace == ["async stopper"]


def test_other_failures_keep_the_policy_the_stop_signal_only_stops(
        kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    trace: list[str] = []

    def bad(signal: Any) -> None:
        trace.append("bad")
        raise ValueError("ordinary")

    handlers = [bad, *_handlers(trace, Halt())]
    report = run(kernels.fan_out(_isolating(kernels), handlers, _step, failed=_recorder(trace),
                                 stop=Halt))
    assert trace == ["bad", "failed ValueError", "first", "stopper"]
    assert [o.status.value for o in report.outcomes] == ["failed", "returned", "stopped",
                                                         "not_started"]
    with pytest.raises(ValueError, match="ordinary"):
        run(kernels.fan_out(_propagating(kernels), handlers, _step, stop=Halt))


def test_without_a_stop_signal_the_same_exception_is_an_ordinary_failure(kernels: ModuleType) -> None:
    trace: list[str] = []
    report = run(kernels.fan_out(_isolating(kernels), _handlers(trace, Halt()), _step,
                                 failed=_recorder(trace)))
    assert trace == ["first", "stopper", "failed Halt", "last"]
    assert kernels.OutcomeStatus.STOPPED not in {o.status for o in report.outcomes}


def test_a_base_exception_stop_signal_stops_instead_of_leaving(kernels: ModuleType) -> None:
    trace: list[str] = []
    report = run(kernels.fan_out(_propagating(kernels), _handlers(trace, Exit()), _step, stop=Exit))
    assert trace == ["first", "stopper"]
    assert report.outcomes[1].status is kernels.OutcomeStatus.STOPPED
    with pytest.raises(Exit):  # not a stop signal: it leaves, as before
        run(kernels.fan_out(_propagating(kernels), _handlers([], Exit()), _step, stop=Halt))


def test_the_handler_list_of_a_dispatcher_stops_the_same_way(kernels: ModuleType) -> None:
    trace: list[str] = []
    dispatcher = kernels.FanoutDispatcher(_isolating(kernels))
    for handler in _handlers(trace, Halt()):
        dispatcher.append(handler)
    report = run(dispatcher.fan_out(_step, stop=Halt))
    assert trace == ["first", "stopper"]
    assert report.outcomes[-1].status is kernels.OutcomeStatus.NOT_STARTED


def test_a_stop_signal_needs_a_sequential_policy(kernels: ModuleType) -> None:
    concurrent = kernels.DispatchPolicy.scheduler()
    with pytest.raises(kernels.PolicyError, match="fan-out-stop-requires-sequential"):
        run(kernels.fan_out(concurrent, [], _step, stop=Halt))
    run(kernels.fan_out(concurrent, [], _step))  # no stop signal: the same policy runs


@pytest.mark.parametrize("bad", [asyncio.CancelledError, ValueError("an instance"), "Halt"])
def test_a_stop_signal_is_an_exception_class_and_never_a_cancellation(
        kernels: ModuleType, bad: Any) -> None:
    with pytest.raises(TypeError, match="stop"):
        run(kernels.fan_out(_isolating(kernels), [], _step, stop=bad))
