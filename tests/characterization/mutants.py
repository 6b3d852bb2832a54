"""Runs the suite on mutated copies of lionagi: each module's tests must go red when a loop changes.

Not collected by pytest (about 35 s). From the repository's tests/ folder:
``../.venv/bin/python -m characterization.mutants``; exit status 0 when every mutant was caught by
the tests named for it.
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .runner import copy_installed_lionagi, run_suite


@dataclass(frozen=True)
class Mutant:
    """One edit to one lionagi file, and the tests that must fail because of it."""

    path: str
    old: str
    new: str
    must_fail: tuple[str, ...]


MUTANTS = (
    Mutant("hooks/bus.py",
           "_BLOCKING_POINTS = frozenset({HookPoint.TOOL_PRE, HookPoint.USER_PROMPT_SUBMIT})",
           "_BLOCKING_POINTS = frozenset({HookPoint.TOOL_PRE})",
           ("test_hookbus.py::test_blocking_point_propagates_the_first_failure_and_skips_later"
            "_handlers[prompt.submit]",)),
    Mutant("hooks/bus.py", 'logger.exception("Hook failed', 'logger.warning("Hook failed',
           ("test_hookbus.py::test_ordinary_failure_is_logged_with_traceback_and_later_handlers"
            "_still_run",)),
    Mutant("session/observer.py", "if inspect.isawaitable(out):", "if inspect.iscoroutine(out):",
           ("test_session_observer.py::test_any_awaitable_a_sync_handler_returns_is_gathered_and"
            "_its_result_returned[custom awaitable]",)),
    Mutant("session/observer.py", "        return sync_results + async_results",
           "        return async_results + sync_results",
           ("test_session_observer.py::test_emit_returns_sync_results_first_then_gathered_results"
            "_in_registration_order",)),
    Mutant("session/observer.py", "            except Exception:\n                allowed = False",
           "            except Exception:\n                raise",
           ("test_session_observer.py::test_raising_gate_is_a_silent_denial",
            "test_session_observer.py::test_gate_denial_and_raising_gate_suppress_the_bound"
            "_persistence_subscriber")),
    Mutant("service/broadcaster.py", "if asyncio.iscoroutine(result):",
           "if hasattr(result, '__await__'):",
           ("test_broadcaster.py::test_non_coroutine_awaitables_are_never_awaited",)),
    Mutant("protocols/messages/manager.py", "    if len(errors) == 1:\n        raise errors[0]",
           "    if False:\n        raise errors[0]",
           ("test_message_manager.py::test_single_failure_is_raised_as_itself_after_later"
            "_callbacks_ran[add_message]",)),
    Mutant("protocols/messages/manager.py",
           "            if is_coro_func(cb):\n                raise",
           "            if False:\n                raise",
           ("test_message_manager.py::test_sync_path_rejects_a_declared_async_callback_before_the"
            "_message_is_created[async_callback]",)),
    Mutant("studio/scheduler/signals.py", "raise handler_cancelled from cancellation",
           "raise cancellation",
           ("test_scheduler_signals.py::test_handler_cancellation_is_translated_and_siblings_still"
            "_complete",)),
    Mutant("studio/scheduler/signals.py", "candidates), return_exceptions=True)",
           "candidates), return_exceptions=False)",
           ("test_scheduler_signals.py::test_one_failure_is_raised_in_a_group_after_every"
            "_handler_completed",)),
    Mutant("state/lifecycle/callbacks.py", "abandon_on_cancel=True", "abandon_on_cancel=False",
           ("test_terminal_callbacks.py::test_deadline_returns_while_an_offloaded_sync_handler"
            "_is_still_blocked",)),
    Mutant("state/lifecycle/callbacks.py",
           "            except get_cancelled_exc_class():\n                raise",
           "            except get_cancelled_exc_class():\n                return",
           ("test_terminal_callbacks.py::test_handler_cancellation_cancels_its_siblings_unlogged"
            "_and_emit_returns_normally",)),
    Mutant("service/hooks/hook_registry.py",
           "EventStatus.ABORTED)\n\n    async def handle_streaming_chunk",
           "EventStatus.CANCELLED)\n\n    async def handle_streaming_chunk",
           ("test_service_hooks.py::test_post_hook_failure_is_ignored_unless_the_hook_requests"
            "_exit[False]",)),
    Mutant("service/hooks/_utils.py", "return await run_sync(handler, *args, **kwargs)",
           "return handler(*args, **kwargs)",
           ("test_service_hooks.py::test_sync_handler_is_offloaded_to_a_worker_thread",)),
)


def failed_tests(stdout: str) -> set[str]:
    """``module.py::test[param]`` of every FAILED line in a pytest -rf summary."""
    pattern = r"^FAILED \S*?([^/\s]+\.py::.+?)(?: - .*)?$"
    return {m.group(1) for m in re.finditer(pattern, stdout, re.M)}


def check(mutant: Mutant, workdir: Path) -> tuple[bool, set[str]]:
    """Apply *mutant* to a fresh copy and run the suite; whether its named tests failed."""
    target = copy_installed_lionagi(workdir) / mutant.path
    source = target.read_text()
    if source.count(mutant.old) != 1:
        raise SystemExit(f"{mutant.path}: the mutated text must occur once: {mutant.old!r}")
    target.write_text(source.replace(mutant.old, mutant.new))
    failed = failed_tests(run_suite(workdir, "-q", "-rf").stdout)
    return set(mutant.must_fail) <= failed, failed


def main() -> int:
    caught = 0
    with tempfile.TemporaryDirectory(prefix="ps-mutants-") as tmp:
        for number, mutant in enumerate(MUTANTS):
            ok, failed = check(mutant, Path(tmp) / str(number))
            caught += ok
            print(f"{'caught' if ok else 'MISSED'}: {mutant.path}: {mutant.new.strip()!r} -> "
                  f"{len(failed)} failing test(s)")
            for name in sorted(failed):
                print(f"    {name}")
    print(f"{caught}/{len(MUTANTS)} mutants caught")
    return 0 if caught == len(MUTANTS) else 1


if __name__ == "__main__":
    sys.exit(main())
