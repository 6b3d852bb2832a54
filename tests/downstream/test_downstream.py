"""A downstream app, scanned with lionagi installed in its .venv, is judged as exactly as with
lionagi's source in the tree; without any context only declared-dormant points are dormant."""

from __future__ import annotations

import os
import shutil
import types
from pathlib import Path

import pytest

from planeshift.analyzer import context as context_module
from planeshift.api import scan
from planeshift.config import Config
from planeshift.types import ScanResult

from .app import install_lionagi, write_app

pytestmark = pytest.mark.corpus


def app_view(result: ScanResult) -> tuple[list, list]:
    regs = [(r.file, r.line, r.col, r.end_line, r.end_col, r.mechanism, r.api, r.point, r.plane,
             r.flags, r.handler.qualname) for r in result.registrations
            if r.file.startswith("myapp/")]
    findings = [(f.rule, f.file, f.line, f.severity) for f in result.findings
                if f.file.startswith("myapp/")]
    return regs, findings


@pytest.fixture(scope="module")
def trees(corpus_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("downstream")
    app = write_app(base / "app")
    install_lionagi(app / ".venv", corpus_root)
    inline = write_app(base / "inline")
    shutil.copytree(corpus_root, inline / "lionagi", ignore=shutil.ignore_patterns("__pycache__"))
    return {"app": app, "inline": inline}


@pytest.fixture(scope="module")
def with_venv(trees: dict[str, Path]) -> ScanResult:
    # the interpreter's own path and environment are hidden, so the app's .venv is where
    # lionagi is found, as for a linter run from an isolated environment of its own
    saved, env = context_module.sys, os.environ.pop("VIRTUAL_ENV", None)
    context_module.sys = types.SimpleNamespace(path=[])  # type: ignore[assignment]
    try:
        return scan(Config(root=trees["app"], use_cache=False, jobs=2))
    finally:
        context_module.sys = saved
        if env is not None:
            os.environ["VIRTUAL_ENV"] = env


def test_lionagi_is_read_from_the_apps_venv(with_venv: ScanResult) -> None:
    (use,) = with_venv.context
    assert (use.package, use.version, use.origin) == ("lionagi", "0.36.0", ".venv")
    assert use.files > 600 and "hookbus" in use.mechanisms
    assert with_venv.files_scanned == 4  # the library is read, not scanned


def test_the_app_is_judged_as_with_lionagi_in_the_tree(with_venv: ScanResult,
                                                       trees: dict[str, Path]) -> None:
    inline = scan(Config(root=trees["inline"], use_cache=False, jobs=2))
    assert app_view(with_venv) == app_view(inline)


def test_facades_and_string_points_resolve_through_the_library(with_venv: ScanResult) -> None:
    regs, findings = app_view(with_venv)
    planes = {(api, point): plane for _, line, _, _, _, _, api, point, plane, _, _ in regs}
    assert planes[("on", "USER_PROMPT_SUBMIT")] == "interceptor"  # "prompt.submit" is its value
    assert planes[("observe", "NodeFailed")] == "subscriber"  # the Session.observe façade
    assert planes[("gate", "GATE")] == "interceptor"
    assert ("PS103", "myapp/hooks.py", 32, "warning") in findings  # ARTIFACT_CREATED
    assert [f for f in findings if f[0] == "PS103"] == [("PS103", "myapp/hooks.py", 32, "warning")]


def test_without_context_only_declared_dormant_points_are_dormant(trees: dict[str, Path]) -> None:
    blind = scan(Config(root=trees["app"], use_cache=False, jobs=1, use_context=False))
    (use,) = blind.context
    assert (use.root, use.origin) == (None, "not read (--no-context)")
    dormant = [(f.file, f.line) for f in blind.findings if f.rule == "PS103"]
    assert dormant == [("myapp/hooks.py", 32)]  # ARTIFACT_CREATED, declared dormant by the pack


def _activated(regs, app: str = "myapp/") -> list[tuple]:
    return sorted((r.file, r.line, r.col, r.mechanism, r.plane, r.handler.qualname,
                   tuple((a.file, a.line, a.col, a.helper, a.resolved) for a in r.activations
                         if a.file.startswith(app)))
                  for r in regs if any(a.file.startswith(app) for a in r.activations))


def test_the_library_registrations_the_app_activates(with_venv: ScanResult,
                                                     trees: dict[str, Path]) -> None:
    """Made in lionagi's helpers, reported with the app's calls of them: the same registrations
    and calls as a scan with lionagi in the tree lists under lionagi's registrations."""
    inline = scan(Config(root=trees["inline"], use_cache=False, jobs=2))
    library = _activated(with_venv.library)
    assert library == _activated(inline.registrations)
    assert [(file, mech, plane, [(line, helper.rsplit(".", 1)[-1], resolved)
                                 for _, line, _, helper, resolved in calls])
            for file, _, _, mech, plane, _, calls in library] == [
        ("lionagi/session/observer.py", "session_observer", "delivery_sink",
         [(7, "bind_db_persistence", False)]),  # by the method's name: `session` has no type
        ("lionagi/state/lifecycle/notify_settings.py", "terminal_callbacks", "delivery_sink",
         [(6, "register_settings_terminal_callback", True)]),
        ("lionagi/studio/scheduler/signals.py", "scheduler_signals", "subscriber",
         [(8, "register_default_handlers", True), (12, "register_default_handlers", True),
          (16, "wire", True)]),
    ]
    assert all(not r.file.startswith("<") for r in with_venv.library)
    assert not any(r.file.startswith("lionagi/") for r in with_venv.registrations)


def test_without_context_no_library_registration_is_known(trees: dict[str, Path]) -> None:
    blind = scan(Config(root=trees["app"], use_cache=False, jobs=1, use_context=False))
    assert blind.library == ()


def test_an_apps_error_hook_lost_in_the_library_is_reported_at_the_apps_line(
        corpus_root: Path, tmp_path: Path) -> None:
    """The store nothing invokes is lionagi's, read as context (never reported itself): the app
    hears of it where it registers (PS102)."""
    (tmp_path / "kit.py").write_text(
        "from lionagi.tools.coding import CodingToolkit\n\n\n"
        "def report(*args, **kwargs):\n    print(args)\n\n\n"
        "def build(root):\n    kit = CodingToolkit(workspace_root=root)\n"
        "    kit.on_error('editor', report)\n    return kit\n", encoding="utf-8")
    result = scan(Config(root=tmp_path, use_cache=False, jobs=1,
                         context=(corpus_root.parent,)))
    [finding] = [f for f in result.findings if f.rule == "PS102"]
    assert (finding.file, finding.line) == ("kit.py", 10)
    assert "lands in CodingToolkit._error_hooks (lionagi/tools/coding.py:" in finding.message
