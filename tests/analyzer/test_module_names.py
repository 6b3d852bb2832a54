"""Every file has a module name, so every file's registrations are found and judged: a script
whose name no import can spell (``run-hooks.py``) is its own module, and a module in a
namespace package (no ``__init__.py``) is named as an import of it spells it."""

from __future__ import annotations

from pathlib import Path

from planeshift.api import scan
from planeshift.config import Config

from .helpers import DEMO_FILES, DEMO_PACK, show, write_tree

APP = """\
from demo.bus import EventBus


def audit(**payload):
    print("audit", payload)


bus = EventBus()
bus.subscribe(audit)
"""


def _scan(root: Path):
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1,
                    use_context=False)
    return scan(config)


def test_scripts_whose_names_are_not_identifiers_are_scanned_and_judged(tmp_path: Path) -> None:
    write_tree(tmp_path, DEMO_FILES)
    for rel in ("run-hooks.py", "sp ace.py", "scripts/run-hooks.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(APP)
    result = _scan(tmp_path)
    found = {(r.file, r.handler.qualname, r.plane) for r in result.registrations}
    assert found == {
        ("run-hooks.py", "run-hooks.audit", "subscriber"),
        ("sp ace.py", "sp ace.audit", "subscriber"),
        ("scripts/run-hooks.py", "scripts/run-hooks.audit", "subscriber"),
    }, show(result)
    assert not result.errors


def test_a_handler_imported_from_a_namespace_package_resolves(tmp_path: Path) -> None:
    """``acme/`` has no __init__.py (PEP 420): ``acme.handlers.hooks`` is the module an import
    names, so the registration in app.py resolves its handler to that file's function."""
    write_tree(tmp_path, {**DEMO_FILES, "app.py": (
        "from demo.bus import EventBus\nfrom acme.handlers.hooks import audit\n\n"
        "bus = EventBus()\nbus.subscribe(audit)\n")})
    package = tmp_path / "acme" / "handlers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text("def audit(**payload):\n    print(payload)\n")
    result = _scan(tmp_path)
    (reg,) = [r for r in result.registrations if r.file == "app.py"]
    assert reg.handler.qualname == "acme.handlers.hooks.audit", show(result)
    assert reg.handler.kind == "function"


def test_a_script_is_migrated_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    from planeshift.codemods import MigrateOptions, migrate

    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run-hooks.py").write_text(APP)
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1,
                    use_context=False)
    first = migrate(config, MigrateOptions(write=True))
    assert [m.file for m in first.migrated] == ["scripts/run-hooks.py"], first.not_migrated
    text = (tmp_path / "scripts" / "run-hooks.py").read_text()
    assert 'Subscription(name="scripts/run-hooks.audit"' in text
    again = migrate(config, MigrateOptions(write=False))
    assert again.changes == () and not again.failed


def test_a_folder_without_init_inside_a_package_is_its_namespace_subpackage(
        tmp_path: Path) -> None:
    """``acme/`` is a package and ``acme/plugins/`` has no __init__.py (Pelican's own
    ``pelican/plugins/``): ``acme.plugins.hooks`` is what ``from acme.plugins import hooks``
    imports, so the handler resolves."""
    write_tree(tmp_path, {**DEMO_FILES, "acme/__init__.py": "", "acme/app.py": (
        "from demo.bus import EventBus\nfrom acme.plugins import hooks\n\n"
        "bus = EventBus()\nbus.subscribe(hooks.audit)\n"),
        "acme/plugins/hooks.py": "def audit(**payload):\n    print(payload)\n"})
    result = _scan(tmp_path)
    (reg,) = [r for r in result.registrations if r.file == "acme/app.py"]
    assert reg.handler.qualname == "acme.plugins.hooks.audit", show(result)
