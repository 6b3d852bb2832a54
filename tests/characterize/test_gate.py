"""The generated suite as a gate: it passes on the buses it was generated from, and goes red
when a bus's dispatch policy changes (one mutant per loop shape and axis)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from kernels.py310_env import Unavailable, _clean_env, python310_with_needs

from planeshift.characterize.against_copy import EXPECT_ENV, run_against
from planeshift.characterize.model import Characterization

from .helpers import Mutant, characterize_buses, copy_buses, failed_tests


@dataclass(frozen=True)
class Generated:
    module: Path
    result: Characterization


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    tree = copy_buses(tmp_path_factory.mktemp("tree"))
    result = characterize_buses(tree)
    module = tmp_path_factory.mktemp("suite") / "test_characterization_generated.py"
    module.write_text(result.module)
    return Generated(module, result)


def run(generated: Generated, copy: Path, *args: str) -> tuple[int, str]:
    done = run_against(generated.module, copy, generated.result.packages, "-q", *args,
                       capture=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_generated_suite_passes_on_the_buses_it_was_read_from(
    generated: Generated, tmp_path: Path
) -> None:
    code, out = run(generated, copy_buses(tmp_path))
    assert code == 0, out[-4000:]
    assert f"{generated.result.tests} passed" in out


def test_the_generated_suite_runs_on_python_310_as_well(generated: Generated,
                                                         tmp_path: Path) -> None:
    """A target may declare ``>= 3.10``: the suite written into it runs there too (a group is
    the exceptiongroup backport's there). The buses written for 3.10 as well (the others raise
    the builtin ExceptionGroup or use asyncio.timeout, 3.11+) pass every test on it."""
    try:
        python = python310_with_needs()
    except Unavailable as exc:
        pytest.skip(str(exc))
    buses = ("sequential_bus_publish", "propagate_bus_broadcast", "offload_bus_dispatch",
             "budget_bus_fire")
    tests = sum(generated.module.read_text().count(f"\ndef test_{bus}_") for bus in buses)  # defs
    copy = copy_buses(tmp_path)
    env = {**_clean_env(), "PYTHONPATH": str(copy), EXPECT_ENV: str(copy)}
    done = subprocess.run(
        [python, "-m", "pytest", str(generated.module), "-q", "-p", "no:cacheprovider",
         "-o", "addopts=", "-k", " or ".join(buses)], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    summary = done.stdout.splitlines()[-1]  # "63 passed, 94 deselected": parametrized ones
    assert "failed" not in summary and int(summary.split(" passed")[0]) >= tests > 40


def test_every_test_fails_when_the_package_imported_is_not_the_copy_expected(
    generated: Generated, tmp_path: Path
) -> None:
    copy = copy_buses(tmp_path / "copy")
    env = {**os.environ, "PYTHONPATH": str(copy), EXPECT_ENV: str(tmp_path / "elsewhere")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(generated.module), "-q", "-p", "no:cacheprovider",
         "-k", "sequential_bus_publish"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert " passed" not in done.stdout.splitlines()[-1]
    assert (f"{EXPECT_ENV}={tmp_path / 'elsewhere'}, but userbus was imported from "
            f"{copy / 'userbus'}") in done.stdout


MUTANTS = [
    Mutant("isolate-to-propagate", "sequential.py",
           'except Exception:\n                log.exception("handler failed on %s", topic.value)',
           "except Exception:\n                raise",
           ("test_sequential_bus_publish_failure_isolate",
            "test_sequential_bus_publish_completion_await_all",
            "test_sequential_bus_publish_error_surface_log_only")),
    # a handler's own BaseException caught with the failures (a cancellation still leaves):
    # every policy axis reads the same, only the BaseException's fate changed
    Mutant("catch-a-custom-base-exception", "sequential.py",
           'except Exception:\n                log.exception("handler failed on %s", topic.value)',
           "except BaseException as exc:\n"
           '                if type(exc).__name__ == "CancelledError":\n'
           "                    raise\n"
           '                log.exception("handler failed on %s", topic.value)',
           ("test_sequential_bus_publish_failure_isolate_base_exception_reaches_the_emitter_as_"
            "itself",)),
    # the stop signal: the loop goes on after it, or lets it reach the isolating clause
    Mutant("stop-continues", "sequential.py", "except Halt:\n                break",
           "except Halt:\n                continue",
           ("test_sequential_bus_publish_stop_signal_halt_skips_the_later_handlers_quietly",)),
    Mutant("stop-clause-dropped", "sequential.py", "            except Halt:\n                break\n",
           "",
           ("test_sequential_bus_publish_stop_signal_halt_skips_the_later_handlers_quietly",)),
    Mutant("drop-the-await", "sequential.py", "                    await result",
           "                    pass",
           ("test_sequential_bus_publish_returned_value_classifier_inspect_awaitable",
            "test_sequential_bus_publish_returned_awaitable_await_in_invocation",
            "test_sequential_bus_publish_handler_classification_by_return_value")),
    Mutant("catch-cancellation", "sequential.py", "except Exception:\n",
           "except BaseException:\n",
           ("test_sequential_bus_publish_handler_cancellation_propagate",
            "test_sequential_bus_publish_emitter_cancellation_propagate")),
    Mutant("await-any-awaitable", "propagate.py", "if asyncio.iscoroutine(result):",
           "if hasattr(result, '__await__'):",
           ("test_propagate_bus_broadcast_returned_value_classifier_asyncio_coroutine_only",)),
    Mutant("isolate-in-the-loop", "propagate.py",
           "            result = callback(event)\n",
           "            try:\n                result = callback(event)\n"
           "            except Exception:\n                continue\n",
           ("test_propagate_bus_broadcast_failure_propagate",
            "test_propagate_bus_broadcast_completion_stop_on_failure")),
    Mutant("gather-raises-the-first", "gathered.py", "return_exceptions=True",
           "return_exceptions=False",
           ("test_gather_bus_emit_failure_collect_every_failure",
            "test_gather_bus_emit_error_surface_raise_group")),
    Mutant("task-group-to-sequential", "grouped.py",
           "        async with asyncio.TaskGroup() as group:\n"
           "            for listener in list(self._listeners):\n"
           "                group.create_task(self._run(listener, event))",
           "        for listener in list(self._listeners):\n"
           "            await self._run(listener, event)",
           ("test_task_group_bus_notify_concurrency_concurrent",)),
    Mutant("offload-to-inline", "offload.py", "await asyncio.to_thread(callback, event)",
           "callback(event)",
           ("test_offload_bus_dispatch_sync_handlers_offload",)),
    # the owner's anyio worker threads traded for threads of another pool: a handler's
    # anyio.from_thread no longer reaches the loop
    Mutant("anyio-offload-to-another-pool", "deadline.py",
           "await anyio.to_thread.run_sync(handler, event)",
           "await asyncio.to_thread(handler, event)",
           ("test_budget_bus_fire_sync_handlers_offload",)),
    Mutant("silent-deadline-raises", "deadline.py", "with anyio.move_on_after(self._budget):",
           "with anyio.fail_after(self._budget):",
           ("test_budget_bus_fire_deadline_disposition_silent_stop",)),
    Mutant("logged-timeout-raised", "deadline.py",
           'except Exception:\n                log.warning("handler timed out or failed", '
           "exc_info=True)",
           "except Exception:\n                raise",
           ("test_timed_bus_emit_deadline_disposition_log_and_stop",
            "test_timed_bus_emit_failure_isolate")),
    # the message-manager shape (owner_dispatch's collected surface and sync entry)
    Mutant("collect-stops-at-the-first", "collected.py",
           "                    callback(item)\n            except BaseException as exc:\n"
           "                errors.append(exc)\n",
           "                    callback(item)\n            except BaseException as exc:\n"
           "                errors.append(exc)\n                break\n",
           ("test_collect_bus_apost_completion_await_all",
            "test_collect_bus_apost_failure_collect_every_failure")),
    Mutant("one-failure-grouped", "collected.py",
           "    if len(errors) == 1:\n        raise errors[0]\n", "",
           ("test_collect_bus_apost_error_surface_unwrap_single_else_group_one_failure",)),
    Mutant("cancellation-not-collected", "collected.py",
           "                    callback(item)\n            except BaseException as exc:",
           "                    callback(item)\n            except Exception as exc:",
           ("test_collect_bus_apost_handler_cancellation_collect",)),
    Mutant("sync-entry-allows-async", "collected.py",
           'raise RuntimeError(f"{callback!r} is async: post it with apost")', "pass",
           ("test_collect_bus_post_sync_entry_reject_declared_async_before_owner_effect",)),
    Mutant("sync-fire-propagates", "collected.py",
           "in snapshot:\n            try:\n                callback(item)\n"
           "            except BaseException as exc:\n                errors.append(exc)",
           "in snapshot:\n            try:\n                callback(item)\n"
           "            except BaseException as exc:\n                raise",
           ("test_collect_bus_post_failure_collect_every_failure",
            "test_collect_bus_post_completion_await_all")),
]


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.id for m in MUTANTS])
def test_the_gate_goes_red_when_a_bus_changes_its_policy(
    generated: Generated, mutant: Mutant, tmp_path: Path
) -> None:
    copy = copy_buses(tmp_path)
    mutant.apply(copy)
    # only the mutated bus's tests: the others pass either way (the first test runs them all)
    subject = re.match(r"test_(\w+?_bus_[a-z]+)_", mutant.must_fail[0])
    assert subject is not None
    code, out = run(generated, copy, "-k", subject.group(1))
    failed = failed_tests(out)
    assert code == 1, out[-4000:]
    missed = [name for name in mutant.must_fail if not any(f.startswith(name) for f in failed)]
    assert not missed, f"still green: {missed}; failed: {sorted(failed)}"
