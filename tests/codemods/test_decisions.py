"""Codemod `decisions`: raises become typed decisions only where the adapter translates them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from analyzer.helpers import write_tree

from planeshift.codemods import MigrateOptions, migrate
from planeshift.config import Config

from .helpers import dedent, flat

BUS = '''
"""A bus whose handlers may stop the chain (Stop) or deny (PermissionError)."""
import inspect


class Stop(Exception):
    pass


class Bus:
    def __init__(self):
        self.handlers = []

    def on(self, handler):
        self.handlers.append(handler)

    async def run(self, **payload):
        for handler in self.handlers:
            try:
                result = handler(**payload)
                if inspect.isawaitable(result):
                    await result
            except Stop as stop:
                return f"stopped {stop.args}"
            except PermissionError as denied:
                return f"denied {denied.args}"
        return "ran"
'''

PACK = '''
pack: mini
migrate:
  declarations: always   # call sites through adapters: mini.bus does not read declarations
mechanisms:
  - id: mini_bus
    dispatcher: mini.bus.Bus
    register:
      - method: "on"
        handler: 0
        fixed_point: GUARD
    migrate:
      stop: mini.bus.Stop
      deny: PermissionError
    classify:
      - plane: interceptor
        because: ADR-0120 D2 - guards veto the run.
'''


def migrated(tmp_path: Path, app: str, select: tuple[str, ...] = ("registration", "decisions"),
             extra: dict[str, str] | None = None):
    pack = tmp_path / "mini.yaml"
    pack.write_text(textwrap.dedent(PACK))
    write_tree(tmp_path / "t", {"mini/bus.py": BUS, "app.py": app, **(extra or {})})
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False)
    result = migrate(config, MigrateOptions(select=select, write=True))
    assert not result.failed, result.not_migrated
    return result, (tmp_path / "t" / "app.py").read_text()


APP = '''
from mini.bus import Bus, Stop


async def guard(tool: str = "", **_):
    if tool == "rm":
        raise PermissionError("rm is not allowed")
    if tool == "done":
        raise Stop
    return None


bus = Bus()
bus.on(guard)
'''


def test_stop_and_deny_become_decisions_and_the_bus_sees_the_same_exceptions(
        tmp_path: Path) -> None:
    result, text = migrated(tmp_path, APP)
    assert "@returns_decisions(deny=PermissionError, stop=Stop)\nasync def guard" in text
    assert 'return InterceptorDecision(disposition=InterceptorDisposition.DENY, ' \
           'reason="rm is not allowed")' in flat(text)
    assert "return InterceptorDecision(disposition=InterceptorDisposition.STOP)" in flat(text)
    assert "raise" not in text
    probe = ("import asyncio, app\n"
             "print([asyncio.run(app.bus.run(tool=t)) for t in ('rm', 'done', 'ls')])\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path / "t",
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[\"denied ('rm is not allowed',)\", 'stopped ()', 'ran']"
    assert [m.codemod for m in result.migrated] == ["decisions", "registration"]


def test_nothing_changes_without_the_adapter_at_every_registration(tmp_path: Path) -> None:
    result, text = migrated(tmp_path, APP, select=("decisions",))
    assert "raise PermissionError" in text and result.changes == ()
    (left,) = result.not_migrated
    assert "without the as_interceptor adapter" in left.reason and left.line == 4


def test_a_handler_whose_registrations_an_earlier_run_rewrote_is_converted(
        tmp_path: Path) -> None:
    _, first = migrated(tmp_path, APP, select=("registration",))
    assert "as_interceptor(InterceptorRegistration(" in flat(first)
    assert "raise PermissionError" in first
    config = Config(root=tmp_path / "t", packs=(tmp_path / "mini.yaml",), builtin_packs=(),
                    use_cache=False)
    result = migrate(config, MigrateOptions(select=("decisions",), write=True))
    text = (tmp_path / "t" / "app.py").read_text()
    assert [m.codemod for m in result.migrated] == ["decisions"], result.not_migrated
    assert "@returns_decisions(deny=PermissionError, stop=Stop)\nasync def guard" in text
    assert "raise" not in text


def test_a_handler_named_elsewhere_keeps_raising(tmp_path: Path) -> None:
    result, text = migrated(tmp_path, APP, extra={"cli.py": "from app import guard\n"})
    assert "raise PermissionError" in text and "@returns_decisions" not in text
    assert any("also named at cli.py:1" in n.reason for n in result.not_migrated)


@pytest.mark.parametrize(("body", "why"), [
    ("    try:\n        raise PermissionError('no')\n    finally:\n        pass\n", "try/with"),
    ("    try:\n        pass\n    except OSError as exc:\n        raise PermissionError('no')\n",
     "except block"),
    ("    raise PermissionError('no') from None\n", "`from`"),
    ("    raise PermissionError(13, 'no')\n", "not one string"),
    ("    message = 'no'\n    raise PermissionError(message)\n", "not one string"),
])
def test_a_raise_whose_conversion_could_be_observed_is_left_raising(tmp_path: Path, body: str,
                                                                    why: str) -> None:
    app = f"from mini.bus import Bus\n\n\ndef guard(**_):\n{body}\n\nbus = Bus()\nbus.on(guard)\n"
    result, text = migrated(tmp_path, app)
    assert "raise PermissionError" in text and "@returns_decisions" not in text
    assert any(why in n.reason for n in result.not_migrated), result.not_migrated


def test_a_decorated_or_generator_handler_is_left_alone(tmp_path: Path) -> None:
    app = dedent('''
        import functools

        from mini.bus import Bus


        @functools.lru_cache
        def guard(**_):
            raise PermissionError("no")


        bus = Bus()
        bus.on(guard)
        ''')
    result, text = migrated(tmp_path, app)
    assert "raise PermissionError" in text
    assert any("decorators or yields" in n.reason for n in result.not_migrated)


def test_a_sync_handler_stays_sync_through_the_adapter(tmp_path: Path) -> None:
    app = "from mini.bus import Bus\n\n\ndef guard(**_):\n    raise PermissionError('no')\n\n\n" \
          "bus = Bus()\nbus.on(guard)\n"
    _, text = migrated(tmp_path, app)
    assert "@returns_decisions(deny=PermissionError)\ndef guard" in text
    sys.path.insert(0, str(tmp_path / "t"))
    try:
        import app as module  # type: ignore[import-not-found]  # written by the test

        handler = module.bus.handlers[0]
        assert not asyncio.iscoroutinefunction(handler)
        with pytest.raises(PermissionError, match="no"):
            handler()
    finally:
        sys.path.remove(str(tmp_path / "t"))
        for name in ("app", "mini", "mini.bus"):
            sys.modules.pop(name, None)


def test_a_file_that_cannot_be_read_is_a_reason_not_the_end_of_the_run(tmp_path: Path) -> None:
    """The search for other references reads every module: one it cannot read might name the
    handler, so the handler keeps raising, and the run goes on."""
    pack = tmp_path / "mini.yaml"
    pack.write_text(textwrap.dedent(PACK))
    write_tree(tmp_path / "t", {"mini/bus.py": BUS, "app.py": APP})
    (tmp_path / "t" / "broken.py").symlink_to("nowhere.py")
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False)
    result = migrate(config, MigrateOptions(select=("registration", "decisions"), write=True))
    text = (tmp_path / "t" / "app.py").read_text()
    assert "raise PermissionError" in text and "@returns_decisions" not in text
    assert "as_interceptor(" in text  # the rest of the run went on
    assert any("broken.py cannot be read" in n.reason for n in result.not_migrated), \
        result.not_migrated


def test_a_script_naming_the_handler_is_searched_too(tmp_path: Path) -> None:
    """Files whose names are not identifiers are modules too: one naming the handler keeps it
    raising, however many such files there are."""
    result, text = migrated(tmp_path, APP, extra={
        "run-hooks.py": "from app import guard\nguard()\n", "sp ace.py": "x = 1\n"})
    assert "raise PermissionError" in text and "@returns_decisions" not in text
    assert any("also named at run-hooks.py:1" in n.reason for n in result.not_migrated)


def test_each_file_is_parsed_once_not_once_per_handler(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, never timed: deciding 30 handlers of one module reads and parses that module a
    fixed number of times (the scan, the rewrite, the reference search), not 30 or 60."""
    import ast

    guards = "".join(f"\n\ndef guard_{i}(**_):\n    raise PermissionError('no {i}')\n"
                     for i in range(30))
    app = "from mini.bus import Bus\n" + guards + "\n\nbus = Bus()\n" + "".join(
        f"bus.on(guard_{i})\n" for i in range(30))
    parses = 0
    original = ast.parse

    def counted(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal parses
        if isinstance(source, (str, bytes)) and "guard_29" in str(source):
            parses += 1
        return original(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    _, text = migrated(tmp_path, app)
    assert text.count("@returns_decisions(deny=PermissionError)") == 30
    assert parses <= 12, parses  # was 64: twice per handler


def test_relative_imports_resolve_by_the_scans_module_names_in_a_src_layout(
        tmp_path: Path) -> None:
    """`src/mini/guards.py` is the module `mini.guards` (src is no package), so its
    `from .bus import Stop` is `mini.bus.Stop`, the exception the pack names."""
    pack = tmp_path / "mini.yaml"
    pack.write_text(textwrap.dedent(PACK))
    guards = ("from .bus import Bus, Stop\n\n\ndef guard(**_):\n    raise Stop\n\n\n"
              "bus = Bus()\nbus.on(guard)\n")
    write_tree(tmp_path / "t", {"src/mini/bus.py": BUS, "src/mini/guards.py": guards})
    (tmp_path / "t" / "src" / "__init__.py").unlink()  # src/ is the import root, not a package
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False)
    result = migrate(config, MigrateOptions(select=("registration", "decisions"), write=True))
    text = (tmp_path / "t" / "src" / "mini" / "guards.py").read_text()
    assert "@returns_decisions(stop=Stop)" in text, result.not_migrated
    assert "return InterceptorDecision(disposition=InterceptorDisposition.STOP)" in text


def test_a_line_separator_inside_a_literal_does_not_move_the_reference_lines(
        tmp_path: Path) -> None:
    """U+2028 (or NEL, a form feed ...) inside a string ends a line for ``str.splitlines`` but
    not for Python: the search for other references numbers lines as the ast does, so the
    registration's own line is still recognised as the registration and the other file's
    reference is reported at its real line."""
    app = APP.replace("\nbus = Bus()", '\nNOTE = "one\u2028two"\nbus = Bus()')
    result, text = migrated(tmp_path, app)
    assert "@returns_decisions(deny=PermissionError, stop=Stop)\nasync def guard" in text, \
        result.not_migrated
    (tmp_path / "other").mkdir()
    result, text = migrated(tmp_path / "other", APP, extra={
        "cli.py": 'NOTE = "one\u2028two\u2028three"\nfrom app import guard\n'})
    assert any("also named at cli.py:2" in n.reason for n in result.not_migrated), \
        result.not_migrated
