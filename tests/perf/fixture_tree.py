"""The fixture tree the cache and incremental tests scan: ~40 modules registering handlers on
the demo bus (big enough that a cold scan forks helpers), and the one way
they run a scan and compare reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analyzer.helpers import DEMO_FILES, DEMO_PACK

from planeshift.api import scan
from planeshift.config import Config
from planeshift.reports.json_report import render_json
from planeshift.types import ScanResult

N_MODULES = 40

# Each template is one module shape; @I is the module's number, @P the previous module's, so
# handlers cross module boundaries and the link step has names to resolve.
TEMPLATES = (
    '''
    from demo.bus import EventBus, Point
    from app.mod_@P import handle_@P

    async def handle_@I(**payload):
        return payload

    def setup_@I(bus: EventBus) -> None:
        bus.on(Point.BEFORE, handle_@I)
        bus.subscribe(handler=handle_@P)
    ''',
    '''
    from demo.bus import EventBus, Point, hook

    @hook(Point.AFTER)
    def handle_@I(**payload):
        return None

    class Service@I:
        def __init__(self) -> None:
            self.bus = EventBus()
            self.bus.intercept(self.check)
            self.bus.gate = self.allow

        def check(self, **payload):
            raise PermissionError("denied")

        def allow(self, payload):
            return True
    ''',
    '''
    import asyncio
    import functools

    from demo.bus import EventBus, Point

    async def _record(event):
        await asyncio.sleep(0)

    def handle_@I(event):
        return _record(event)

    bus_@I = EventBus(
        on_event=[handle_@I, functools.partial(_record), lambda e: _record(e)],
        hooks={Point.AFTER: handle_@I},
    )
    ''',
    '''
    from demo.bus import Deferred, EventBus, Point
    from app import mod_@P

    class Later@I(Deferred):
        def add(self, fn) -> None:
            self._queued.append((Point.AFTER, fn))
            if not self._queued:  # the same form twice: shown at its first line
                self._queued.append((Point.AFTER, fn))

    bus = EventBus()
    alias = bus.on

    @bus.on(Point.AFTER)
    async def handle_@I(**payload):
        return None

    alias(Point.NEVER_EMITTED, mod_@P.handle_@P)
    ''',
    '''
    def handle_@I(value):
        return value * @I
    ''',
)
# a handler whose receiver has no type, taken to be the only method of its name
UNTYPED = {
    "app/untyped.py": '''
    from typing import Any

    from demo.bus import EventBus

    class Recorder:
        async def on_recorded(self, event):
            return event

    def wire(bus: EventBus, recorder: Any) -> None:
        bus.subscribe(recorder.on_recorded)
    ''',
}
BROKEN = {
    "app/broken_def.py": "def broken(:\n    pass\n",
    "app/broken_call.py": "from demo.bus import EventBus\nEventBus().on(\n",
}


def fixture_files() -> dict[str, str]:
    files = dict(DEMO_FILES)
    for i in range(N_MODULES):
        source = TEMPLATES[i % len(TEMPLATES)]
        previous = str((i - 1) % N_MODULES)
        files[f"app/mod_{i}.py"] = source.replace("@I", str(i)).replace("@P", previous)
    files.update(UNTYPED)
    files.update(BROKEN)
    return files



def run(root: Path, cache: Path | None = None, jobs: int = 2) -> ScanResult:
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=cache is not None,
                    cache_dir=cache, jobs=jobs)
    return scan(config)


def report(result: ScanResult) -> dict[str, Any]:
    """The JSON report without ``stats``, whose timings and cache counters vary by design."""
    data = json.loads(render_json(result))
    del data["stats"]
    return data
