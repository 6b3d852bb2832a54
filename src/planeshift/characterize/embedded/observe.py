"""Embedded support, part two: what a scenario saw (return values, errors, log records,
threads) and ``observe``, which runs one emission and collects it.

Copied below ``probes.py``'s text into every generated module; the import from ``probes`` above
the marker line is for this file alone (in the generated module the names are already there).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import threading
from collections.abc import Callable
from typing import Any

from .probes import (
    ENTRY_GUARD_SECONDS,
    GUARD_SECONDS,
    SETTLE_ROUNDS,
    Handler,
    Rendezvous,
    Scene,
    Spec,
)

# --- planeshift characterize: support (copied into the generated module) ---


@dataclasses.dataclass
class Record:
    logger: str
    level: int
    message: str
    exc: BaseException | None


class _Capture(logging.Handler):
    """Every log record of the scenario, from any logger that propagates to the root."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[Record] = []

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.records.append(
            Record(record.name, record.levelno, record.getMessage(), exc)
        )


@dataclasses.dataclass
class Seen:
    """What one scenario showed: the trace (ending "emit returned" or "emit raised"), what the
    emission raised, the handlers' own exceptions and the log records."""

    trace: list[str]
    error: BaseException | None
    raised: dict[str, BaseException]
    records: list[Record]

    def label(self, error: BaseException | None) -> str | None:
        return next((k for k, v in self.raised.items() if v is error), None)

    @property
    def logged(self) -> list[str]:
        """The handlers whose exception a log record carries (attached, or in its text)."""
        out: list[str] = []
        for record in self.records:
            found = self.label(record.exc) or next(
                (k for k, v in self.raised.items() if str(v) in record.message), None
            )
            if found is not None:
                out.append(found)
        return out

    @property
    def grouped(self) -> list[str] | None:
        """The handlers whose exceptions the raised exception group holds (None: no group)."""
        if not isinstance(self.error, BaseExceptionGroup):
            return None
        return [self.label(e) or type(e).__name__ for e in self.error.exceptions]

    @property
    def surfaced(self) -> list[str]:
        """The handlers whose exceptions reached the emitter: raised, or in a raised group."""
        if self.error is None:
            return []
        return [
            label for label in map(self.label, leaves(self.error)) if label is not None
        ]

    @property
    def cancelled(self) -> bool:
        """A cancellation reached the emitter (raised, or in a raised group)."""
        return self.error is not None and any(
            isinstance(e, asyncio.CancelledError) for e in leaves(self.error)
        )


def leaves(error: BaseException | None) -> list[BaseException]:
    """The exception, or the exceptions inside a group (nested groups flattened)."""
    if error is None:
        return []
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in leaves(e)]
    return [error]


@dataclasses.dataclass(frozen=True)
class Subject:
    """One dispatch path of one dispatcher: how to build it, register on it and emit."""

    name: str  # "HookBus.emit"
    new: Callable[
        [float | None], Any
    ]  # the dispatcher (with a deadline budget, if given)
    on: Callable[[Any, Handler, int, Any], Any]  # register handler number n
    fire: Callable[[Any, Any], Any]  # the emission (an awaitable when is_async)
    payload: Callable[[], Any]
    method: str
    is_async: bool


def entry_is_async(subject: Subject) -> bool:
    return inspect.iscoroutinefunction(getattr(subject.new(None), subject.method))


def observe(
    subject: Subject,
    *specs: Spec,
    cancel_when: tuple[str, ...] = (),
    budget: float | None = None,
) -> Seen:
    """Build the dispatcher, register *specs* in order, emit once (cancelling the emitter once
    the handlers named by *cancel_when* entered), and return what was seen."""
    capture = _Capture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    try:
        seen = asyncio.run(
            asyncio.wait_for(
                _scenario(subject, specs, cancel_when, budget, capture), GUARD_SECONDS
            )
        )
    finally:
        root.removeHandler(capture)
        root.setLevel(level)
    return seen


async def _scenario(
    subject: Subject,
    specs: tuple[Spec, ...],
    cancel_when: tuple[str, ...],
    budget: float | None,
    capture: _Capture,
) -> Seen:
    trace: list[str] = []
    scene = Scene(
        trace,
        asyncio.get_running_loop(),
        threading.get_ident(),
        sum(isinstance(s, Rendezvous) for s in specs),
    )
    dispatcher = subject.new(budget)
    payload = subject.payload()
    for n, spec in enumerate(specs):
        subject.on(dispatcher, spec.make(scene), n, payload)
    error: BaseException | None = None
    try:
        if not subject.is_async:
            subject.fire(dispatcher, payload)
        elif not cancel_when:
            await subject.fire(dispatcher, payload)
        else:
            await _cancelled(subject.fire(dispatcher, payload), scene, cancel_when)
    except BaseException as exc:  # noqa: BLE001 -- how the emission ended is what is pinned
        error = exc
    trace.append("emit raised" if error is not None else "emit returned")
    for _ in range(
        SETTLE_ROUNDS
    ):  # what the emission left behind may run now: it shows
        await asyncio.sleep(0)
    scene.close()
    return Seen(list(trace), error, dict(scene.raised), list(capture.records))


async def _cancelled(emission: Any, scene: Scene, labels: tuple[str, ...]) -> Any:
    """Run the emission as a task and cancel it once every handler in *labels* entered."""
    task = asyncio.ensure_future(emission)
    waits = [scene.entered[label].wait() for label in labels if label in scene.entered]
    try:
        await asyncio.wait_for(asyncio.gather(*waits), ENTRY_GUARD_SECONDS)
    except TimeoutError:
        scene.trace.append("cancelled before every handler entered")
    task.cancel()
    return await task
