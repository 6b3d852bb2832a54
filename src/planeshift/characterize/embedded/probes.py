"""Embedded support, part one: the scenario, the payloads it builds and the probe handlers.

planeshift never imports this module to run it: ``render.py`` copies its text, below the marker
line, into every module ``planeshift characterize`` writes (then ``observe.py``'s), so a
generated suite needs only the standard library, pytest and the package under test.
"""

# --- planeshift characterize: support (copied into the generated module) ---
import asyncio
import dataclasses
import enum
import importlib
import inspect
import logging  # noqa: F401 (observe.py's part, copied below this one, logs)
import os
import sys
import threading
import typing
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

# The target may run on 3.10, where a group is the exceptiongroup backport's (anyio needs it).
if sys.version_info < (3, 11):
    try:
        from exceptiongroup import BaseExceptionGroup
    except ImportError:  # nothing on this interpreter raises a group, then
        BaseExceptionGroup = ()  # type: ignore[assignment,misc]  # isinstance(x, ()) is False

# Names the folder whose copy of the package the suite must import (`--run-against` sets it).
EXPECT_ENV = "PLANESHIFT_CHARACTERIZE_EXPECT"
# A dispatcher that deadlocks (a concurrent loop turned sequential, a lost wake-up) fails the
# test after this many seconds instead of hanging the run.
GUARD_SECONDS = 10.0
# How long the emitter waits for the handlers it cancels to start: a guard against a hang, never
# a measure (a started handler is seen at once).
ENTRY_GUARD_SECONDS = 5.0
# How many loop iterations a Rendezvous handler yields while its siblings arrive: a concurrent
# fan-out starts them all within a few iterations, a sequential loop never does.
MEET_ROUNDS = 50
SETTLE_ROUNDS = 5  # loop iterations after the emission, for anything it left behind


def check_imported(package: str) -> Path:
    """The package's folder; a failure when ``$PLANESHIFT_CHARACTERIZE_EXPECT`` names another copy."""
    module = __import__(package)
    where = Path(module.__file__ or "").resolve().parent
    expected = os.environ.get(EXPECT_ENV)
    if expected and not where.is_relative_to(Path(expected).resolve()):
        pytest.fail(
            f"{EXPECT_ENV}={expected}, but {package} was imported from {where}: the suite "
            "would characterize the wrong copy (is the copy first on PYTHONPATH?)",
            pytrace=False,
        )
    return where


class HandlerError(Exception):
    """What a failing probe handler raises; its text names the handler."""


class HandlerBaseError(BaseException):
    """What a probe handler raises for raises="base": its own BaseException, neither an
    Exception nor a cancellation (how the dispatcher treats one is pinned too)."""


class Payload:
    """What the tests emit where the dispatcher takes any object (and what they register on,
    where handlers are registered by the type of what is emitted)."""


def build(cls: Any, depth: int = 0) -> Any:
    """An instance of *cls* with every required field given a plain value: None where the field
    may be None, the field's name for a str, 0 for a number, a built instance for a class."""
    if dataclasses.is_dataclass(cls) and isinstance(cls, type):
        hints = typing.get_type_hints(cls)
        required = [
            f.name
            for f in dataclasses.fields(cls)
            if f.init
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ]
        return cls(
            **{name: _value(name, hints.get(name, Any), depth) for name in required}
        )
    fields = getattr(cls, "model_fields", None)
    if isinstance(fields, dict):  # a pydantic model
        return cls(
            **{
                name: _value(name, field.annotation, depth)
                for name, field in fields.items()
                if field.is_required()
            }
        )
    return cls()


def _value(name: str, hint: Any, depth: int) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None) or (args and type(None) in args):
        return None
    if origin is typing.Literal:
        return args[0]
    simple = {
        str: name,
        int: 0,
        float: 0.0,
        bool: False,
        bytes: b"",
        tuple: (),
        list: [],
        dict: {},
        set: set(),
        frozenset: frozenset(),
    }
    if hint in simple or origin in simple:
        return simple.get(hint, simple.get(origin))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint))
    if isinstance(hint, type) and depth < 4:
        return build(hint, depth + 1)
    raise TypeError(
        f"cannot build a value for field {name!r} ({hint!r}); give the payload "
        "with the pack key characterize"
    )


