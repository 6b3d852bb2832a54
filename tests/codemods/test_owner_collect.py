"""owner_dispatch on a loop that collects every failure (ADR-0120 D2's message-manager
profiles): the shapes it rewrites behave as before, and each near miss is left byte for byte with
its reason."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path
from typing import Any

import pytest
from analyzer.helpers import DEMO_FILES, write_tree

from planeshift.codemods.owner.examples_collect import COLLECT_EXAMPLES

from .helpers import dedent, run

ASYNC_HEAD = '''
import logging

from lionagi.ln.concurrency import is_coro_func

logger = logging.getLogger(__name__)


def raise_failures(errors):
    if len(errors) == 1:
        raise errors[0]
    raise BaseExceptionGroup("listeners failed", errors)


class Relay:
    def __init__(self):
        self._listeners = []

    def listen(self, listener):
        self._listeners.append(listener)
'''

ASYNC_LOOP = '''
        for listener in list(self._listeners):
            try:
                if is_coro_func(listener):
                    await listener(event)
                else:
                    listener(event)
            except BaseException as exc:
                errors.append(exc)
'''

SYNC_HEAD = '''
from lionagi.ln.concurrency import is_coro_func


def raise_failures(errors):
    if len(errors) == 1:
        raise errors[0]
    raise BaseExceptionGroup("listeners failed", errors)


class Relay:
    def __init__(self):
        self._listeners = []
        self.history = []

    def listen(self, listener):
        self._listeners.append(listener)

    def _preflight(self):
        listeners = list(self._listeners)
        for listener in listeners:
            if is_coro_func(listener):
                raise RuntimeError("async listener")
        return listeners
'''

NOTIFY = '''
    def _notify(self, event, listeners):
        errors = []
        for listener in listeners:
            try:
                listener(event)
            except BaseException as exc:
                errors.append(exc)
        if errors:
            raise_failures(errors)
'''


def _migrate(tmp_path: Path, source: str) -> tuple[str, list[str], Any]:
    write_tree(tmp_path, {**DEMO_FILES, "example.py": dedent(source)})
    result = run(tmp_path, ("owner_dispatch",), owners=True)
    assert not result.failed, [n for n in result.not_migrated if n.error]
    reasons = [n.reason for n in result.not_migrated
               if n.file == "example.py" and n.codemod == "owner_dispatch"]
    return (tmp_path / "example.py").read_text(), reasons, result


def _refused(tmp_path: Path, source: str) -> str:
    text, reasons, _ = _migrate(tmp_path, source)
    assert text == dedent(source)
    assert len(reasons) == 1, reasons
    return reasons[0]


CASES = {
    "list_read_after_the_raise": (ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP + '''        if errors:
            raise_failures(errors)
        return errors
''', "error surface: Relay.fire collects every failure into `errors` and `return errors` uses"),
    "a_statement_between_loop_and_raise": (ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP + '''        logger.info("fired %s", event)
        if errors:
            raise_failures(errors)
''', "error surface: Relay.fire collects every failure into `errors` and "
     "`logger.info(\"fired %s\", event)` follows the loop"),
    "helper_that_may_return": (ASYNC_HEAD.replace(
        "    raise BaseExceptionGroup(\"listeners failed\", errors)\n",
        "    if errors:\n        raise BaseExceptionGroup(\"listeners failed\", errors)\n") + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP + '''        if errors:
            raise_failures(errors)
''', "error surface: Relay.fire collects every failure into `errors` and `raise_failures` may "
     "return instead of raising"),
    "helper_that_groups_a_single_failure": (ASYNC_HEAD.replace(
        "    if len(errors) == 1:\n        raise errors[0]\n", "") + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP + '''        if errors:
            raise_failures(errors)
''', "error surface: Relay.fire collects every failure into `errors` and `raise_failures` does "
     "not start with `if len(errors) == 1: raise errors[0]`"),
    "always_a_group_inline": (ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP + '''        if errors:
            raise BaseExceptionGroup("failed", errors)
''', "error surface: Relay.fire collects every failure into `errors` and `if errors:` raises "
     "them in a form not read"),
    "clause_logs_before_collecting": (ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []
        for listener in list(self._listeners):
            try:
                if is_coro_func(listener):
                    await listener(event)
                else:
                    listener(event)
            except BaseException as exc:
                logger.warning("listener failed")
                errors.append(exc)
        if errors:
            raise_failures(errors)
''', "handler cancellation: `except BaseException` (Relay.fire) catches the handler's "
     "cancellation too"),
    "collects_one_class": (ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []
        for listener in list(self._listeners):
            try:
                if is_coro_func(listener):
                    await listener(event)
                else:
                    listener(event)
            except ValueError as exc:
                errors.append(exc)
        if errors:
            raise_failures(errors)
''', "failure: `except ValueError` (Relay.fire) collects only that class"),
    "sync_entry_mutates_before_its_preflight": (SYNC_HEAD + '''
    def fire(self, event):
        self.history.append(event)
        listeners = self._preflight()
        self._notify(event, listeners)
''' + NOTIFY, "sync entry: Relay.fire is synchronous and its first statement "
              "(`self.history.append(event)`) is not `snapshot = self.<preflight>()`"),
    "sync_preflight_that_refuses_nothing": (SYNC_HEAD.replace(
        "            if is_coro_func(listener):\n                raise RuntimeError(\"async listener\")\n",
        "            pass\n") + '''
    def fire(self, event):
        listeners = self._preflight()
        self.history.append(event)
        self._notify(event, listeners)
''' + NOTIFY, "sync entry: Relay.fire is synchronous and its first statement "
              "(`listeners = self._preflight()`) is not"),
    "sync_helper_called_twice": (SYNC_HEAD + '''
    def fire(self, event):
        listeners = self._preflight()
        self.history.append(event)
        self._notify(event, listeners)

    def replay(self):
        self._notify(self.history[-1], list(self._listeners))
''' + NOTIFY, "sync entry: _notify is called 2 times in Relay"),
    "sync_helper_rebinds_the_snapshot": (SYNC_HEAD + '''
    def fire(self, event):
        listeners = self._preflight()
        self.history.append(event)
        self._notify(event, listeners)
''' + NOTIFY.replace("        errors = []\n",
                     "        errors = []\n        listeners = self._listeners\n"),
        "sync entry: _notify binds `listeners` again before its fan-out"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_near_miss_is_left_alone_with_the_reason(tmp_path: Path, case: str) -> None:
    source, reason = CASES[case]
    got = _refused(tmp_path, source)
    assert got.startswith(reason), got


def test_collecting_exceptions_only_lets_cancellation_propagate(tmp_path: Path) -> None:
    source = ASYNC_HEAD + '''
    async def fire(self, event):
        errors = []''' + ASYNC_LOOP.replace("except BaseException", "except Exception") + '''        if errors:
            raise_failures(errors)
'''
    text, reasons, result = _migrate(tmp_path, source)
    assert reasons == []
    (done,) = [m for m in result.migrated if m.file == "example.py"]
    axes = done.owner["policy"]["axes"]
    assert (axes["failure"], axes["handler_cancellation"]) == ("collect", "propagate")
    assert 'handler_cancellation="propagate"' in text
    assert "group=raise_failures," in text


def test_stale_kernels_without_fan_out_sync_refuse_a_sync_entry(tmp_path: Path) -> None:
    from planeshift.codemods.owner.plan import sync_kernel_missing

    stale = tmp_path / "myapp" / "runtime" / "dispatch"
    stale.mkdir(parents=True)
    (stale / "__init__.py").write_text("")
    assert (sync_kernel_missing(tmp_path, "myapp.runtime.dispatch") or "").startswith(
        "sync entry: the kernels at")
    assert sync_kernel_missing(tmp_path, "planeshift.kernels") is None


# -- the rewritten fixtures behave as their originals --------------------------------------------


def _module(source: str) -> types.ModuleType:
    module = types.ModuleType("example")
    exec(compile(dedent(source), "example.py", "exec"), module.__dict__)  # noqa: S102 - our fixture
    return module


def _outcome(fire: Any) -> tuple[str, Any]:
    try:
        value = fire()
        if asyncio.iscoroutine(value):
            value = asyncio.run(value)
    except BaseExceptionGroup as group:
        return f"group {group.message}", [repr(e) for e in group.exceptions]
    except BaseException as exc:  # noqa: BLE001 - what leaves is the behaviour under test
        return "raised", repr(exc)
    return "returned", value


def _scenarios(trace: list[str]) -> dict[str, list[Any]]:
    def ok(event: Any) -> None:
        trace.append(f"ok {event}")

    def bad(event: Any) -> None:
        trace.append(f"bad {event}")
        raise ValueError(event)

    def leaving(event: Any) -> None:
        trace.append(f"leaving {event}")
        raise KeyboardInterrupt(event)

    async def later(event: Any) -> None:
        trace.append(f"later {event}")

    def returns_awaitable(event: Any) -> Any:
        trace.append(f"returns {event}")
        return None  # a coroutine would be dropped unawaited before and after alike

    return {"none": [], "ok": [ok, ok], "one": [ok, bad, ok], "two": [bad, ok, bad],
            "interrupt": [leaving, ok], "mixed": [bad, leaving, ok], "async": [later, ok],
            "returned": [returns_awaitable]}


@pytest.mark.parametrize("index", range(len(COLLECT_EXAMPLES)))
def test_the_rewritten_fixture_behaves_as_its_original(index: int) -> None:
    example = COLLECT_EXAMPLES[index]
    results = []
    trace: list[str] = []
    scenarios = _scenarios(trace)  # the same functions for both, so their reprs agree
    for source in (example.before, example.after):
        module = _module(source)
        seen = {}
        for name, listeners in scenarios.items():
            relay = module.Relay()
            for listener in listeners:
                relay.listen(listener)
            trace.clear()
            seen[name] = (_outcome(lambda relay=relay, name=name: relay.fire(name)), list(trace))
        results.append(seen)
    before, after = results
    assert after == before
    assert before["two"][0][0].startswith("group") and before["one"][0][0] == "raised"


def test_an_import_the_method_made_for_its_loop_goes_with_the_loop(tmp_path: Path) -> None:
    source = ASYNC_HEAD.replace("from lionagi.ln.concurrency import is_coro_func\n", "") + '''
    async def fire(self, event):
        from lionagi.ln.concurrency import is_coro_func, maybe_await

        await maybe_await(event)
        errors = []''' + ASYNC_LOOP + '''        if errors:
            raise_failures(errors)
'''
    text, reasons, _ = _migrate(tmp_path, source)
    assert reasons == []
    assert ("    async def fire(self, event):\n"
            "        from lionagi.ln.concurrency import maybe_await\n\n"
            "        await maybe_await(event)\n") in text


def test_a_dropped_first_import_leaves_no_blank_line_after_the_def() -> None:
    import libcst as cst

    from planeshift.codemods.owner.local_imports import drop_unused_local_imports

    before = cst.parse_module("def f():\n    from m import g\n\n    # kept\n    g()\n    h()\n")
    after = cst.parse_module("def f():\n    from m import g\n\n    # kept\n    h()\n")
    old = before.body[0].body.body  # type: ignore[attr-defined]
    new = drop_unused_local_imports(list(old), list(after.body[0].body.body))  # type: ignore[attr-defined]
    fn = after.body[0].with_changes(body=after.body[0].body.with_changes(body=new))  # type: ignore[attr-defined]
    assert after.with_changes(body=[fn]).code == "def f():\n    # kept\n    h()\n"
