"""Dispatch policies read from a user's own bus, one loop shape each (ADR-0120 D2): every axis,
its provenance and the line that decided it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from analyzer.helpers import FIXTURES, line_of, scan_tree

from planeshift.types import DispatchPath, ScanResult

SHAPES_PACK = FIXTURES / "packs" / "shapes.yaml"

SEQUENTIAL = '''
import logging

log = logging.getLogger(__name__)


class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        for handler in list(self._handlers):
            try:
                await maybe_await(handler(event))
            except Exception:
                log.exception("handler failed")


async def maybe_await(value):
    import inspect

    return await value if inspect.isawaitable(value) else value
'''

COLLECT = '''
class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    def emit(self, event):
        errors = []
        for handler in self._handlers:
            try:
                handler(event)
            except BaseException as exc:
                errors.append(exc)
        if errors:
            _raise(errors)


def _raise(errors):
    if len(errors) == 1:
        raise errors[0]
    raise BaseExceptionGroup("handlers failed", errors)
'''

GATHERED = '''
import asyncio


class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        results = await asyncio.gather(*(h(event) for h in self._handlers), return_exceptions=True)
        errors = [r for r in results if isinstance(r, Exception)]
        if errors:
            raise ExceptionGroup("handlers failed", errors)
'''

GROUPED = '''
import inspect
import logging

import anyio

log = logging.getLogger(__name__)


class Bus:
    def __init__(self, budget=5.0):
        self._handlers = []
        self._budget = budget

    def on(self, handler, *, only=None):
        self._handlers.append((handler, only))

    async def emit(self, event):
        wanted = [(h, only) for h, only in self._handlers if only is None or only(event)]
        with anyio.move_on_after(self._budget):
            async with anyio.create_task_group() as tg:
                for handler, _ in wanted:
                    tg.start_soon(self._run, handler, event)

    async def _run(self, handler, event):
        try:
            if inspect.iscoroutinefunction(handler):
                await handler(event)
            else:
                await anyio.to_thread.run_sync(handler, event)
        except Exception:
            log.warning("handler failed", exc_info=True)
'''

AFTER = '''
import asyncio
import inspect


class Bus:
    def __init__(self):
        self._subs = []

    def on(self, handler):
        self._subs.append(handler)

    async def emit(self, event):
        pending = []
        for handler in self._subs:
            out = handler(event)
            if inspect.isawaitable(out):
                pending.append(out)
        if pending:
            await asyncio.gather(*pending)
'''

DISCARD = '''
class Bus:
    def __init__(self):
        self._callbacks = []

    def notify(self, event):
        for callback in self._callbacks:
            callback(event)
'''

TIMED = '''
import asyncio


class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        for handler in self._handlers:
            await asyncio.wait_for(handler(event), timeout=1.0)
'''

TRANSLATED = '''
import asyncio


class HandlerCancelled(Exception):
    pass


class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        for handler in self._handlers:
            try:
                await handler(event)
            except asyncio.CancelledError as exc:
                raise HandlerCancelled(str(exc)) from exc
'''

TASK_GROUP = '''
import asyncio


class Bus:
    def __init__(self):
        self._handlers = []

    def on(self, handler, when=None):
        self._handlers.append((handler, when))

    async def emit(self, event):
        async with asyncio.TaskGroup() as tg:
            for handler, when in self._handlers:
                try:
                    wanted = when is None or when(event)
                except Exception:
                    continue
                if wanted:
                    tg.create_task(handler(event))
'''

SHARED = '''
class Bus:
    def __init__(self):
        self._handlers = []
        self._callbacks = []

    def on(self, handler):
        self._handlers.append(handler)

    async def publish(self, event):
        for handler in self._handlers:
            await handler(event)
        self.notify(event)

    def notify(self, event):
        for callback in self._callbacks:
            callback(event)
'''

SHAPES = {
    "sequential": SEQUENTIAL, "collect": COLLECT, "gathered": GATHERED, "grouped": GROUPED,
    "after": AFTER, "discard": DISCARD, "timed": TIMED, "translated": TRANSLATED,
    "tg": TASK_GROUP, "shared": SHARED,
}
MECHANISM = {
    "sequential": "sequential_isolate", "collect": "collect_group", "gathered": "gather_exceptions",
    "grouped": "task_group_deadline", "after": "gather_after", "discard": "discard",
    "timed": "per_handler_deadline", "translated": "translated", "tg": "asyncio_group",
    "shared": "shared_events",
}

# module -> {axis: (value, text on the line that decided it, or None for no line)}
EXPECTED = {
    "sequential": {
        "concurrency": ("sequential", "for handler in list(self._handlers):"),
        "failure": ("isolate", "except Exception:"),
        "completion": ("await_all", "except Exception:"),
        "error_surface": ("log_only", "except Exception:"),
        "sync_handlers": ("inline", "await maybe_await(handler(event))"),
        "handler_classification": ("by_return_value", "await maybe_await(handler(event))"),
        "returned_value_classifier": ("inspect_awaitable", "await maybe_await(handler(event))"),
        "returned_awaitable": ("await_in_invocation", "await maybe_await(handler(event))"),
        "sync_entry": ("unavailable", "async def emit"),
        "handler_cancellation": ("propagate", "await maybe_await(handler(event))"),
        "predicate_failure": ("not_applicable", None),
        "deadline": ("none", "for handler in list(self._handlers):"),
        "deadline_disposition": ("none", "for handler in list(self._handlers):"),
    },
    "collect": {
        "concurrency": ("sequential", "for handler in self._handlers:"),
        "failure": ("collect", "except BaseException as exc:"),
        "completion": ("await_all", "except BaseException as exc:"),
        "error_surface": ("unwrap_single_else_group", "raise errors[0]"),
        "returned_awaitable": ("discard_unawaited", "handler(event)"),
        "returned_value_classifier": ("not_inspected", "handler(event)"),
        "handler_classification": ("not_applicable", "handler(event)"),
        "sync_entry": ("allow", "def emit"),
        "handler_cancellation": ("collect", "except BaseException as exc:"),
    },
    "gathered": {
        "concurrency": ("concurrent", "results = await asyncio.gather("),
        "failure": ("collect", "results = await asyncio.gather("),
        "completion": ("await_all", "results = await asyncio.gather("),
        "error_surface": ("raise_group", 'raise ExceptionGroup("handlers failed", errors)'),
        "returned_awaitable": ("await_in_invocation", "results = await asyncio.gather("),
        # gathered as a result, then dropped: only isinstance(r, Exception) results are raised
        "handler_cancellation": ("swallowed", "results = await asyncio.gather("),
    },
    "grouped": {
        "concurrency": ("concurrent", "async with anyio.create_task_group() as tg:"),
        "failure": ("isolate", "except Exception:"),
        "error_surface": ("log_only", "except Exception:"),
        "sync_handlers": ("offload", "await anyio.to_thread.run_sync(handler, event)"),
        "handler_classification": ("by_declaration", "if inspect.iscoroutinefunction(handler):"),
        # a sync handler's result comes back from the thread and is dropped, never inspected
        "returned_awaitable": ("discard_unawaited",
                               "await anyio.to_thread.run_sync(handler, event)"),
        "handler_cancellation": ("cancel_siblings_and_return",
                                 "async with anyio.create_task_group() as tg:"),
        "predicate_failure": ("propagate", "wanted = [(h, only)"),
        "deadline": ("shared", "with anyio.move_on_after(self._budget):"),
        "deadline_disposition": ("silent_stop", "with anyio.move_on_after(self._budget):"),
    },
    "after": {
        "concurrency": ("sequential", "for handler in self._subs:"),
        "failure": ("propagate", "out = handler(event)"),
        "completion": ("stop_on_failure", "out = handler(event)"),
        "error_surface": ("raise_first", "out = handler(event)"),
        "handler_classification": ("by_return_value", "if inspect.isawaitable(out):"),
        "returned_value_classifier": ("inspect_awaitable", "if inspect.isawaitable(out):"),
        "returned_awaitable": ("gather_after_invocations", "await asyncio.gather(*pending)"),
    },
    "discard": {
        "concurrency": ("sequential", "for callback in self._callbacks:"),
        "failure": ("propagate", "callback(event)"),
        "returned_awaitable": ("discard_unawaited", "callback(event)"),
        "returned_value_classifier": ("not_inspected", "callback(event)"),
        "sync_entry": ("allow", "def notify"),
        "deadline": ("none", "for callback in self._callbacks:"),
    },
    "timed": {
        "deadline": ("per_handler", "await asyncio.wait_for(handler(event), timeout=1.0)"),
        "deadline_disposition": ("raise", "await asyncio.wait_for(handler(event), timeout=1.0)"),
    },
    "translated": {
        "handler_cancellation": ("translate", "except asyncio.CancelledError as exc:"),
        "failure": ("propagate", "await handler(event)"),
    },
    "tg": {
        "concurrency": ("concurrent", "async with asyncio.TaskGroup() as tg:"),
        "failure": ("propagate", "async with asyncio.TaskGroup() as tg:"),
        "completion": ("cancel_remaining_on_failure", "async with asyncio.TaskGroup() as tg:"),
        "error_surface": ("raise_group", "async with asyncio.TaskGroup() as tg:"),
        # handed to create_task: neither awaited nor dropped here
        "returned_awaitable": ("unknown", None),
        "handler_cancellation": ("absorbed_by_task_group", "async with asyncio.TaskGroup() as tg:"),
        "predicate_failure": ("no_match", "wanted = when is None or when(event)"),
    },
    "shared": {  # notify() belongs to shared_callbacks: its dropped results are not publish's
        "returned_awaitable": ("await_in_invocation", "await handler(event)"),
        "concurrency": ("sequential", "for handler in self._handlers:"),
    },
}


@pytest.fixture(scope="module")
def shapes_scan(tmp_path_factory: pytest.TempPathFactory) -> ScanResult:
    root = tmp_path_factory.mktemp("shapes")
    files = {f"shapes/{name}.py": source for name, source in SHAPES.items()}
    return scan_tree(root, files, packs=(SHAPES_PACK,), demo=False)


def path_of(result: ScanResult, module: str) -> DispatchPath:
    mech = next(m for m in result.mechanisms if m.id == MECHANISM[module])
    assert mech.dispatch_paths, mech.policy_evidence
    return mech.dispatch_paths[0]


CASES = [(module, axis, *want) for module, axes in EXPECTED.items() for axis, want in axes.items()]


@pytest.mark.parametrize(("module", "axis", "value", "needle"), CASES,
                         ids=[f"{m}-{a}" for m, a, _, _ in CASES])
def test_axis_is_read_from_the_loop(shapes_scan, module, axis, value, needle) -> None:
    found = {a.axis: a for a in path_of(shapes_scan, module).axes}[axis]
    provenance = "unknown" if value == "unknown" else "inferred"
    assert (found.value, found.provenance) == (value, provenance), found.evidence
    if needle is not None:
        line = line_of(SHAPES[module], needle)
        where = {(e.file, e.line) for e in found.evidence}
        assert (f"shapes/{module}.py", line) in where, found.evidence


def test_every_axis_of_a_shape_is_decided(shapes_scan) -> None:
    """With the dispatcher's source in view and no declaration, no axis of these shapes is
    left unknown."""
    for module in ("sequential", "collect", "grouped", "after"):
        unknown = [a.axis for a in path_of(shapes_scan, module).axes if a.provenance != "inferred"]
        assert unknown == [], (module, unknown)


def test_the_mechanism_policy_is_the_first_paths(shapes_scan) -> None:
    mech = next(m for m in shapes_scan.mechanisms if m.id == "discard")
    assert dict(mech.policy)["returned_awaitable"] == "discard_unawaited"
    assert [a.axis for a in mech.policy_axes] == [a.axis for a in mech.dispatch_paths[0].axes]


def test_nearest_profile_of_a_user_bus(shapes_scan) -> None:
    assert path_of(shapes_scan, "sequential").profile.name == "broadcaster"
    assert path_of(shapes_scan, "after").profile.name == "session_observer"
    grouped = path_of(shapes_scan, "grouped").profile
    assert grouped.name == "terminal_callback" and grouped.matched == "nearest"


def test_a_registration_inherits_the_discarding_policy(tmp_path: Path) -> None:
    source = DISCARD + textwrap.dedent('''

        async def send(event):
            return event

        Bus()._callbacks.append(lambda event: send(event))
        ''')
    result = scan_tree(tmp_path, {"shapes/discard.py": source}, packs=(SHAPES_PACK,), demo=False)
    reg = next(r for r in result.registrations if r.mechanism == "discard")
    assert "discard_unawaited" in reg.flags
    assert [f.severity for f in result.findings if f.rule == "PS101"] == ["error"]


def test_an_inherited_emission_method_is_the_entry(tmp_path: Path) -> None:
    """The pack names the subclass; its emit() comes from a base the pack does not know."""
    files = {
        "shapes/base.py": """
            class Base:
                def __init__(self):
                    self._callbacks = []

                def notify(self, event):
                    for callback in self._callbacks:
                        callback(event)
            """,
        "shapes/discard.py": "from shapes.base import Base\n\n\nclass Bus(Base):\n    pass\n",
    }
    result = scan_tree(tmp_path, files, packs=(SHAPES_PACK,), demo=False)
    mech = next(m for m in result.mechanisms if m.id == "discard")
    assert [(p.entry, p.file) for p in mech.dispatch_paths] == [("Base.notify", "shapes/base.py")]
    assert dict(mech.policy)["returned_awaitable"] == "discard_unawaited"


@pytest.mark.parametrize(("kept", "value"), [
    ("isinstance(r, Exception)", "swallowed"),  # a cancellation is a result nobody reads
    ("isinstance(r, BaseException)", "collect"),
    ("isinstance(r, (Exception, asyncio.CancelledError))", "collect"),
])
def test_gathered_cancellation_is_swallowed_when_only_ordinary_errors_are_kept(
    tmp_path: Path, kept: str, value: str
) -> None:
    source = GATHERED.replace("isinstance(r, Exception)", kept)
    result = scan_tree(tmp_path, {"shapes/gathered.py": source}, packs=(SHAPES_PACK,), demo=False)
    axis = {a.axis: a for a in path_of(result, "gathered").axes}["handler_cancellation"]
    assert axis.value == value
    if value == "swallowed":  # the comprehension that drops it is cited
        assert any("errors = [r for r in results" in e.seen for e in axis.evidence)


PER_HANDLER_LOGGED = '''
import asyncio
import logging

log = logging.getLogger(__name__)


class Bus:
    def __init__(self, timeout=5.0):
        self.timeout = timeout
        self._handlers = []

    def on(self, handler):
        self._handlers.append(handler)

    async def emit(self, event):
        for handler in list(self._handlers):
            try:
                await asyncio.wait_for(handler(event), self.timeout)
            except Exception:
                log.warning("handler failed", exc_info=True)
'''


@pytest.mark.parametrize(("clause", "value"), [
    ('log.warning("handler failed", exc_info=True)', "log_and_stop"),
    ("pass", "silent_stop"),
    ("raise", "raise"),
])
def test_a_per_handler_timeout_meeting_an_isolating_clause_is_not_raised(
    tmp_path: Path, clause: str, value: str
) -> None:
    source = PER_HANDLER_LOGGED.replace('log.warning("handler failed", exc_info=True)', clause)
    result = scan_tree(tmp_path, {"shapes/timed.py": source}, packs=(SHAPES_PACK,), demo=False)
    axes = {a.axis: a for a in path_of(result, "timed").axes}
    assert axes["deadline"].value == "per_handler"
    assert axes["deadline_disposition"].value == value