@dataclasses.dataclass
class Scene:
    """What the handlers of one scenario share: the trace, the loop and what they raised."""

    trace: list[str]
    loop: asyncio.AbstractEventLoop
    thread: int
    parties: int
    raised: dict[str, BaseException] = dataclasses.field(default_factory=dict)
    entered: dict[str, asyncio.Event] = dataclasses.field(default_factory=dict)
    coroutines: list[Any] = dataclasses.field(default_factory=list)
    arrived: int = 0

    def fail(self, label: str, raises: str | type[BaseException]) -> BaseException:
        error: BaseException
        if isinstance(raises, type):  # a class of the code under test: its stop signal
            try:
                error = raises(f"{label} stopped")
            except TypeError:
                error = raises()
        elif raises == "cancel":
            error = asyncio.CancelledError(f"{label} cancelled itself")
        elif raises == "base":
            error = HandlerBaseError(f"{label} raised a BaseException")
        else:
            error = HandlerError(f"{label} failed")
        self.raised[label] = error
        return error

    def close(self) -> None:
        """Close the coroutines nobody started, so no 'never awaited' warning follows."""
        for coro in self.coroutines:
            if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                coro.close()


Handler = Callable[..., Any]


class Spec:
    """A probe handler: ``make(scene)`` returns the callable registered on the dispatcher."""

    def make(self, scene: Scene) -> Handler:
        raise NotImplementedError


@dataclasses.dataclass
class Sync(Spec):
    """A sync handler: records its label, then raises if asked ("error", "cancel", "base",
    or an exception class of the code under test)."""

    label: str
    raises: str | type[BaseException] = ""

    def make(self, scene: Scene) -> Handler:
        def handler(*args: Any, **kwargs: Any) -> None:
            scene.trace.append(self.label)
            if self.raises:
                raise scene.fail(self.label, self.raises)

        return handler


@dataclasses.dataclass
class Coro(Spec):
    """The same as :class:`Sync`, declared ``async def`` (for dispatchers that await every
    handler's result); with *hold*, it waits that long before it records its end."""

    label: str
    raises: str | type[BaseException] = ""
    hold: float = 0.0

    def make(self, scene: Scene) -> Handler:
        async def handler(*args: Any, **kwargs: Any) -> None:
            if self.hold:
                scene.trace.append(f"{self.label} start")
                try:
                    await asyncio.sleep(self.hold)
                except asyncio.CancelledError:
                    scene.trace.append(f"{self.label} cancelled")
                    raise
                scene.trace.append(f"{self.label} end")
            else:
                await asyncio.sleep(0)
                scene.trace.append(self.label)
            if self.raises:
                raise scene.fail(self.label, self.raises)

        return handler


@dataclasses.dataclass
class Async(Spec):
    """A declared coroutine function that records its start, yields to the loop three times
    (a concurrent dispatcher would run a sibling meanwhile), then records its end."""

    label: str

    def make(self, scene: Scene) -> Handler:
        async def handler(*args: Any, **kwargs: Any) -> None:
            scene.trace.append(f"{self.label} start")
            for _ in range(3):
                await asyncio.sleep(0)
            scene.trace.append(f"{self.label} end")

        return handler


@dataclasses.dataclass
class Blocking(Spec):
    """A declared coroutine function that records it entered and waits until cancelled."""

    label: str

    def make(self, scene: Scene) -> Handler:
        entered = scene.entered.setdefault(self.label, asyncio.Event())

        async def handler(*args: Any, **kwargs: Any) -> None:
            scene.trace.append(f"{self.label} entered")
            entered.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                scene.trace.append(f"{self.label} cancelled")
                raise

        return handler


