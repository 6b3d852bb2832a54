"""An owner the kernels cannot reproduce is left byte for byte as it is, with a reason that names
the axis or behaviour (the demo pack's `example.Relay` is the dispatcher of each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from analyzer.helpers import DEMO_FILES, write_tree

from .helpers import dedent, run

HEAD = '''
import asyncio
import inspect
import logging

import anyio
import anyio.to_thread

from lionagi.ln.concurrency import gather, is_coro_func, maybe_await

logger = logging.getLogger(__name__)


class StopHook(Exception):
    pass


class Relay:
    def __init__(self):
        self._listeners = []

    def listen(self, listener):
        self._listeners.append(listener)
'''


def _left_alone(tmp_path: Path, source: str) -> list[str]:
    """Migrate with --owners; example.py stays byte for byte; its owner's refusal reasons."""
    write_tree(tmp_path, {**DEMO_FILES, "example.py": dedent(source)})
    original = (tmp_path / "example.py").read_bytes()
    result = run(tmp_path, ("owner_dispatch",), owners=True)
    assert not result.failed, [n for n in result.not_migrated if n.error]
    assert (tmp_path / "example.py").read_bytes() == original
    return [n.reason for n in result.not_migrated
            if n.file == "example.py" and n.codemod == "owner_dispatch"]


def _refused(tmp_path: Path, fire: str) -> str:
    reasons = _left_alone(tmp_path, HEAD + fire)
    assert len(reasons) == 1, reasons
    return reasons[0]


CASES = {
    # near misses of the stop signal (`except StopHook: break`, the first clause, `break` alone)
    "stop_continue": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except StopHook:
                continue
            except Exception:
                logger.exception("failed")
""", "failure: `except StopHook: continue` (Relay.fire) leaves the loop's step"),
    "stop_break_with_a_record": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except StopHook:
                logger.info("stopped")
                break
            except Exception:
                logger.exception("failed")
""", "failure: `except StopHook: break` (Relay.fire) leaves the loop's step"),
    "stop_return": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except StopHook:
                return
            except Exception:
                logger.exception("failed")
        logger.info("all ran")
""", "failure: `except StopHook: return` (Relay.fire) leaves the loop's step"),
    "stop_after_the_isolating_clause": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except Exception:
                logger.exception("failed")
            except StopHook:
                break
""", "failure: `except StopHook: break` (Relay.fire) comes after `except Exception`"),
    "break_on_every_failure": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except Exception:
                break
""", "failure: `except Exception: break` (Relay.fire) stops the fan-out quietly on every"),
    "break_on_cancellation": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except asyncio.CancelledError:
                break
            except Exception:
                logger.exception("failed")
""", "failure: `except asyncio.CancelledError: break` (Relay.fire) stops the fan-out quietly"),
    # near misses of the clause that re-raises some failures (`if <test>: raise` alone)
    "re_raises_something_else": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except Exception as exc:
                if isinstance(exc, KeyError):
                    raise RuntimeError("bad key") from exc
                logger.exception("failed")
""", "failure: `except Exception` (Relay.fire) re-raises some exceptions"),
    "re_raises_with_an_else": ("""
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except Exception as exc:
                if isinstance(exc, KeyError):
                    raise
                else:
                    logger.exception("failed")
""", "failure: `except Exception` (Relay.fire) re-raises some exceptions"),
    # the fan-out inside a try: its step may not bind what the try's clauses read
    "try_clause_reads_the_step": ("""
    async def fire(self, event):
        try:
            for listener in list(self._listeners):
                current = listener
                await maybe_await(listener(event))
        except Exception:
            logger.exception("failed in %s", current)
