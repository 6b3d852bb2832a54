"""`planeshift migrate --series DIR`: the migration as patches in dependency order, each applying
with `git am` on top of the one before, after each of which the package imports and the
characterization gate passes; the user's tree is never touched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planeshift.codemods.series.build import GATE, Patch, order
from planeshift.codemods.series.patchfile import FileDiff, Message

from .owner_buses import BEFORE

LEGACY = Path(__file__).resolve().parents[2] / "examples" / "legacy_app"
MIGRATED = LEGACY.parent / "legacy_app_migrated"
SKIP = shutil.ignore_patterns("__pycache__", ".planeshift_cache")
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not on PATH")
IDENTITY = ["-c", "user.name=planeshift tests", "-c", "user.email=tests@planeshift.invalid",
            "-c", "commit.gpgsign=false"]

PACK = """\
pack: series-app
description: a small app's own bus
migrate:
  kernel_module: app.dispatch
mechanisms:
  - id: app_bus
    title: the app's bus
    dispatcher: app.bus.SeqBus
    register:
      - method: subscribe
        handler: {arg: 0, keyword: handler}
    emit:
      - method: emit
    classify:
      - id: app_bus.subscriber
        plane: subscriber
        because: ADR-0120 D1 - a handler observes an event.
    migrate:
      policy: app_bus
"""

HANDLERS = '''\
from app.bus import SeqBus

BUS = SeqBus()


def on_event(event):
    print("handled", event)


BUS.subscribe(on_event)
'''

TEST_MODULE = '''\
from app.bus import SeqBus


def seen(event):
    return event


def test_subscribe():
    bus = SeqBus()
    bus.subscribe(seen)
    assert bus.handler_count() == 1
'''


def small_app(root: Path) -> Path:
    """A project with one owner (a sequential bus), a call site and a test that registers."""
    files = {
        "pyproject.toml": '[project]\nname = "app"\nrequires-python = ">=3.10"\n\n'
                          '[tool.planeshift]\npacks = ["pack.yaml"]\nbuiltin-packs = []\n',
        "pack.yaml": PACK,
        "app/__init__.py": "",
        "app/bus.py": BEFORE["seq_isolate"],
        "app/handlers.py": HANDLERS,
        "tests/test_app.py": TEST_MODULE,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GIT or "git", *IDENTITY, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def committed(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "add", "-A")
    assert git(root, "commit", "-qm", "before the migration").returncode == 0
    return root


def series(root: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "planeshift", "migrate", "--root", str(root), "--series",
         str(out), "--no-context", *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)


def tree(root: Path) -> dict[str, bytes]:
    skip = {".git", "__pycache__", ".planeshift_cache"}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not skip & set(p.relative_to(root).parts)}


def subjects(out: Path) -> list[tuple[str, str]]:
    """Each patch file's name and its Subject header."""
    found = []
    for path in sorted(out.glob("*.patch")):
        line = next(x for x in path.read_text(encoding="utf-8").splitlines()
                    if x.startswith("Subject: "))
        found.append((path.name, line.removeprefix("Subject: ")))
    return found


