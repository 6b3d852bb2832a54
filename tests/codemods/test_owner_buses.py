"""A user-written bus of each loop shape, rewritten by `planeshift migrate --owners` and
characterized before and after: the rewrite is exactly AFTER, a second run changes nothing, and
the same behaviour probe gives the same observations on the bus as written and as rewritten.

The probes run the fixture code (imported from tmp_path); planeshift itself never does.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from analyzer.helpers import write_tree

from planeshift.codemods import migrate
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.model import MigrateResult
from planeshift.config import Config

from .owner_buses import AFTER, BEFORE

PACK = Path(__file__).resolve().parents[1] / "fixtures" / "packs" / "owner_buses.yaml"
SHAPES = sorted(BEFORE)
TABLES = {"seq_isolate", "seq_propagate", "task_group", "offload"}  # storage -> kernel table


def _run(root: Path, **options: Any) -> MigrateResult:
    config = Config(root=root, packs=(PACK,), builtin_packs=(), use_cache=False, jobs=1,
                    use_context=False)
    return migrate(config, MigrateOptions(owners=True, write=True, **options))


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MigrateResult]:
    root = tmp_path_factory.mktemp("owner_buses")
    write_tree(root, {f"buses/{shape}.py": source for shape, source in BEFORE.items()})
    return root, _run(root)


@pytest.mark.parametrize("shape", SHAPES)
def test_each_loop_shape_is_rewritten_to_exactly_its_after(
        migrated: tuple[Path, MigrateResult], shape: str) -> None:
    root, result = migrated
    assert not result.failed, [n for n in result.not_migrated if n.error]
    assert (root / "buses" / f"{shape}.py").read_text(encoding="utf-8") == AFTER[shape]
    done = {m.codemod for m in result.migrated if m.file == f"buses/{shape}.py"}
    assert done == ({"owner_dispatch", "owner_table"} if shape in TABLES else {"owner_dispatch"})


def test_a_second_run_changes_nothing(migrated: tuple[Path, MigrateResult]) -> None:
    root, _ = migrated
    again = _run(root)
    assert again.changes == ()
    assert not again.failed


def test_the_report_names_each_owner_policy_and_profile(
        migrated: tuple[Path, MigrateResult]) -> None:
    from planeshift.codemods.report.owners import owners

    records = {r["class"]: r for r in owners(migrated[1])}
    assert set(records) == {"SeqBus", "FirstFailureBus", "GatherBus", "TaskGroupBus",
                            "OffloadBus", "DeadlineBus"}
    gather = records["GatherBus"]["entries"][0]
    assert (gather["profile"], gather["matched"], gather["shape"]) == ("scheduler", "exact",
                                                                       "gather")
    deadline = records["DeadlineBus"]["entries"][0]
    assert deadline["policy"]["failure"] == "isolate_base_exceptions"
    assert deadline["policy"]["handler_cancellation"] == "cancel_siblings_and_return"
    assert records["DeadlineBus"]["storage"]["status"] == "kept"
    assert records["SeqBus"]["storage"] == {"status": "table", "attribute": "_handlers",
                                            "table": "FanoutDispatcher", "reason": None}


# -- behaviour, before and after ------------------------------------------------------------------


def _load(root: Path, shape: str, source: str, tag: str) -> ModuleType:
    path = root / tag / f"{shape}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"owner_bus_{shape}_{tag}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def _logged(name: str) -> Iterator[list[str]]:
    """What *name* logs while the block runs: level, message, the exception's class."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            exc = record.exc_info[1] if record.exc_info else None
            lines.append(f"{record.levelname} {record.getMessage()}"
                         + (f" [{type(exc).__name__}]" if exc is not None else ""))

    logger = logging.getLogger(name)
    handler, level, propagate = Keep(), logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


async def _ending(awaitable: Awaitable[Any]) -> str:
    try:
        return f"returned {await awaitable!r}"
    except BaseException as exc:  # noqa: BLE001 - how it ended is the observation
        cause = exc.__cause__
        return (f"raised {type(exc).__name__}: {exc}"
                + (f" from {type(cause).__name__}: {cause}" if cause is not None else ""))


async def _cancel_when(awaitable: Awaitable[Any], entered: asyncio.Event) -> str:
    task = asyncio.ensure_future(awaitable)
    await entered.wait()
    task.cancel()
    return await _ending(task)


def _waits(trace: list[str], label: str, entered: asyncio.Event | None = None) -> Callable[..., Any]:
    async def handler(event: Any) -> None:
        if entered is not None:
            entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            trace.append(f"{label} cancelled")
            raise

    return handler


