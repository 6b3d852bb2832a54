"""A call-site declaration is written only for an owner that reads it: before `migrate --owners`
the registration is left alone with the reason; after it, the owner's façade unwraps the typed
registration and the kernel runs and names the handlers as declared (name, order, plane)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analyzer.helpers import write_tree

from planeshift.codemods import migrate
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.model import MigrateResult
from planeshift.codemods.owner.declarations import OwnerDeclarations
from planeshift.config import Config

PACK = Path(__file__).resolve().parents[1] / "fixtures" / "packs" / "relay.yaml"
RELAY = OwnerDeclarations.EXAMPLES[0].before
APP = '''\
from relay import Relay


def audit(event):
    print("audit", event)


relay = Relay()
relay.listen(audit)
relay.listen(lambda event: print("lambda", event))
'''


def _run(root: Path, **options: object) -> MigrateResult:
    config = Config(root=root, packs=(PACK,), builtin_packs=(), use_cache=False, jobs=1,
                    use_context=False)
    return migrate(config, MigrateOptions(write=True, **options))  # type: ignore[arg-type]


def _project(tmp_path: Path) -> Path:
    import textwrap

    write_tree(tmp_path, {"relay.py": textwrap.dedent(RELAY).lstrip("\n"), "app.py": APP})
    return tmp_path


def test_no_declaration_is_written_for_an_owner_that_does_not_read_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = _run(root)
    assert result.changes == ()
    reasons = {n.reason for n in result.not_migrated if n.codemod == "registration"}
    assert reasons == {"not rewritten: Relay does not read declarations until its owner runs "
                       "on the kernels (migrate --owners)"}
    assert (root / "app.py").read_text() == APP


def test_an_owner_in_a_library_is_named_as_the_librarys(tmp_path: Path) -> None:
    """An app using the library: `migrate --owners` here would find nothing to change, so the
    reason says where the owner is."""
    write_tree(tmp_path, {"app.py": APP})
    result = _run(tmp_path)
    reasons = {n.reason for n in result.not_migrated if n.codemod == "registration"}
    assert reasons == {"not rewritten: Relay is relay's, not this project's, and reads no "
                       "declarations: its call sites here can be rewritten once a relay release "
                       "whose owners run on the kernels is installed (`migrate --owners` on its "
                       "source)"}


def test_after_the_owner_runs_on_the_kernels_its_facade_reads_each_declaration(
        tmp_path: Path) -> None:
    root = _project(tmp_path)
    owners = _run(root, owners=True)
    assert any(m.codemod == "owner_declarations" for m in owners.migrated)
    relay = (root / "relay.py").read_text()
    assert "listener = _RELAY_DECLARATIONS.accept(listener)" in relay
    sites = _run(root)
    assert [m.codemod for m in sites.migrated] == ["registration", "registration"]
    app = (root / "app.py").read_text()
    assert 'relay.listen(Subscription(name="app.audit", policy="relay", handler=audit))' in app
    assert 'name="app.<lambda@listen>"' in app
    assert "order=" not in app and "as_subscriber" not in app
    assert _run(root).changes == () and _run(root, owners=True).changes == ()
    script = '''
import asyncio
import planeshift.kernels._table as fanout
from planeshift.kernels.adapters import Subscription

reports = []
original = fanout.fan_out
async def spy(*args, **kwargs):
    report = await original(*args, **kwargs)
    reports.append([o.name for o in report.outcomes])
    return report
fanout.fan_out = spy

import app
app.relay.listen(Subscription(name="app.first", policy="relay", order=-1,
                              handler=lambda event: print("first", event)))
app.relay.listen(print)  # a bare handler still registers, named by the kernel
asyncio.run(app.relay.fire("placed"))
print(reports)
try:
    app.relay.listen(app.__dict__["Subscription"](name="x", policy="relay", handler=None))
except Exception as exc:
    print(type(exc).__name__)
'''
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "first placed", "audit placed", "lambda placed", "placed",
        "[['app.first', 'app.audit', 'app.<lambda@listen>', 'print']]",
        "PolicyError",
    ]


def test_a_registration_of_another_plane_is_refused_by_the_facade(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _run(root, owners=True)
    script = '''
from planeshift.kernels import DeliverySink
from planeshift.kernels.adapters import SinkRegistration
import relay
try:
    relay.Relay().listen(SinkRegistration(name="mail", port=DeliverySink, handler=print))
except Exception as exc:
    print(type(exc).__name__, exc.rules)
'''
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.stdout.strip() == "PolicyError ('plane-mismatch',)", done.stderr


def test_a_handler_the_scan_cannot_name_gets_no_declared_name(tmp_path: Path) -> None:
    """A loop variable or a parameter holds many handlers: one name made from the expression
    would be true of none of them, so the call site is left alone with the reason."""
    app = APP + '''

def add_all(handlers):
    for handler in handlers:
        relay.listen(handler)


def add_one(callback):
    relay.listen(callback)
'''
    root = _project(tmp_path)
    (root / "app.py").write_text(app)
    _run(root, owners=True)
    sites = _run(root)
    refused = {n.line: n.reason for n in sites.not_migrated if n.codemod == "registration"}
    assert sorted(refused) == [15, 19]
    assert all("is no one callable the scan can name" in r for r in refused.values())
    text = (root / "app.py").read_text()
    assert "relay.listen(handler)" in text and "relay.listen(callback)" in text
    assert 'name="app.audit"' in text  # the named ones are still declared
