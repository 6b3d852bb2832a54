"""lionagi 0.36.0 migrated end to end (kernels vendored, `migrate --write`, `migrate --owners
--write`, `migrate --write` again): every call-site declaration is read by the dispatcher it is
registered on, or is not written; no name holds a line number, no `order=0` is invented."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planeshift.codemods import MigrateOptions, MigrateResult, migrate
from planeshift.config import load_config
from planeshift.vendor import vendor_kernels

pytestmark = pytest.mark.corpus
PROBE = Path(__file__).with_name("declarations_probe.py")
# owners on the kernels after --owners whose call sites are rewritten (HookBus: with its stop
# signal, fan_out(stop=StopHook))
READING = {"hookbus", "scheduler_signals", "terminal_callbacks"}


def _migrate(root: Path, **options: object) -> MigrateResult:
    config = load_config(root).with_flags(jobs=2, use_cache=False)
    result = migrate(config, MigrateOptions(write=True, **options))  # type: ignore[arg-type]
    assert not result.failed, [n for n in result.not_migrated if n.error]
    return result


def _declared_names(root: Path, files: set[str]) -> list[str]:
    """The ``name=`` each typed registration in *files* declares, as Python reads it (a long
    name is written in parenthesized parts)."""
    return [k.value.value for rel in sorted(files)
            for node in ast.walk(ast.parse((root / rel).read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("Subscription", "SinkRegistration", "InterceptorRegistration")
            for k in node.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)]


@pytest.fixture(scope="module")
def copy(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[Path, MigrateResult, MigrateResult, str]:
    root = tmp_path_factory.mktemp("declarations")
    shutil.copytree(corpus_root, root / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    vendor_kernels(root / "lionagi" / "runtime" / "dispatch", "lionagi.runtime.dispatch")
    vendored = {p: p.read_text() for p in root.rglob("*.py")}
    first = _migrate(root)
    _migrate(root, owners=True)
    second = _migrate(root)
    added = "".join(
        line for p in root.rglob("*.py") for line in p.read_text().splitlines(keepends=True)
        if line not in set(vendored.get(p, "").splitlines(keepends=True)))
    return root, first, second, added


def test_before_the_owners_no_call_site_declares_anything(copy) -> None:  # type: ignore[no-untyped-def]
    _root, first, _second, _added = copy
    assert not [m for m in first.migrated if m.codemod == "registration"]
    unread = [n for n in first.not_migrated if n.reason.startswith("not rewritten: ")]
    assert len(unread) >= 59  # every call site the earlier releases declared for nobody
    assert all(n.reason.endswith("until its owner runs on the kernels (migrate --owners)")
               for n in unread)


def test_after_the_owners_each_declaration_is_read_by_its_dispatcher(copy) -> None:  # type: ignore[no-untyped-def]
    root, _first, second, added = copy
    rewritten = [m for m in second.migrated if m.codemod == "registration"]
    # 6 rewrites, each of one callable the scan names; the calls that register a loop variable
    # (hooks/loader.py: `for handler in ...: bus.on(point, handler)`) are left alone, since one
    # declared name would be true of none of the handlers the variable holds
    assert len(rewritten) == 6
    # ContextFold's handler waits in Branch._pending_hook_bus_entries, which attach_hook_bus
    # hands to HookBus.on wrapped: a declaration there would be called (a TypeError, swallowed
    # by the emit's isolation, the fold silently off)
    queued = [n.reason for n in second.not_migrated if n.file == "lionagi/agent/context_fold.py"]
    assert queued and all("does not hand the handler to a method of HookBus" in r for r in queued)
    unnamed = {(n.file, n.line) for n in second.not_migrated
               if "is no one callable the scan can name" in n.reason}
    assert ("lionagi/hooks/loader.py", 93) in unnamed
    assert not [m for m in rewritten if m.file == "lionagi/hooks/loader.py"]
    assert {m.registration.mechanism for m in rewritten} <= READING
    assert "order=0" not in added and "as_subscriber(" not in added and "as_sink(" not in added
    names = _declared_names(root, {m.file for m in rewritten})
    assert len(names) == len(set(names)) == 6
    assert not [n for n in names if re.search(r"[:#<]\d|\d>", n)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(PROBE)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['early', 'late']",
        "[['app.early', 'app.late', "
        "'lionagi.studio.scheduler.signals._log_schedule_run_failed']]",
        "1",
        "('plane-mismatch',)",
    ]