async def seq_isolate(mod: ModuleType) -> list[str]:
    seen: list[str] = []

    class Owner:
        def on(self, event: Any) -> None:
            seen.append(f"bound {event}")

    async def later(event: Any) -> str:
        seen.append(f"coroutine {event}")
        return "ignored"

    async def async_handler(event: Any) -> None:
        seen.append(f"async {event}")

    def bad(event: Any) -> None:
        raise ValueError(f"bad {event}")

    owner = Owner()
    bus = mod.SeqBus()
    for handler in (owner.on, async_handler, bad, lambda e: later(e), "not callable"):
        bus.subscribe(handler)
    with _logged("buses.seq_isolate") as logs:
        seen.append(await _ending(bus.emit(1)))
    seen += [f"{line.split()[0]} {line.split()[-1]}" for line in logs]
    bus.unsubscribe(Owner.on.__get__(owner))  # an equal bound method, as list.remove finds it
    bus.unsubscribe(bad)
    bus.unsubscribe(print)  # not subscribed: nothing happens
    seen.append(f"count {bus.handler_count()}")

    async def cancels(event: Any) -> None:
        raise asyncio.CancelledError("own")

    bus.subscribe(cancels)
    bus.subscribe(lambda e: seen.append("after the cancellation"))
    with _logged("buses.seq_isolate") as logs:
        seen.append(await _ending(bus.emit(2)))
    return seen + [f"{line.split()[0]} {line.split()[-1]}" for line in logs]


async def seq_propagate(mod: ModuleType) -> list[str]:
    seen: list[str] = []
    bus = mod.FirstFailureBus()
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def coroutine(event: Any) -> None:
        seen.append(f"coroutine awaited {event}")

    bus.subscribe(lambda e: seen.append(f"sync {e}"))
    bus.subscribe(lambda e: coroutine(e))
    bus.subscribe(lambda e: future)  # not an asyncio coroutine: never awaited
    seen.append(await _ending(bus.emit(1)))
    seen.append(f"future done {future.done()}")
    boom = KeyError("first")

    def bad(event: Any) -> None:
        raise boom

    bus.subscribe(bad)
    bus.subscribe(lambda e: seen.append("never"))
    ending = bus.emit(2)
    try:
        await ending
    except KeyError as exc:
        seen.append(f"raised the handler's own exception: {exc is boom}")
    seen.append(f"failures {bus.failures}")
    return seen


async def gather_collect(mod: ModuleType) -> list[str]:
    seen: list[str] = []
    bus = mod.GatherBus()
    barrier = asyncio.Barrier(2)

    async def party(label: str) -> str:
        seen.append(f"{label} waiting")
        await barrier.wait()
        return label

    bus.subscribe(lambda e: party("a"))
    bus.subscribe(lambda e: None)  # a None result is left out
    bus.subscribe(lambda e: party("b"))
    bus.subscribe(lambda e: "skipped", when=lambda e: e != 1)
    seen.append(await _ending(bus.emit(1)))
    seen.append(f"delivered {bus.delivered}")

    def bad(label: str) -> Callable[[Any], Any]:
        def handler(event: Any) -> None:
            raise ValueError(label)

        return handler

    failing = mod.GatherBus()
    failing.subscribe(bad("x"))
    failing.subscribe(lambda e: "fine")
    failing.subscribe(bad("y"), when=lambda e: 1 / 0)  # a raising filter fails like its handler
    failing.subscribe(bad("z"))
    try:
        await failing.emit(2)
    except ExceptionGroup as group:
        seen.append(f"group {group.message}: {[str(e) for e in group.exceptions]}")
    trace: list[str] = []

    async def cancels(event: Any) -> None:
        raise asyncio.CancelledError("own")

    cancelling = mod.GatherBus()
    cancelling.subscribe(cancels)
    cancelling.subscribe(bad("w"))
    cancelling.subscribe(lambda e: trace.append("sibling completes"))
    seen.append(await _ending(cancelling.emit(3)))
    seen += trace
    entered = asyncio.Event()
    emitter = mod.GatherBus()
    emitter.subscribe(_waits(trace, "handler", entered))
    seen.append(await _cancel_when(emitter.emit(4), entered))
    seen += trace[1:]
    return seen


async def task_group(mod: ModuleType) -> list[str]:
    seen: list[str] = []
    bus = mod.TaskGroupBus()

    async def fine(event: Any) -> None:
        seen.append(f"fine {event}")

    def failing(event: Any) -> None:
        raise RuntimeError("down")

    bus.listen(failing)
    bus.listen(fine)
    with _logged("buses.task_group") as logs:
        seen.append(await _ending(bus.emit(1)))
    seen += logs
    trace: list[str] = []

    async def cancels(event: Any) -> None:
        trace.append("cancelling")
        raise asyncio.CancelledError("own")

    own = mod.TaskGroupBus()
    own.listen(_waits(trace, "sibling"))
    own.listen(cancels)
    seen.append(await _ending(own.emit(2)))
    seen += trace
    entered = asyncio.Event()
    emitter = mod.TaskGroupBus()
    emitter.listen(_waits(trace, "blocked", entered))
    seen.append(await _cancel_when(emitter.emit(3), entered))
    seen += trace[2:]
    return seen