def apply_one_by_one(copy: Path, out: Path, package: str) -> list[str]:
    """`git am` each patch in turn; after each, the package imports and (once it exists) the
    gate passes, run from the copy, whose package shadows any installed one."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    done = []
    for patch in sorted(out.glob("*.patch")):
        applied = git(copy, "am", "-q", str(patch))
        assert applied.returncode == 0, f"{patch.name}: {applied.stdout}{applied.stderr}"
        imported = subprocess.run([sys.executable, "-c", f"import {package}"], cwd=copy,
                                  env=env, capture_output=True, text=True, timeout=120,
                                  check=False)
        assert imported.returncode == 0, f"{patch.name}: {imported.stderr}"
        if (copy / GATE).is_file():
            gate = subprocess.run(
                [sys.executable, "-m", "pytest", GATE, "-q", "-p", "no:cacheprovider"],
                cwd=copy, env=env, capture_output=True, text=True, timeout=300, check=False)
            assert gate.returncode == 0, f"{patch.name}: {gate.stdout[-2000:]}"
        done.append(git(copy, "log", "-1", "--format=%s").stdout.strip())
    return done


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes],
                                                               subprocess.CompletedProcess[str]]:
    base = tmp_path_factory.mktemp("series_example")
    root = base / "app"
    shutil.copytree(LEGACY, root, ignore=SKIP)
    if GIT is not None:
        committed(root)
    before = tree(root)
    done = series(root, base / "patches")
    return root, base / "patches", before, done


def test_the_example_series_is_in_dependency_order(example) -> None:  # type: ignore[no-untyped-def]
    root, out, before, done = example
    assert done.returncode == 0, done.stderr
    assert [s for _, s in subjects(out)] == [
        "[PATCH 1/5] Vendor the ADR-0120 dispatch kernels as shop.dispatch",
        "[PATCH 2/5] tests: add the Phase 0 characterization gate",
        "[PATCH 3/5] shop: record the discarded awaitables of message_manager",
        "[PATCH 4/5] shop: record the discarded awaitables of shop_events",
        "[PATCH 5/5] settings: external hook commands as argv lists",
    ]
    names = [name for name, _ in subjects(out)]
    assert names[0] == "0001-vendor-the-adr-0120-dispatch-kernels-as-shop-dispatc.patch"
    assert tree(root) == before  # the user's tree is only read


def test_each_example_patch_says_what_why_adr_gate_and_what_was_refused(example) -> None:  # type: ignore[no-untyped-def]
    _root, out, _before, _done = example
    patches = sorted(out.glob("*.patch"))
    gate = patches[1].read_text(encoding="utf-8")
    assert "ADR: ADR-0120 Phase 0" in gate
    assert "owner not rewritten: shop/events.py" in gate  # EventBus.publish is synchronous
    orders = patches[3].read_text(encoding="utf-8")
    assert "Gate: python -m pytest tests/test_characterization_generated.py" in orders
    assert "ADR-0120 D2 (DISCARD_UNAWAITED" in orders
    assert "shop/orders.py:32: registration: a decorator registration" in orders
    # EventBus.publish is synchronous: its owner stays, so nothing would read a declaration
    assert "shop/orders.py:15: registration: not rewritten: EventBus does not\n    read " \
           "declarations until its owner runs on the kernels" in orders
    assert "diff --git a/shop/orders.py b/shop/orders.py" in orders
    argv = patches[4].read_text(encoding="utf-8")
    assert "ADR-0120 D6" in argv and ".lionagi/settings.yaml:17:" in argv
    assert "diff --git a/.lionagi/settings.yaml" in argv


@needs_git
def test_the_example_patches_apply_one_by_one_and_the_gate_stays_green(
        example, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, out, _before, done = example
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", str(root), str(copy)).returncode == 0
    applied = apply_one_by_one(copy, out, "shop")
    assert len(applied) == 5 and applied[-1] == "settings: external hook commands as argv lists"
    # the series ends where `kernels vendor` then `migrate --write` end (the committed copy),
    # plus the gate
    after = {rel: data for rel, data in tree(copy).items() if rel != GATE}
    assert after == tree(MIGRATED)


@needs_git
def test_a_small_app_gets_its_owner_before_its_call_sites_and_its_tests_last(
        tmp_path: Path) -> None:
    root = committed(small_app(tmp_path / "app"))
    out = tmp_path / "patches"
    done = series(root, out)
    assert done.returncode == 0, done.stderr
    assert [s for _, s in subjects(out)] == [
        "[PATCH 1/5] Vendor the ADR-0120 dispatch kernels as app.dispatch",
        "[PATCH 2/5] tests: add the Phase 0 characterization gate",
        "[PATCH 3/5] app: run SeqBus on the fan-out kernel (app_bus)",
        "[PATCH 4/5] app: typed registrations for app_bus",
        "[PATCH 5/5] tests: typed registrations for app_bus",
    ]
    owner = sorted(out.glob("*.patch"))[2].read_text(encoding="utf-8")
    assert "diff --git a/app/bus.py b/app/bus.py" in owner and "app/handlers.py" not in owner
    assert "ADR-0120 D2 (DispatchPolicy, the named profiles), Phase 1" in owner
    copy = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", str(root), str(copy)).returncode == 0
    apply_one_by_one(copy, out, "app.handlers")
    assert "fan_out(" in (copy / "app" / "bus.py").read_text(encoding="utf-8")
    # SeqBus reads declarations once on the kernels: its call sites hand it the Subscription
    test_app = (copy / "tests" / "test_app.py").read_text(encoding="utf-8")
    assert "bus.subscribe(Subscription(name=" in test_app and "as_subscriber(" not in test_app


def test_series_refuses_a_folder_with_patches_and_flags_that_write_elsewhere(
        tmp_path: Path) -> None:
    root = small_app(tmp_path / "app")
    out = tmp_path / "patches"
    out.mkdir()
    (out / "0001-old.patch").write_text("old", encoding="utf-8")
    done = series(root, out)
    assert done.returncode == 2 and "already holds .patch files" in done.stderr
    done = series(root, tmp_path / "other", "--write")
    assert done.returncode == 2 and "--write does not go with --series" in done.stderr
    assert not (tmp_path / "other").exists()


def _patch(key: str, phase: int, needs: set[str]) -> Patch:
    return Patch(key, phase, Message(key), [FileDiff(f"{key}.py", None, "x\n")], needs)


def test_order_follows_the_dependency_graph_not_the_list() -> None:
    made = [_patch("calls:b", 4, {"owner:b"}), _patch("owner:b", 3, {"gate"}),
            _patch("gate", 2, set()), _patch("kernels", 1, set()),
            _patch("calls:a", 4, set())]
    assert [p.key for p in order(made)] == ["kernels", "gate", "owner:b", "calls:b", "calls:a"]


def test_order_refuses_a_cycle() -> None:
    from planeshift.codemods.series.build import SeriesError

    with pytest.raises(SeriesError, match="cycle"):
        order([_patch("a", 4, {"b"}), _patch("b", 4, {"a"})])


def test_migrate_never_loads_networkx_unless_it_writes_a_series(tmp_path: Path) -> None:
    code = ("import sys\nfrom click.testing import CliRunner\nfrom planeshift.cli import cli\n"
            f"r = CliRunner().invoke(cli, ['migrate', '--root', {str(small_app(tmp_path))!r}, "
            "'--no-cache', '--no-context'])\nprint(r.exit_code, 'networkx' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.stdout.split() == ["0", "False"], done.stderr


def test_a_new_file_and_a_missing_final_newline_are_written_as_git_writes_them() -> None:
    new = FileDiff("pkg/new.py", None, "a = 1\nb = 2").text()
    assert new.startswith("diff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n"
                          "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
                          "\\ No newline at end of file\n")
    edit = FileDiff("pkg/old.py", "x = 1\n", "x = 2\n").text()
    assert "--- a/pkg/old.py\n+++ b/pkg/old.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n" in edit


def test_identical_message_lines_are_said_once_with_their_count() -> None:
    body = Message("s", ["a.py:3: registration: x", "a.py:3: registration: x"],
                   refused=["b.py:1: why"] * 3).body()
    assert "  - a.py:3: registration: x (x2)\n" in body
    assert "Left as it is (3), and why:\n  - b.py:1: why (x3)" in body


def test_a_message_line_git_would_read_as_the_diff_or_its_end_is_indented() -> None:
    body = Message("s", ["diff -u a b"], refused=["--- a note"]).body()
    assert "\n  - diff -u a b\n" in body and "\n  - --- a note" in body
    assert not any(line.startswith(("---", "diff -")) for line in body.splitlines())


@needs_git
def test_a_rendered_patch_applies_with_git_am(tmp_path: Path) -> None:
    from planeshift.codemods.series.patchfile import render

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "old.py").write_text("x = 1\n", encoding="utf-8")
    committed(repo)
    text = render(Message("pkg: one change", ["old.py: x"], "why", "ADR-0120 D1", "none"),
                  [FileDiff("old.py", "x = 1\n", "x = 2\n"), FileDiff("new.py", None, "y = 1")],
                  1, 1, "Wed, 02 Dec 2026 12:00:00 +0000")
    (tmp_path / "0001.patch").write_text(text, encoding="utf-8")
    done = git(repo, "am", "-q", str(tmp_path / "0001.patch"))
    assert done.returncode == 0, done.stderr
    assert (repo / "old.py").read_text() == "x = 2\n" and (repo / "new.py").read_text() == "y = 1"
    message = git(repo, "log", "-1", "--format=%s%n%b").stdout
    assert message.startswith("pkg: one change\nWhat:\n  - old.py: x\n") and "ADR: ADR-0120 D1" in message


@needs_git
def test_a_project_below_the_git_top_with_its_kernels_vendored_starts_at_the_gate(
        tmp_path: Path) -> None:
    from planeshift.vendor import vendor_kernels

    top = tmp_path / "repo"
    root = top / "services" / "shop"
    shutil.copytree(LEGACY, root, ignore=SKIP)
    vendor_kernels(root / "shop" / "dispatch", "shop.dispatch")
    committed(top)
    out = tmp_path / "patches"
    done = series(root, out)
    assert done.returncode == 0, done.stderr
    found = subjects(out)
    assert found[0][1] == "[PATCH 1/4] tests: add the Phase 0 characterization gate"
    assert len(found) == 4 and "Vendor" not in " ".join(s for _, s in found)
    gate = (out / found[0][0]).read_text(encoding="utf-8")
    assert f"diff --git a/services/shop/{GATE} b/services/shop/{GATE}" in gate
    assert f"Gate: cd services/shop && python -m pytest {GATE}\n" in gate
    copy = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", str(top), str(copy)).returncode == 0
    applied = git(copy, "am", "-q", *map(str, sorted(out.glob("*.patch"))))
    assert applied.returncode == 0, applied.stderr
    after = {rel: data for rel, data in tree(copy / "services" / "shop").items() if rel != GATE}
    assert after == tree(MIGRATED)
