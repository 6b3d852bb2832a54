"""Shared helpers for analyzer tests: write a small source tree, scan it, pick registrations."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from planeshift.api import scan
from planeshift.config import Config
from planeshift.types import Registration, ScanResult

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEMO_PACK = FIXTURES / "packs" / "demo.yaml"

# The home-grown event bus that tests/fixtures/packs/demo.yaml describes: real, runnable Python.
# It registers nothing itself, so every registration a test finds comes from the code under test.
DEMO_BUS = '''
"""A small home-grown event bus: point handlers, subscribers, durable sinks, a gate, notification
callbacks, and terminal outcome callbacks with their one owner."""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from typing import Any

Handler = Callable[..., Any]
_PENDING: list[tuple["Point", Handler]] = []


class Point(enum.Enum):
    BEFORE = "before"
    AFTER = "after"
    NEVER_EMITTED = "never_emitted"


def hook(point: Point) -> Callable[[Handler], Handler]:
    """Register *fn* on every bus created afterwards."""

    def decorate(fn: Handler) -> Handler:
        _PENDING.append((point, fn))
        return fn

    return decorate


class EventBus:
    def __init__(
        self,
        on_event: Handler | list[Handler] | None = None,
        hooks: dict[Point, Handler] | None = None,
    ) -> None:
        self._table: dict[Point, list[Handler]] = {p: [] for p in Point}
        self._subscribers: list[Handler] = []
        self.gate: Callable[[dict[str, Any]], bool] | None = None
        self._initial = [*_PENDING, *(hooks or {}).items()]
        for point, fn in self._initial:
            self._table[point].append(fn)
        listeners = on_event if isinstance(on_event, list) else [on_event] if on_event else []
        self._callbacks: list[Handler] = list(listeners)
        self._named: dict[Point, Handler] = {}  # one handler per point, stored by key
        self._buckets: dict[str, list[Handler]] = {}  # lists of handlers by a "phase:name" key

    def on(self, point: Point, handler: Handler | None = None) -> Any:
        """``bus.on(point, fn)``, or ``@bus.on(point)`` as a decorator."""
        if handler is None:

            def decorate(fn: Handler) -> Handler:
                self._table[point].append(fn)
                return fn

            return decorate
        self._table[point].append(handler)
        return handler

    def subscribe(self, handler: Handler) -> Handler:
        self._subscribers.append(handler)
        return handler

    def intercept(self, handler: Handler) -> Handler:
        self._table[Point.BEFORE].append(handler)
        return handler

    def persist(self, handler: Handler) -> Handler:
        """A durable audit sink: it sees every emission the gate lets through."""
        self._subscribers.append(handler)
        return handler

    async def emit(self, point: Point, **payload: Any) -> bool:
        if self.gate is not None and not self.gate(payload):
            return False
        for handler in [*self._table[point], *self._subscribers]:
            result = handler(**payload)
            if inspect.isawaitable(result):
                await result
        return True

    def notify(self, event: Any) -> None:
        for callback in self._callbacks:
            callback(event)  # a returned awaitable is dropped: DISCARD_UNAWAITED


class Deferred:
    """(point, handler) pairs queued before a bus exists, attached to it later."""

    def __init__(self) -> None:
        self._queued: list[tuple[Point, Handler]] = []

    def attach(self, bus: EventBus) -> None:
        for point, fn in self._queued:
            bus._table[point].append(fn)


async def run_operation(bus: EventBus) -> None:
    await bus.emit(Point.BEFORE)
    await bus.emit(Point.AFTER)


class Outcome:
    """A run's terminal fact; the transition that committed it gives its identity."""

    def __init__(self, event_id: str, status: str) -> None:
        self.event_id, self.status = event_id, status


class Outcomes:
    """Terminal callbacks: told once per logical completion, by the run's owner."""

    def __init__(self) -> None:
        self._handlers: list[Handler] = []

    def register(self, handler: Handler) -> None:
        self._handlers.append(handler)

    async def emit(self, outcome: Outcome) -> None:
        for handler in self._handlers:
            await handler(outcome)


OUTCOMES = Outcomes()


async def finish(transition_id: str, status: str) -> None:
    """The owner's transition path: the one public source of a run's outcome."""
    await OUTCOMES.emit(Outcome(event_id=transition_id, status=status))


class HookimplMarker:
    """Marks a plugin's hook implementation, pluggy-style: ``impl = HookimplMarker("demo")``."""

    def __init__(self, project: str) -> None:
        self.project = project

    def __call__(self, function=None, *, tryfirst: bool = False, wrapper: bool = False):
        def mark(func):
            func.demo_impl = {"tryfirst": tryfirst, "wrapper": wrapper}
            return func
        return mark if function is None else mark(function)


