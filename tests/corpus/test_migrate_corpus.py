"""planeshift migrate on a copy of lionagi 0.36.0 with the kernels vendored where ADR-0120 D7
puts them: most high-confidence registrations are rewritten, every reason for the rest is one
the codemods document, the result compiles, imports, passes the characterization suite, and a
second run changes nothing.

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

from planeshift import api
from planeshift.codemods import MigrateOptions, MigrateResult, migrate
from planeshift.config import load_config
from planeshift.types import Registration
from planeshift.vendor import vendor_kernels

from characterization.runner import run_suite

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


def test_at_least_80_percent_of_high_confidence_registrations_are_rewritten(
        migrated: Migrated) -> None:
    classified = migrated.classified
    done = [r for r in classified if r.key in migrated.rewritten]
    assert len(classified) >= 50
    assert len(done) / len(classified) >= 0.8, (len(done), len(classified))
    reasons = {n.registration.key: n.reason for n in migrated.result.not_migrated
               if n.codemod == "registration" and n.registration is not None}
    left = [r for r in classified if r.key not in migrated.rewritten]
    assert all(r.key in reasons for r in left)  # every one left has its reason
    kinds = Counter(reasons[r.key].split(" (")[0].split(":")[0] for r in left)
    assert set(kinds) <= {"the handler handler is not known to be callable",
                          "the handler on_progress is not known to be callable",
                          "the handler on_event is not known to be callable",
                          "the handler prev_stream_func is not known to be callable",
                          "the handler self.streaming_process_func is not known to be callable",
                          "the handler condition is not known to be callable",
                          "the handler check is not known to be callable"}, kinds


def test_named_sites_are_rewritten_as_the_pack_says(migrated: Migrated) -> None:
    branch = (migrated.root / "lionagi" / "session" / "branch.py").read_text()
    assert ('_on_message_added.append(as_subscriber(Subscription(name="lionagi.session.branch.'
            'Branch._schedule_emit", policy="message_manager", handler=self._schedule_emit)))'
            in branch)
    assert "# planeshift: discard-unawaited owner=@lionagi-maintainers " in branch
    spec = (migrated.root / "lionagi" / "agent" / "spec.py").read_text()
    assert ('obj.security_pre("bash", as_interceptor(InterceptorRegistration(name="lionagi.agent.'
            'hooks.guard_destructive", stage="SECURITY_PRE", handler=guard_destructive, '
            'order=0)))') in spec
    notify = (migrated.root / "lionagi" / "state" / "lifecycle" / "notify_settings.py").read_text()
    assert "as_sink(SinkRegistration(" in notify and "port=DeliverySink" in notify
    hooks = (migrated.root / "lionagi" / "agent" / "hooks.py").read_text()
    assert "raise PermissionError" in hooks  # public guards keep raising: callers outside


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
