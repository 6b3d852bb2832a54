"""planeshift migrate on a copy of lionagi 0.36.0 with the kernels vendored where ADR-0120 D7
puts them: most high-confidence registrations are rewritten and every one left is pinned
with its reason, the result compiles, imports, passes the characterization suite, and a second
run changes nothing.

lionagi 0.36.0 has no ``lionagi/runtime/``: `planeshift kernels vendor` creates it. The copy's
root has a pyproject naming an owner, as a project adopting the discard gate would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from characterization.runner import run_suite

from planeshift import api
from planeshift.codemods import MigrateOptions, MigrateResult, migrate
from planeshift.config import load_config
from planeshift.types import Registration
from planeshift.vendor import vendor_kernels

pytestmark = pytest.mark.corpus
OWNERS = '[tool.planeshift]\nowners = {"lionagi/**" = "@lionagi-maintainers"}\n'


class Migrated:
    def __init__(self, root: Path, before: tuple[Registration, ...], result: MigrateResult):
        self.root, self.before, self.result = root, before, result

    @property
    def classified(self) -> list[Registration]:
        return [r for r in self.before if r.confidence == "high" and r.plane != "needs_review"
                and r.via != "config"]

    @property
    def rewritten(self) -> set[tuple]:
        return {m.registration.key for m in self.result.migrated
                if m.codemod == "registration" and m.registration is not None}


@pytest.fixture(scope="module")
def migrated(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    root = tmp_path_factory.mktemp("migrated")
    shutil.copytree(corpus_root, root / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(OWNERS)
    config = load_config(root).with_flags(jobs=2)
    before = api.scan(config).registrations
    vendor_kernels(root / "lionagi" / "runtime" / "dispatch", "lionagi.runtime.dispatch")
    result = migrate(config, MigrateOptions(write=True))
    assert not result.failed, [n for n in result.not_migrated if n.error]
    return Migrated(root, before, result)


# Before `migrate --owners` no dispatcher of lionagi 0.36.0 reads declarations, so no call site
# declares one (test_declarations_corpus.py: after it, the five that register with
# SchedulerSignalBus and TerminalCallbackRegistry do). Earlier releases rewrote 57 of these 67
# through adapters that handed the bare handler on: declarations nothing read.
UNREAD = "does not read declarations until its owner runs on the kernels (migrate --owners)"


def test_no_call_site_declares_what_its_dispatcher_does_not_read(migrated: Migrated) -> None:
    classified = migrated.classified
    assert (len(migrated.rewritten), len(classified)) == (0, 67)
    reasons = {n.registration.key: n.reason for n in migrated.result.not_migrated
               if n.codemod == "registration" and n.registration is not None}
    assert all(UNREAD in reasons[r.key] for r in classified), [
        reasons[r.key] for r in classified if UNREAD not in reasons[r.key]]
    dispatchers = Counter(reasons[r.key].split(" does not read", 1)[0].rsplit(" ", 1)[-1]
                          for r in classified)
    assert dispatchers["SessionObserver"] == 26 and dispatchers["SchedulerSignalBus"] == 1
    assert dispatchers["TerminalCallbackRegistry"] == 4


def test_named_sites_are_left_as_they_are(migrated: Migrated) -> None:
    branch = (migrated.root / "lionagi" / "session" / "branch.py").read_text()
    assert "._on_message_added.append(self._schedule_emit)\n" in branch
    assert "# planeshift: discard-unawaited owner=@lionagi-maintainers " in branch
    changed = "".join(c.diff for c in migrated.result.changes)
    for written in ("Subscription(", "InterceptorRegistration(", "SinkRegistration(",
                    "as_subscriber(", "as_interceptor(", "optional(", "order="):
        assert written not in changed, written
    hooks = (migrated.root / "lionagi" / "agent" / "hooks.py").read_text()
    assert "raise PermissionError" in hooks  # no decision conversion without a rewritten site


def test_every_rewritten_file_compiles_and_the_package_imports(migrated: Migrated) -> None:
    changed = [c.file for c in migrated.result.changes]
    vendored = sorted((migrated.root / "lionagi" / "runtime").rglob("*.py"))
    for path in [migrated.root / rel for rel in changed] + vendored:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    modules = [rel[:-3].replace("/", ".").removesuffix(".__init__") for rel in changed
               if rel.endswith(".py")]
    probe = ("import importlib, sys\n"
             f"for name in {modules!r}: importlib.import_module(name)\n"
             "import lionagi, lionagi.runtime.dispatch.adapters as a\n"
             "print(lionagi.__file__, a.__name__)\n")
    env = {**os.environ, "PYTHONPATH": str(migrated.root), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=migrated.root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(str(migrated.root / "lionagi"))


def test_a_scan_of_the_migrated_copy_reads_every_registration_as_before(
        migrated: Migrated) -> None:
    # the adapters hand on their handler, and the scan reads h in as_subscriber(...(handler=h)):
    # the flags (DISCARD_UNAWAITED among them) and the handler facts survive the rewrite
    def facts(regs: tuple[Registration, ...]) -> Counter[tuple]:
        return Counter((r.file, r.mechanism, r.point, r.plane, r.flags, r.handler.kind,
                        r.handler.qualname, r.handler.declared_async) for r in regs
                       if not r.file.startswith("lionagi/runtime/"))

    after = api.scan(load_config(migrated.root).with_flags(jobs=2, use_cache=False))
    assert facts(after.registrations) == facts(migrated.before)


def test_a_second_run_is_a_no_op(migrated: Migrated) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "planeshift", "migrate", "--root", str(migrated.root), "--check",
         "--jobs", "2"], cwd=migrated.root, capture_output=True, text=True, timeout=600,
        check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout == ""


def test_the_characterization_suite_passes_on_the_migrated_copy(migrated: Migrated) -> None:
    done = run_suite(migrated.root, "-q")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
