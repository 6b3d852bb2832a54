"""The kernels on Python 3.10 as well as 3.11+ (a vendoring target may declare ``>= 3.10``).

The first tests check ``_compat`` (what 3.10 lacks) on the running Python, installed and vendored
copy: the main run covers 3.11+, and ``test_kernel_suite_passes_on_python_310`` runs this whole
folder again under a Python 3.10 when one is found (skipping with the reason when none is). The
smoke test imports every module of a vendored copy in a plain 3.10 process (no test plugin,
planeshift unimportable) and drives a group, a deadline and an outer cancellation through it.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .helpers import axes, run
from .py310_env import ROOT, Unavailable, _clean_env, python310_with_needs


def _compat(kernels: ModuleType) -> ModuleType:
    return importlib.import_module(kernels.__name__ + "._compat")


def _axes(**overrides: Any) -> dict[str, Any]:
    return axes(**{"failure": "collect", "error_surface": "raise_group", **overrides})


# -- _compat on the running Python -------------------------------------------------------------


def test_exception_groups_are_the_stdlib_ones_on_311_and_the_backport_on_310(kernels: ModuleType) -> None:
    compat = _compat(kernels)
    if sys.version_info >= (3, 11):
        import builtins

        assert compat.BaseExceptionGroup is builtins.BaseExceptionGroup
        assert compat.ExceptionGroup is builtins.ExceptionGroup
    else:
        import exceptiongroup

        assert compat.BaseExceptionGroup is exceptiongroup.BaseExceptionGroup
    assert isinstance(compat.BaseExceptionGroup("m", [ValueError()]), compat.ExceptionGroup)
    assert not isinstance(compat.BaseExceptionGroup("m", [KeyboardInterrupt()]), Exception)


def test_a_group_the_kernel_raises_is_the_compat_class(kernels: ModuleType) -> None:
    def bad(signal: Any) -> None:
        raise ValueError(signal)

    pol = kernels.DispatchPolicy.from_axes(**_axes())
    with pytest.raises(_compat(kernels).ExceptionGroup) as caught:
        run(kernels.fan_out(pol, [bad, bad], lambda h, call: call(h, "s")))
    assert [str(e) for e in caught.value.exceptions] == ["s", "s"]


def test_the_exceptiongroup_backport_is_imported_only_below_311(kernels: ModuleType) -> None:
    tree = ast.parse(Path(_compat(kernels).__file__).read_text(encoding="utf-8"))
    guard = next(n for n in tree.body if isinstance(n, ast.If) and "version_info" in ast.unparse(n.test))
    assert ast.unparse(guard.test) == "sys.version_info >= (3, 11)"
    below = [n for n in ast.walk(ast.Module(body=guard.orelse, type_ignores=[]))
             if isinstance(n, ast.ImportFrom) and n.module == "exceptiongroup"]
    everywhere = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "exceptiongroup"]
    assert len(below) == len(everywhere) == 1


def test_an_expired_deadline_raises_timeout_error_and_leaves_no_cancel_request(kernels: ModuleType) -> None:
    compat = _compat(kernels)

    async def main() -> tuple[bool, int]:
        loop = asyncio.get_running_loop()
        scope = compat.deadline_at(loop.time())  # already due: fires at the first suspension
        with pytest.raises(TimeoutError):
            async with scope:
                await asyncio.Event().wait()
        task = asyncio.current_task()
        assert task is not None
        return scope.expired(), compat.cancelling(task)

    assert run(main()) == (True, 0)


def test_no_deadline_never_expires(kernels: ModuleType) -> None:
    compat = _compat(kernels)

    async def main() -> tuple[str, bool]:
        async with compat.deadline_at(None) as scope:
            await asyncio.sleep(0)
            value = "done"
        return value, scope.expired()

    assert run(main()) == ("done", False)


def test_a_deadline_cancellation_the_body_swallows_is_expired_without_an_error(kernels: ModuleType) -> None:
    compat = _compat(kernels)

    async def main() -> tuple[list[str], bool, int]:
        trace: list[str] = []
        loop = asyncio.get_running_loop()
        async with compat.deadline_at(loop.time()) as scope:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                trace.append("collected")
        task = asyncio.current_task()
        assert task is not None
        return trace, scope.expired(), compat.cancelling(task)

    assert run(main()) == (["collected"], True, 0)


def test_an_outer_cancellation_inside_a_deadline_stays_a_cancellation(kernels: ModuleType) -> None:
    compat = _compat(kernels)

    async def main() -> tuple[bool, bool]:
        started = asyncio.Event()
        scopes: list[Any] = []

        async def body() -> None:
            loop = asyncio.get_running_loop()
            async with compat.deadline_at(loop.time() + 3600) as scope:
                scopes.append(scope)
                started.set()
                await asyncio.Event().wait()

        task = asyncio.ensure_future(body())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled(), scopes[0].expired()

    assert run(main()) == (True, False)


def test_an_outer_cancellation_of_a_sequential_emit_leaves_it(kernels: ModuleType) -> None:
    """Cancelled from outside while an inline handler waits, the emit raises the cancellation and
    never starts the next handler. On 3.10 the kernel recognises an anyio cancel scope's
    cancellation by its message (this one is spelled as anyio spells it) and its own by its count."""

    async def main() -> list[str]:
        trace: list[str] = []
        started = asyncio.Event()

        async def waits(signal: Any) -> None:
            started.set()
            await asyncio.Event().wait()

        def later(signal: Any) -> None:
            trace.append("later")

        pol = kernels.DispatchPolicy.from_axes(**_axes(handler_cancellation="translate",
                                                       deadline_disposition="raise", deadline_seconds=3600))
        task = asyncio.ensure_future(kernels.fan_out(pol, [waits, later], lambda h, call: call(h, "s")))
        await started.wait()
        task.cancel("Cancelled via cancel scope 7f00 by <Task>")
        with pytest.raises(asyncio.CancelledError):
            await task
        return trace

    assert run(main()) == []


def test_a_sequential_deadline_times_out_the_waiting_handler(kernels: ModuleType) -> None:
    async def waits(signal: Any) -> None:
        await asyncio.Event().wait()

    pol = kernels.DispatchPolicy.from_axes(**_axes(deadline_disposition="return_report",
                                                   deadline_seconds=0.01))
    report = run(kernels.fan_out(pol, [waits, print], lambda h, call: call(h, "s")))
    assert report.deadline_expired
    assert [o.status.value for o in report.outcomes] == ["timed_out", "not_started"]


# -- the kernels under a Python 3.10 -----------------------------------------------------------


def _python310() -> str:
    if sys.version_info < (3, 11):
        pytest.skip("this is the Python 3.10 run itself")
    try:
        return python310_with_needs()
    except Unavailable as exc:
        pytest.skip(str(exc))


def test_kernel_suite_passes_on_python_310() -> None:
    """tests/kernels, installed and vendored copy, under Python 3.10 (py310_names adapts the
    harness: the tests' builtin group names, and asyncio.run handing out a CancelledError
    subclass); lionagi's parity tests skip there unless lionagi is installed for 3.10."""
    python = _python310()
    env = _clean_env()
    env["PYTHONPATH"] = f"{ROOT / 'src'}:{ROOT / 'tests'}:{ROOT / 'tests' / 'kernels'}"
    result = subprocess.run(
        [python, "-m", "pytest", "tests/kernels", "-q", "-p", "no:cacheprovider", "-p", "py310_names",
         "-o", "addopts=-ra",  # one process: the 3.10 venv has no pytest-xdist
         # planeshift's own vendoring command (its CLI needs 3.11's tomllib), not the kernels
         "--ignore=tests/kernels/test_kernel_vendor.py",
         "--ignore=tests/kernels/test_kernel_vendor_floor.py",
         "--ignore=tests/kernels/test_kernel_vendor_style.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env,
    )
    tail = "\n".join(result.stdout.splitlines()[-15:]) + result.stderr[-2000:]
    assert result.returncode == 0, tail
    assert "kernels on Python 3.10." in result.stdout, tail
    counts = dict((kind, int(n)) for n, kind in re.findall(r"(\d+) (passed|failed|error)", result.stdout))
    assert counts.get("passed", 0) > 0 and "failed" not in counts and "error" not in counts, tail


SMOKE = r"""
import asyncio, pathlib, sys
assert sys.version_info[:2] == (3, 10), sys.version
sys.modules["planeshift"] = None  # the vendored copy must not need planeshift
import importlib
package = sys.argv[1]
root = importlib.import_module(package)
names = sorted(p.stem for p in pathlib.Path(root.__file__).parent.glob("*.py") if p.stem != "__init__")
for name in names:
    importlib.import_module(f"{package}.{name}")
print("imported", len(names) + 1)
k = root
def axes(**o):
    a = {"concurrency": "sequential", "failure": "collect", "completion": "await_all",
         "error_surface": "raise_group", "sync_handlers": "inline",
         "handler_classification": "by_return_value", "returned_value_classifier": "inspect_awaitable",
         "returned_awaitable": "await_in_invocation", "sync_entry": "unavailable",
         "handler_cancellation": "propagate", "predicate_failure": "propagate"}
    a.update(o)
    return k.DispatchPolicy.from_axes(**a)
def direct(h, call):
    return call(h, "s")
def bad(s):
    raise ValueError(s)
async def waits(s):
    await asyncio.Event().wait()
async def main():
    d = k.FanoutDispatcher(k.DispatchPolicy.scheduler())
    d.subscribe(lambda s: s * 2)
    print("values", (await d.emit(21)).values)
    try:
        await k.fan_out(axes(), [bad, bad], direct)
    except Exception as e:
        print("group", type(e).__module__, type(e).__name__, len(e.exceptions))
    r = await k.fan_out(axes(deadline_disposition="return_report", deadline_seconds=0.01),
                        [waits, print], direct)
    print("deadline", r.deadline_expired, [o.status.value for o in r.outcomes])
    try:
        await k.fan_out(axes(deadline_disposition="raise", deadline_seconds=0.01), [waits], direct)
    except k.DeadlineExceededError as e:
        print("raised", type(e).__name__, isinstance(e, TimeoutError))
    t = asyncio.ensure_future(k.fan_out(axes(concurrency="concurrent"), [waits, waits], direct))
    await asyncio.sleep(0.01)
    t.cancel()
    try:
        await t
    except asyncio.CancelledError:
        print("outer cancel propagated")
asyncio.run(main())
"""


def test_a_vendored_copy_imports_and_runs_on_a_plain_python_310(tmp_path: Path) -> None:
    from planeshift.vendor import vendor_kernels

    python = _python310()
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    vendor_kernels(tmp_path / "proj" / "runtime" / "dispatch", "proj.runtime.dispatch")
    env = _clean_env()
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run([python, "-c", SMOKE, "proj.runtime.dispatch"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    modules = len(list((tmp_path / "proj" / "runtime" / "dispatch").glob("*.py")))
    assert result.stdout.splitlines() == [
        f"imported {modules}",
        "values (42,)",
        "group exceptiongroup ExceptionGroup 2",
        "deadline True ['timed_out', 'not_started']",
        "raised DeadlineExceededError True",
        "outer cancel propagated",
    ]