""", "Relay.fire: the loop body assigns `current`, which the method reads outside the loop"),
    "one_class": ('''
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except ValueError:
                logger.exception("failed")
''', "failure: `except ValueError` isolates only that class"),
    "collects_for_a_helper": ('''
    async def fire(self, event):
        errors = []
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except BaseException as exc:
                errors.append(exc)
        if errors:
            raise_all(errors)
''', "error surface: Relay.fire collects every failure into `errors`"),
    "catches_cancellation": ('''
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except BaseException:
                logger.exception("failed")
''', "handler cancellation: `except BaseException`"),
    "sync_entry": ('''
    def fire(self, event):
        for listener in list(self._listeners):
            listener(event)
''', "sync entry: Relay.fire is synchronous"),
    "no_snapshot": ('''
    async def fire(self, event):
        for listener in self._listeners:
            await maybe_await(listener(event))
''', "concurrency: Relay.fire runs over `self._listeners` as it is, not a snapshot"),
    "awaits_unconditionally": ('''
    async def fire(self, event):
        for listener in list(self._listeners):
            await listener(event)
''', "handler invocation: Relay.fire calls `listener(event)`"),
    "thread_waited_for": ('''
    async def fire(self, event):
        for listener in list(self._listeners):
            if is_coro_func(listener):
                await listener(event)
            else:
                await anyio.to_thread.run_sync(listener, event)
''', "sync handlers: `anyio.to_thread.run_sync(listener, event)` waits for the handler's thread"),
    "asyncio_task_group": ('''
    async def fire(self, event):
        async def one(listener):
            await maybe_await(listener(event))

        async with asyncio.TaskGroup() as tg:
            for listener in list(self._listeners):
                tg.start_soon(one, listener)
''', "handler cancellation: Relay.fire runs its handlers in an asyncio.TaskGroup"),
    "task_group_propagates": ('''
    async def fire(self, event):
        async def one(listener):
            await maybe_await(listener(event))

        async with anyio.create_task_group() as tg:
            for listener in list(self._listeners):
                tg.start_soon(one, listener)
''', "failure: in Relay.fire's task group a handler's failure cancels the others"),
    "gather_without_return_exceptions": ('''
    async def fire(self, event):
        async def one(listener):
            return await maybe_await(listener(event))

        results = await gather(*(one(x) for x in list(self._listeners)))
        return results
''', "completion: Relay.fire's gather without return_exceptions=True"),
    "gather_group_before_translation": ('''
    async def fire(self, event):
        async def one(listener):
            return await maybe_await(listener(event))

        raw = await gather(*(one(x) for x in list(self._listeners)), return_exceptions=True)
        cancelled = [r for r in raw if isinstance(r, BaseException) and not isinstance(r, Exception)]
        errors = [r for r in raw if isinstance(r, Exception)]
        if errors:
            raise ExceptionGroup("failed", errors)
        if cancelled:
            raise asyncio.CancelledError(str(cancelled[0])) from cancelled[0]
        return raw
''', "handler cancellation: Relay.fire does not translate the first cancellation before"),
    "gather_cause_always_the_cancellation": ('''
    async def fire(self, event):
        async def one(listener):
            return await maybe_await(listener(event))

        raw = await gather(*(one(x) for x in list(self._listeners)), return_exceptions=True)
        cancelled = [r for r in raw if isinstance(r, BaseException) and not isinstance(r, Exception)]
        errors = [r for r in raw if isinstance(r, Exception)]
        if cancelled:
            raise asyncio.CancelledError(str(cancelled[0])) from cancelled[0]
        if errors:
            raise ExceptionGroup("failed", errors)
        return raw
''', "handler cancellation: Relay.fire's translated cancellation leaves from cancelled[0]"),
    "body_assigns_a_name_read_later": ('''
    async def fire(self, event):
        last = None
        for listener in list(self._listeners):
            last = listener
            await maybe_await(listener(event))
        return last
''', "Relay.fire: the loop body assigns `last`, which the method reads outside the loop"),
    # near misses of the two-list loop that gathers its awaitables after the last invocation
    "partition_lists_not_made_empty_above": ('''
    async def fire(self, event):
        results = list(self.seed)
        pending = []
        for listener in list(self._listeners):
            out = listener(event)
            if inspect.isawaitable(out):
                pending.append(out)
            else:
                results.append(out)
        if pending:
            gathered = list(await gather(*pending))
        else:
            gathered = []
        return results + gathered
''', "returned awaitable: Relay.fire keeps the awaitables its handlers return"),
    "partition_pending_read_after": ('''
    async def fire(self, event):
        results = []
        pending = []
        for listener in list(self._listeners):
            out = listener(event)
            if inspect.isawaitable(out):
                pending.append(out)
            else:
                results.append(out)
        if pending:
            gathered = list(await gather(*pending))
        else:
            gathered = []
        logger.info("%d gathered", len(pending))
        return results + gathered
''', "returned awaitable: Relay.fire keeps the awaitables its handlers return and gathers "
     "them after every handler was invoked (gather_after_invocations: example.py:28: Relay.fire: "
     "out = listener(event)); the owner codemods rewrite that as one loop keeping what its "
     "handlers return in two lists, the awaitables gathered right after it (SessionObserver."
     "emit's shape), and not otherwise: Relay.fire: `pending` or `out` is read outside"),
    "partition_loop_variable_read_after": ('''
    async def fire(self, event):
        results = []
        pending = []
        for listener in list(self._listeners):
            out = listener(event)
            if inspect.isawaitable(out):
                pending.append(out)
            else:
                results.append(out)
        if pending:
            gathered = list(await gather(*pending))
        else:
            gathered = []
        logger.info("last: %r", listener)
        return results + gathered
''', "returned awaitable: Relay.fire keeps the awaitables its handlers return and gathers "
     "them after every handler was invoked (gather_after_invocations: example.py:28: Relay.fire: "
     "out = listener(event)); the owner codemods rewrite that as one loop keeping what its "
     "handlers return in two lists, the awaitables gathered right after it (SessionObserver."
     "emit's shape), and not otherwise: Relay.fire: `listener`, a loop variable, is read after"),
    "partition_gathered_otherwise": ('''
    async def fire(self, event):
        results = []
        pending = []
        for listener in list(self._listeners):
            out = listener(event)
            if inspect.isawaitable(out):
                pending.append(out)
            else:
                results.append(out)
        for awaitable in pending:
            results.append(await awaitable)
        return results
''', "Relay.fire: after the loop, `pending` is not gathered as `if pending: results = "
     "list(await gather(*pending)) else: results = []`"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_owner_is_left_alone_with_the_reason(tmp_path: Path, case: str) -> None:
    fire, reason = CASES[case]
    assert _refused(tmp_path, fire).startswith(reason)


def test_a_loop_the_codemod_reads_is_rewritten_under_the_scans_policy(tmp_path: Path) -> None:
    fire = '''
    async def fire(self, event):
        for listener in list(self._listeners):
            try:
                await maybe_await(listener(event))
            except Exception:
                logger.exception("failed")
'''
    write_tree(tmp_path, {**DEMO_FILES, "example.py": dedent(HEAD + fire)})
    result = run(tmp_path, ("owner_dispatch",), owners=True)
    done = [m for m in result.migrated if m.file == "example.py"]
    assert len(done) == 1 and done[0].owner is not None
    assert done[0].owner["policy"]["axes"]["failure"] == "isolate"
    assert "await fan_out(" in (tmp_path / "example.py").read_text()


def test_a_loop_in_a_helper_the_method_calls_is_left_alone(tmp_path: Path) -> None:
    source = '''
    from lionagi.ln.concurrency import maybe_await


    class Relay:
        def listen(self, listener):
            pass

        async def fire(self, event):
            await run_all([], event)


    async def run_all(listeners, event):
        for listener in list(listeners):
            await maybe_await(listener(event))
    '''
    reasons = _left_alone(tmp_path, source)
    assert reasons == [("concurrency: Relay.fire has no fan-out over its handlers (a for loop, an "
                       "anyio task group, or gather(..., return_exceptions=True))")], reasons


def test_without_the_kernels_in_the_project_every_owner_is_refused(tmp_path: Path) -> None:
    from planeshift.codemods.owner.plan import kernel_missing

    assert kernel_missing(tmp_path, "myapp.runtime.dispatch").startswith(
        "the kernels are not in the project as myapp.runtime.dispatch")
    stale = tmp_path / "myapp" / "runtime" / "dispatch"
    stale.mkdir(parents=True)
    (stale / "__init__.py").write_text("")
    assert "predate fan_out" in (kernel_missing(tmp_path, "myapp.runtime.dispatch") or "")
    assert kernel_missing(tmp_path, "planeshift.kernels") is None