class HookspecMarker(HookimplMarker):
    """Marks a hook's specification (a module using it declares hooks)."""


class PluginManager:
    """Plugins register whole: their marked (or ``demo_``-named) functions are the hooks."""

    def __init__(self) -> None:
        self.plugins: list[object] = []

    def register(self, plugin: object) -> None:
        self.plugins.append(plugin)


class Signal:
    """A signal instance is its own point, Django-style: receivers held by weak reference."""

    def __init__(self) -> None:
        self.receivers: list[object] = []

    def connect(self, receiver, sender=None, weak: bool = True) -> None:
        self.receivers.append(receiver)

    def send(self, sender, **named):
        return [(r, r(signal=self, sender=sender, **named)) for r in self.receivers]

    def send_robust(self, sender, **named):
        out = []
        for r in self.receivers:
            try:
                out.append((r, r(signal=self, sender=sender, **named)))
            except Exception as err:
                out.append((r, err))
        return out
'''

DEMO_FILES: dict[str, str] = {"demo/__init__.py": "", "demo/bus.py": DEMO_BUS}


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Write dedented sources under *root*; every folder on the way becomes a package.

    A value of ``bytes`` is written as is (for encoding tests). An explicit entry for a folder's
    ``__init__.py`` wins over the empty one written by default.
    """
    for rel in files:
        folder = Path(rel).parent
        while folder != Path("."):
            init = root / folder / "__init__.py"
            if (folder / "__init__.py").as_posix() not in files and not init.exists():
                init.parent.mkdir(parents=True, exist_ok=True)
                init.write_text("")
            folder = folder.parent
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def scan_tree(
    tmp_path: Path,
    files: Mapping[str, str],
    packs: Iterable[Path] = (DEMO_PACK,),
    builtin: bool | tuple[str, ...] = False,
    demo: bool = True,
) -> ScanResult:
    """Write *files* (plus the demo bus unless ``demo=False``) into *tmp_path* and scan it.

    ``builtin`` is False (no built-in pack), True (all of them) or a tuple of pack names.
    """
    tree = {**DEMO_FILES, **files} if demo else dict(files)
    write_tree(tmp_path, tree)
    builtin_packs: tuple[str, ...] | None
    if builtin is True:
        builtin_packs = None
    elif builtin is False:
        builtin_packs = ()
    else:
        builtin_packs = tuple(builtin)
    # no library source is read (the test venv has lionagi installed): tests of context say so
    config = Config(root=tmp_path, packs=tuple(packs), builtin_packs=builtin_packs,
                    use_cache=False, jobs=1, use_context=False)
    return scan(config)


def _value(reg: Registration, key: str) -> Any:
    if key.startswith("handler_"):
        return getattr(reg.handler, key[len("handler_"):])
    return getattr(reg, key)


def regs(result: ScanResult, **filters: Any) -> list[Registration]:
    """Registrations whose fields equal the filters; ``handler_<field>`` reaches the handler.

    ``file`` defaults to every file but the demo bus's own (``demo/``), which registers nothing.
    """
    out = []
    for reg in result.registrations:
        if "file" not in filters and reg.file.startswith("demo/"):
            continue
        if all(_value(reg, key) == want for key, want in filters.items()):
            out.append(reg)
    return out


def one(result: ScanResult, **filters: Any) -> Registration:
    """The single registration matching *filters*; the failure message lists what was found."""
    found = regs(result, **filters)
    assert len(found) == 1, f"expected one registration for {filters}, got:\n{show(result)}"
    return found[0]


def show(result: ScanResult) -> str:
    """A compact listing of a result's registrations and errors, for assertion messages."""
    lines = [
        f"  {r.file}:{r.line} {r.mechanism} {r.api} point={r.point} "
        f"handler={r.handler.expr}/{r.handler.qualname} plane={r.plane} flags={list(r.flags)}"
        for r in result.registrations
    ]
    lines += [f"  ERROR {e.file}: {e.message}" for e in result.errors]
    return "\n".join(lines) or "  (nothing)"


def summary(reg: Registration) -> tuple:
    """The facts a resolution test pins: (file, line, mechanism, point, handler qualname, plane)."""
    return (reg.file, reg.line, reg.mechanism, reg.point, reg.handler.qualname, reg.plane)


def line_of(source: str, needle: str) -> int:
    """1-based line of the first line of dedented *source* containing *needle*."""
    text = textwrap.dedent(source).lstrip("\n")
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in source")
