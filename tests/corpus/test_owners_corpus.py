"""`planeshift migrate --owners` on a copy of lionagi 0.36.0 with the kernels vendored where
ADR-0120 D7 puts them: the suite `planeshift characterize` generates from the copy and the
hand-written characterization suite both pass on the copy before, the dispatchers the kernels can
reproduce are rewritten under the policy their code has, the package imports, both suites pass on
the migrated copy, every refused owner is listed with the axis or behaviour, and a second run
changes nothing (ADR-0120 Phase 1, "kernels behind existing façades").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from characterization.runner import run_suite

from planeshift import api
from planeshift.characterize.against_copy import run_against
from planeshift.codemods import MigrateOptions, MigrateResult, migrate
from planeshift.codemods.report.json_report import load_migrate_schema, migrate_dict
from planeshift.codemods.report.owners import owners
from planeshift.config import Config, load_config
from planeshift.vendor import vendor_kernels

pytestmark = pytest.mark.corpus

# The seven dispatchers ADR-0120 Phase 1 names, and what the kernels can do with each (the
# reasons are docs/characterization.md's differences, read from the code by the codemod).
REWRITTEN = {
    # blocking_emit and emit: `except StopHook: break` is the kernel's stop signal
    "HookBus": ("session_observer", "nearest", ["returned_awaitable"]),
    "Broadcaster": ("broadcaster", "exact", []),
    "SchedulerSignalBus": ("scheduler", "exact", []),
    "TerminalCallbackRegistry": ("terminal_callback", "nearest",
                                 ["failure", "handler_cancellation"]),
    "MessageManager": ("message_manager_async", "exact", []),
    # sync handlers inline, each once per value its filter matches, awaitables gathered after
    "SessionObserver": ("session_observer", "exact", []),
}
# MessageManager's second entry, its sync one, on fan_out_sync under the sync profile
SYNC_ENTRIES = {"MessageManager.add_message": "message_manager_sync"}
# the same class owns a second mechanism, not one of the seven: its pile-rewritten callbacks
PILE_REWRITTEN = "message_pile_rewritten"
REFUSED = {  # class -> {entry: the start of its reason}
    "HookRegistry": {"HookRegistry.call": "concurrency: HookRegistry.call calls one handler",
                     "HookRegistry.handle_streaming_chunk": "concurrency: "},
}


class Owners:
    def __init__(self, root: Path, result: MigrateResult, before: str, after: str,
                 generated_before: str, generated_after: str) -> None:
        self.root, self.result = root, result
        self.before, self.after = before, after
        self.generated_before, self.generated_after = generated_before, generated_after
        # one record per owner (mechanism, file, class): MessageManager owns two mechanisms
        self.records = {(r["class"] or r["entries"][0]["entry"]): r for r in owners(result)
                        if r["mechanism"] != PILE_REWRITTEN}
        self.pile = [r for r in owners(result) if r["mechanism"] == PILE_REWRITTEN]
        self.entries: dict[str, dict[str, dict]] = {}
        for record in owners(result):
            if record["mechanism"] == PILE_REWRITTEN:
                continue
            for entry in record["entries"]:
                self.entries.setdefault(record["class"] or entry["entry"], {})[entry["entry"]] = \
                    {**entry, "owner_status": record["status"]}


@pytest.fixture(scope="module")
def migrated(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Owners:
    root = tmp_path_factory.mktemp("owners")
    shutil.copytree(corpus_root, root / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    # the Phase 0 gate, generated from the unmigrated copy before anything changes
    gate = api.characterize(Config(root=root / "lionagi", use_cache=False, jobs=2))
    module = tmp_path_factory.mktemp("gate") / "test_characterization_generated.py"
    module.write_text(gate.module)

    def generated() -> str:
        done = run_against(module, root, gate.packages, "-q", capture=True, timeout=900)
        return "" if done.returncode == 0 else done.stdout + done.stderr

    before = run_suite(root, "-q")
    generated_before = generated()
    vendor_kernels(root / "lionagi" / "runtime" / "dispatch", "lionagi.runtime.dispatch")
    config = load_config(root).with_flags(jobs=2)
    result = migrate(config, MigrateOptions(owners=True, write=True))
    assert not result.failed, [n for n in result.not_migrated if n.error]
    after = run_suite(root, "-q")
    return Owners(root, result, before.stdout + before.stderr if before.returncode else "",
                  after.stdout + after.stderr if after.returncode else "",
                  generated_before, generated())


def test_the_characterization_suite_passes_on_the_copy_before_the_migration(
        migrated: Owners) -> None:
    assert migrated.before == "", migrated.before[-3000:]


def test_the_generated_gate_passes_on_the_copy_before_the_migration(migrated: Owners) -> None:
    assert migrated.generated_before == "", migrated.generated_before[-3000:]


def test_the_generated_gate_passes_on_the_migrated_copy(migrated: Owners) -> None:
    assert migrated.generated_after == "", migrated.generated_after[-3000:]


def test_the_dispatchers_the_kernels_reproduce_are_rewritten_under_their_own_policy(
        migrated: Owners) -> None:
    for cls, (profile, matched, differing) in REWRITTEN.items():
        record = migrated.records[cls]
        assert record["status"] == "rewritten", record
        entry = record["entries"][0]
        assert (entry["profile"], entry["matched"]) == (profile, matched), entry
        assert [d["axis"] for d in entry["differences"]] == differing
    terminal = migrated.records["TerminalCallbackRegistry"]["entries"][0]["policy"]
    assert terminal["failure"] == "isolate_base_exceptions"
    assert terminal["handler_cancellation"] == "cancel_siblings_and_return"
    assert terminal["deadline"] == "shared" and terminal["deadline_disposition"] == "silent_stop"
    rewritten = {r["class"] for r in migrated.records.values() if r["status"] == "rewritten"}
    assert rewritten == set(REWRITTEN)
    entries = {e["entry"]: e for e in migrated.records["MessageManager"]["entries"]}
    for entry, profile in SYNC_ENTRIES.items():
        assert (entries[entry]["profile"], entries[entry]["matched"]) == (profile, "exact")
        assert entries[entry]["policy"]["sync_entry"] == "reject_declared_async_before_owner_effect"
    manager = (migrated.root / "lionagi/protocols/messages/manager.py").read_text()
    assert manager.count("group=_raise_callback_errors,") == 2
    assert "fan_out_sync(" in manager and "await fan_out(" in manager
    assert "hook_snapshot = self._snapshot_hooks_or_reject_async()" in manager  # its preflight
    (pile,) = migrated.pile  # set_system / clear_messages: sync, no preflight, left as they are
    assert pile["status"] == "refused"
    assert all(e["reason"].startswith("sync entry:") for e in pile["entries"]), pile
    hookbus = migrated.entries["HookBus"]
    assert {e: (v["profile"], v["matched"]) for e, v in hookbus.items()} == {
        "HookBus.blocking_emit": ("session_observer", "nearest"),
        "HookBus.emit": ("broadcaster", "nearest")}
    bus = (migrated.root / "lionagi/hooks/bus.py").read_text()
    assert bus.count("stop=StopHook,") == 2 and "except StopHook" not in bus
    # emit's clause: a store refusal is re-raised by the hook, every other failure logged
    assert "                if refusal_in(exc) is not None:\n" in bus
    assert 'logger.exception("Hook failed: %s", point.value)' in bus
    assert "        finally:\n            _emitting_bus.reset(token)\n" in bus
    observer = (migrated.root / "lionagi/session/observer.py").read_text()
    assert "_SESSION_OBSERVER_EMIT_POLICY = DispatchPolicy.session_observer()" in observer
    assert ("        def _entries():\n            for flt, handler in self._subs:\n"
            "                for matched in self._match(flt, event, payload):\n"
            "                    yield handler, matched\n") in observer
    assert "gather=_gather," in observer and "return sync_results + async_results" in observer
    assert "_SESSION_OBSERVER_DECLARATIONS" not in observer  # its entries are no registrations
    broadcaster = (migrated.root / "lionagi/service/broadcaster.py").read_text()
    assert "_BROADCASTER_BROADCAST_POLICY = DispatchPolicy.broadcaster()" in broadcaster
    assert 'logger.error(f"Error in subscriber callback: {e}", exc_info=True)' in broadcaster


def test_every_refused_owner_is_listed_with_the_axis_or_behaviour(migrated: Owners) -> None:
    for cls, reasons in REFUSED.items():
        got = migrated.entries[cls]
        for entry, start in reasons.items():
            assert got[entry]["owner_status"] == "refused"
            assert got[entry]["reason"].startswith(start), (entry, got[entry])
    axes = ("concurrency", "failure", "completion", "error surface", "sync entry",
            "handler invocation", "handler cancellation", "returned awaitable", "deadline",
            "not an owner", "left with its owner")
    for record in migrated.records.values():
        for entry in record["entries"]:
            if entry["status"] == "refused":
                assert entry["reason"].startswith(axes), entry


def test_the_migrated_package_imports_and_every_rewritten_file_compiles(migrated: Owners) -> None:
    changed = [c.file for c in migrated.result.changes]
    assert sorted(changed) == ["lionagi/hooks/bus.py", "lionagi/protocols/messages/manager.py",
                               "lionagi/service/broadcaster.py",
                               "lionagi/session/observer.py",
                               "lionagi/state/lifecycle/callbacks.py",
                               "lionagi/studio/scheduler/signals.py"]
    modules = [rel[:-3].replace("/", ".") for rel in changed]
    probe = ("import importlib\n"
             f"for name in {modules!r}: importlib.import_module(name)\n"
             "import lionagi, lionagi.runtime.dispatch as k\n"
             "print(lionagi.__file__, k.fan_out.__module__)\n")
    env = {**os.environ, "PYTHONPATH": str(migrated.root), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=migrated.root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(str(migrated.root / "lionagi"))
    assert "lionagi.runtime.dispatch.entries" in done.stdout


def test_the_characterization_suite_passes_on_the_migrated_copy(migrated: Owners) -> None:
    assert migrated.after == "", migrated.after[-3000:]


def test_the_json_report_lists_owners_and_satisfies_its_schema(migrated: Owners) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    document = json.loads(json.dumps(migrate_dict(migrated.result), default=str))
    jsonschema.validate(document, load_migrate_schema())
    assert {o["class"] for o in document["owners"]} >= set(REWRITTEN) | set(REFUSED)


def test_a_second_owners_run_is_a_no_op(migrated: Owners) -> None:
    import planeshift

    source = str(Path(planeshift.__file__).resolve().parents[1])  # this planeshift, not another
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [source, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "planeshift", "migrate", "--owners", "--root", str(migrated.root),
         "--check", "--jobs", "2"], cwd=migrated.root, env=env, capture_output=True, text=True,
        timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_suite_goes_red_when_the_migrated_observer_gathers_otherwise(
        migrated: Owners, tmp_path: Path) -> None:
    """SessionObserver's failure and cancellation forms are its own gather's (anyio's group
    message, one failure raised with the group as its cause, a sibling's scope cancellation
    returned): on the kernel's own gather stage instead, the suite goes red exactly there."""
    copy = tmp_path / "copy"
    shutil.copytree(migrated.root / "lionagi", copy / "lionagi",
                    ignore=shutil.ignore_patterns("__pycache__"))
    observer = copy / "lionagi" / "session" / "observer.py"
    source = observer.read_text()
    assert source.count("            gather=_gather,\n") == 1
    observer.write_text(source.replace("            gather=_gather,\n", ""))
    done = run_suite(copy, "-q", "-p", "no:randomly", "-k", "session_observer")
    assert done.returncode == 1, done.stdout[-2000:]
    failed = set(re.findall(r"^FAILED \S*?::(test_\w+)", done.stdout, re.MULTILINE))
    assert failed == {
        "test_one_failing_awaitable_is_raised_as_itself_and_cancels_its_siblings",
        "test_several_failing_awaitables_are_raised_as_one_exception_group",
        "test_one_cancelled_awaitable_cancels_its_sibling_and_both_are_returned_not_raised",
        "test_failure_beside_a_cancelled_awaitable_is_raised_and_the_cancellation_dropped",
    }, done.stdout[-3000:]


def test_the_observer_s_call_sites_say_why_they_stay(migrated: Owners) -> None:
    """SessionObserver runs on the kernels but reads no declaration (its entries are
    (handler, value) pairs): its call sites are left as they are, and say so."""
    config = load_config(migrated.root).with_flags(jobs=2)
    result = migrate(config, MigrateOptions(write=False, kernel_module="lionagi.runtime.dispatch"))
    reasons = {n.reason for n in result.not_migrated
               if n.registration is not None and n.registration.mechanism == "session_observer"}
    assert reasons and all("SessionObserver runs on the kernels, but its fan-out" in r
                           for r in reasons), reasons