async def offload(mod: ModuleType) -> list[str]:
    seen: list[str] = []
    home = threading.get_ident()

    def where() -> str:
        return "loop thread" if threading.get_ident() == home else "worker thread"

    async def on_loop() -> None:
        seen.append(f"returned coroutine on {where()}")

    async def async_handler(event: Any) -> None:
        seen.append(f"async handler on {where()}")

    def sync_handler(event: Any) -> Any:
        seen.append(f"sync handler on {where()}")
        return on_loop()

    def bad(event: Any) -> None:
        raise OSError("disk")

    bus = mod.OffloadBus()
    for handler in (sync_handler, async_handler, bad):
        bus.subscribe(handler)
    with _logged("buses.offload") as logs:
        seen.append(await _ending(bus.emit(1)))
    return seen + logs


async def deadline(mod: ModuleType) -> list[str]:
    seen: list[str] = []

    async def fast(event: Any) -> None:
        seen.append("fast done")

    async def exits(event: Any) -> None:
        raise SystemExit(3)

    async def interrupted(event: Any) -> None:
        raise KeyboardInterrupt

    trace: list[str] = []
    bus = mod.DeadlineBus(budget=0.05)
    for handler in (fast, _waits(trace, "slow a"), exits, _waits(trace, "slow b"), interrupted):
        bus.subscribe(handler)
    with _logged("buses.deadline") as logs:  # the slow ones wait forever: the budget ends them
        seen.append(await _ending(bus.emit(1)))
    seen += sorted(trace) + sorted(line.split(" failed")[1] for line in logs)
    unbounded = mod.DeadlineBus(budget=None)

    async def slow(event: Any) -> None:
        await asyncio.sleep(0.08)
        seen.append("slow finished without a deadline")

    unbounded.subscribe(slow)
    seen.append(await _ending(unbounded.emit(2)))
    return seen


PROBES: dict[str, Callable[[ModuleType], Awaitable[list[str]]]] = {
    "seq_isolate": seq_isolate, "seq_propagate": seq_propagate, "gather_collect": gather_collect,
    "task_group": task_group, "offload": offload, "deadline": deadline,
}
EXPECTED: dict[str, list[str]] = {
    "seq_isolate": [
        "bound 1", "async 1", "coroutine 1", "returned None", "ERROR [ValueError]",
        "ERROR [TypeError]", "count 3", "async 2", "coroutine 2", "raised CancelledError: own",
        "ERROR [TypeError]",
    ],
    "seq_propagate": [
        "sync 1", "coroutine awaited 1", "returned 3", "future done False", "sync 2",
        "coroutine awaited 2", "raised the handler's own exception: True",
        """failures ["KeyError: 'first'"]""",
    ],
    "gather_collect": [
        "a waiting", "b waiting", "returned ['a', 'b']", "delivered 3",
        "group 3 handler(s) failed for 2: ['x', 'division by zero', 'z']",
        ("raised HandlerCancelled: own from ExceptionGroup: 1 handler(s) failed for 3 (1 "
        "sub-exception)"),
        "sibling completes", "raised CancelledError: ", "handler cancelled",
    ],
    "task_group": [
        "fine 1", "returned None", "WARNING listener failing failed: down", "returned None",
        "cancelling", "sibling cancelled", "raised CancelledError: ", "blocked cancelled",
    ],
    "offload": [
        "sync handler on worker thread", "returned coroutine on loop thread",
        "async handler on loop thread", "returned None", "ERROR handler failed [OSError]",
    ],
    "deadline": [
        "fast done", "returned None", "slow a cancelled",
        "slow b cancelled", " [KeyboardInterrupt]", " [SystemExit]",
        "slow finished without a deadline", "returned None",
    ],
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_bus_behaves_the_same_before_and_after_the_rewrite(tmp_path: Path, shape: str) -> None:
    observed = {}
    for tag, source in (("before", BEFORE[shape]), ("after", AFTER[shape])):
        module = _load(tmp_path, shape, source, tag)

        async def main(module: ModuleType = module) -> list[str]:
            return await asyncio.wait_for(PROBES[shape](module), 5.0)

        observed[tag] = asyncio.run(main())
        sys.modules.pop(module.__name__, None)
    assert observed["before"] == EXPECTED[shape]
    assert observed["after"] == observed["before"]


def test_a_file_that_cannot_be_read_keeps_the_owners_storage(tmp_path: Path) -> None:
    """The table rewrite is safe only when nothing outside the class reaches the handler list;
    a module that cannot be read might, so the storage is kept and the reason names it, and the
    run goes on (the loop is still rewritten)."""
    write_tree(tmp_path, {"buses/seq_isolate.py": BEFORE["seq_isolate"]})
    (tmp_path / "buses" / "broken.py").symlink_to("nowhere.py")
    result = _run(tmp_path)
    assert {m.codemod for m in result.migrated} == {"owner_dispatch"}, result.not_migrated
    assert any("broken.py (it cannot be read, so it might be)" in n.reason
               for n in result.not_migrated), result.not_migrated
