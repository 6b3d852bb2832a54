"""lionagi 0.36.0: `planeshift characterize` writes a suite that passes on the package as
released and goes red on a copy whose dispatchers were changed (ADR-0120 Phase 0's gate).

What is characterized and what is left out was checked by reading each dispatcher: the seven
dispatchers the hand-written suite (tests/characterization/) builds in memory, less the service
HookRegistry (one handler per key, which Phase 0 defers), plus the pile-rewritten callbacks.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from planeshift import api
from planeshift.characterize.model import Characterization
from planeshift.characterize.against_copy import run_against
from planeshift.config import Config

pytestmark = pytest.mark.corpus

CHARACTERIZED = [
    ("hookbus", "HookBus.emit"), ("hookbus", "HookBus.blocking_emit"),
    ("session_observer", "SessionObserver.emit"), ("broadcaster", "Broadcaster.broadcast"),
    ("message_manager", "MessageManager.add_message"),
    ("message_manager", "MessageManager.a_add_message"),
    ("message_pile_rewritten", "MessageManager.set_system"),
    ("message_pile_rewritten", "MessageManager.clear_messages"),
    ("scheduler_signals", "SchedulerSignalBus.emit"),
    ("terminal_callbacks", "TerminalCallbackRegistry.emit"),
]
LEFT_OUT = {  # mechanism -> the start of its reason
    "message_retry": "its constructor needs `db`",  # MessagePersistRetryQueue(db, *, logger, owner)
    "service_hook_registry": "one handler per call, no fan-out",
    "engine_events": "one handler per call, no fan-out",  # EngineRun.notify: self.on_event(...)
    "action_tool_hooks": "its entry run_tool_p",  # run_tool_pre_hooks(hooks, ...)
    "cli_spawn_observers": "its entry ndjson_from_cli() is a module function",
}
# Each edit changes one axis of one dispatcher (the ideas of tests/characterization/mutants.py),
# all in one copy; exactly the tests named go red, nothing else.
MUTANTS = [
    ("session/observer.py", "if inspect.isawaitable(out):", "if inspect.iscoroutine(out):",
     ("test_session_observer_emit_returned_value_classifier_inspect_awaitable",)),
    ("service/broadcaster.py", "if asyncio.iscoroutine(result):",
     "if hasattr(result, '__await__'):",
     ("test_broadcaster_broadcast_returned_value_classifier_asyncio_coroutine_only",)),
    ("protocols/messages/manager.py", "    if len(errors) == 1:\n        raise errors[0]",
     "    if False:\n        raise errors[0]",  # _raise_callback_errors: both entries use it
     ("test_message_manager_add_message_error_surface_unwrap_single_else_group_one_failure",
      "test_message_manager_a_add_message_error_surface_unwrap_single_else_group_one_failure")),
    ("studio/scheduler/signals.py", "candidates), return_exceptions=True)",
     "candidates), return_exceptions=False)",
     # a handler's own BaseException then leaves gather as itself, not translated
     ("test_scheduler_signal_bus_emit_error_surface_raise_group_one_failure",
      "test_scheduler_signal_bus_emit_handler_cancellation_translate_base_exception_translated")),
    ("state/lifecycle/callbacks.py",
     "            except get_cancelled_exc_class():\n                raise",
     "            except get_cancelled_exc_class():\n                return",
     ("test_terminal_callback_registry_emit_handler_cancellation_cancel_siblings_and_return",)),
    ("hooks/bus.py", 'logger.exception("Hook failed', 'logger.debug("Hook failed',
     ("test_hook_bus_emit_error_surface_log_only_failures_are_logged",)),
    # the stop signal: emit goes on after a StopHook (the clause's own line, not an axis)
    ("hooks/bus.py", "                except StopHook:\n                    break",
     "                except StopHook:\n                    continue",
     ("test_hook_bus_emit_stop_signal_stop_hook_skips_the_later_handlers_quietly",)),
]


@pytest.fixture(scope="module")
def characterized(corpus_root: Path) -> Characterization:
    return api.characterize(Config(root=corpus_root, use_cache=False, jobs=2))


@pytest.fixture(scope="module")
def module(characterized: Characterization, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("lionagi") is None:
        pytest.skip("lionagi is not importable here (the test extra installs it)")
    path = tmp_path_factory.mktemp("suite") / "test_characterization_generated.py"
    path.write_text(characterized.module)
    return path


def copy_lionagi(corpus_root: Path, folder: Path) -> Path:
    shutil.copytree(corpus_root, folder / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_characterized_and_left_out_dispatchers(characterized: Characterization) -> None:
    assert [(p.recipe.mechanism, p.recipe.entry) for p in characterized.plans] == CHARACTERIZED
    reasons = {s.mechanism: s.reason for s in characterized.skipped}
    for mechanism, start in LEFT_OUT.items():
        assert reasons[mechanism].startswith(start), (mechanism, reasons[mechanism])
    # every other mechanism has no loop of its own in view
    rest = set(reasons) - set(LEFT_OUT)
    nothing = "the scan read no dispatch path: no emission loop of it in the tree"
    assert {reasons[m] for m in rest} == {nothing}
    assert characterized.packages == ("lionagi",)
    # the only axes generated as skipped: predicates and a sync entry's emitter cancellation
    skipped = {(c.axis, c.skip) for p in characterized.plans for c in p.cases if c.skip}
    assert {axis for axis, _ in skipped} == {"predicate_failure", "emitter_cancellation",
                                            "handler_classification"}


def test_generated_suite_passes_on_lionagi_as_released(
    module: Path, characterized: Characterization, corpus_root: Path, tmp_path: Path
) -> None:
    copy = copy_lionagi(corpus_root, tmp_path)
    done = run_against(module, copy, ("lionagi",), "-q", capture=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:]
    assert f"{characterized.tests} passed" in done.stdout.splitlines()[-1]


def test_generated_suite_goes_red_on_a_copy_with_its_dispatchers_changed(
    module: Path, corpus_root: Path, tmp_path: Path
) -> None:
    copy = copy_lionagi(corpus_root, tmp_path)
    for path, old, new, _ in MUTANTS:
        target = copy / "lionagi" / path
        source = target.read_text()
        assert source.count(old) == 1, (path, old)
        target.write_text(source.replace(old, new))
    done = run_against(module, copy, ("lionagi",), "-q", capture=True, timeout=600)
    assert done.returncode == 1
    failed = set(re.findall(r"^FAILED \S*?::(test_\w+)", done.stdout, re.MULTILINE))
    named = [name for *_, names in MUTANTS for name in names]
    assert [n for n in named if not any(f.startswith(n) for f in failed)] == []
    assert [f for f in failed if not any(f.startswith(n) for n in named)] == []