@dataclasses.dataclass
class Rendezvous(Spec):
    """A declared coroutine function that waits, a bounded number of loop iterations, for every
    Rendezvous handler of the scenario to arrive beside it: "released" when they all did (they
    run concurrently), "alone" when not. Loop iterations, not seconds: no machine is too slow."""

    label: str

    def make(self, scene: Scene) -> Handler:
        async def handler(*args: Any, **kwargs: Any) -> None:
            scene.trace.append(f"{self.label} waiting")
            scene.arrived += 1
            for _ in range(MEET_ROUNDS):
                if scene.arrived >= scene.parties:
                    break
                await asyncio.sleep(0)
            met = scene.arrived >= scene.parties
            scene.trace.append(f"{self.label} {'released' if met else 'alone'}")

        return handler


@dataclasses.dataclass
class Where(Spec):
    """A sync handler that records which thread it runs on: the emitter's, one of anyio's worker
    threads (and then whether ``anyio.from_thread`` reaches the loop from it, as a handler of an
    owner that offloads through anyio may rely on), or another thread."""

    label: str

    def make(self, scene: Scene) -> Handler:
        def handler(*args: Any, **kwargs: Any) -> None:
            name = threading.current_thread().name
            if threading.get_ident() == scene.thread:
                scene.trace.append(f"{self.label} on the emitting thread")
            elif name.startswith("AnyIO worker thread"):
                scene.trace.append(f"{self.label} on an anyio worker thread")
                from_thread = importlib.import_module("anyio.from_thread")
                if from_thread.run_sync(lambda: True):
                    scene.trace.append(
                        f"{self.label} reached the loop through anyio.from_thread"
                    )
            else:
                scene.trace.append(f"{self.label} on a worker thread")

        return handler


@dataclasses.dataclass
class Returns(Spec):
    """A sync handler returning an awaitable of *kind* ("coroutine", "custom awaitable" or
    "future") that records "<label> awaited" when something awaits (or waits on) it."""

    label: str
    kind: str

    def make(self, scene: Scene) -> Handler:
        def handler(*args: Any, **kwargs: Any) -> Any:
            scene.trace.append(f"{self.label} called")
            return probe(scene, self.label, self.kind)

        return handler


@dataclasses.dataclass
class AsyncReturns(Spec):
    """A declared coroutine function whose coroutine records its start and returns an
    awaitable of *kind* (see :class:`Returns`)."""

    label: str
    kind: str

    def make(self, scene: Scene) -> Handler:
        async def handler(*args: Any, **kwargs: Any) -> Any:
            scene.trace.append(f"{self.label} start")
            return probe(scene, self.label, self.kind)

        return handler


def probe(scene: Scene, label: str, kind: str) -> Any:
    """An awaitable that records "<label> awaited" once, when it is awaited or waited on."""
    noted: list[bool] = []

    def note() -> None:
        if not noted:
            noted.append(True)
            scene.trace.append(f"{label} awaited")

    if kind == "coroutine":

        async def body() -> str:
            note()
            return label

        coro = body()
        scene.coroutines.append(coro)
        return coro
    if kind == "custom awaitable":
        return ProbeAwaitable(note, label)
    future = ProbeFuture(loop=scene.loop)
    future.note = note
    scene.loop.call_soon_threadsafe(future.set_result, label)
    return future


class ProbeAwaitable:
    """An awaitable object that is neither a coroutine nor a Future."""

    def __init__(self, note: Callable[[], None], value: str) -> None:
        self.note, self.value = note, value

    def __await__(self) -> Generator[Any, None, str]:
        self.note()
        yield from asyncio.sleep(0).__await__()
        return self.value


class ProbeFuture(asyncio.Future):  # type: ignore[type-arg]
    """An asyncio.Future, resolved on the next loop iteration, that notes being waited on."""

    note: Callable[[], None] = staticmethod(lambda: None)  # type: ignore[assignment]

    def __await__(self) -> Generator[Any, None, Any]:
        self.note()
        return super().__await__()

    __iter__ = __await__

    def add_done_callback(self, fn: Any, *, context: Any = None) -> None:
        self.note()
        super().add_done_callback(fn, context=context)
