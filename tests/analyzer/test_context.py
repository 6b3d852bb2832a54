"""Where a pack's package source is found (never imported): given folders first, then the
interpreter's path, then the scanned project's own environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.analyzer.context import find_roots
from planeshift.packs.model import Pack

PACKS = (Pack(name="p", path="p.yaml", mechanisms=(), package="somelib"),)


def package(folder: Path, version: str | None = "1.2.3") -> Path:
    (folder / "somelib").mkdir(parents=True)
    (folder / "somelib" / "__init__.py").write_text("")
    if version:
        (folder / f"somelib-{version}.dist-info").mkdir()
    return folder / "somelib"


@pytest.fixture(autouse=True)
def no_virtual_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def one(roots_missing) -> tuple:
    (root,), missing = roots_missing
    assert missing == []
    return root.folder, root.version, root.origin


def test_a_given_folder_holding_the_package(tmp_path: Path) -> None:
    site = tmp_path / "site"
    pkg = package(site)
    assert one(find_roots(PACKS, tmp_path, [site], set(), [])) == (pkg, "1.2.3", "--context / config")


def test_the_package_folder_itself(tmp_path: Path) -> None:
    pkg = package(tmp_path / "src", version=None)
    assert one(find_roots(PACKS, tmp_path, [pkg], set(), [])) == (pkg, None, "--context / config")


def test_the_interpreters_path(tmp_path: Path) -> None:
    pkg = package(tmp_path / "site")
    assert one(find_roots(PACKS, tmp_path, [], set(), [str(tmp_path / "site")]))[0] == pkg


@pytest.mark.parametrize("env", [".venv", "venv"])
def test_the_projects_environment(tmp_path: Path, env: str) -> None:
    pkg = package(tmp_path / env / "lib" / "python3.12" / "site-packages")
    assert one(find_roots(PACKS, tmp_path, [], set(), [])) == (pkg, "1.2.3", env)


def test_virtual_env_comes_before_the_projects_folders(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    active = package(tmp_path / "active" / "lib" / "python3.11" / "site-packages", "2.0")
    package(tmp_path / "project" / ".venv" / "lib" / "python3.11" / "site-packages")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "active"))
    assert one(find_roots(PACKS, tmp_path / "project", [], set(), [])) == (
        active, "2.0", "$VIRTUAL_ENV")


def test_a_package_in_the_scanned_tree_needs_no_context(tmp_path: Path) -> None:
    package(tmp_path / "site")
    assert find_roots(PACKS, tmp_path, [tmp_path / "site"], {"somelib.bus"}, []) == ([], [])


def test_a_tree_that_never_names_the_package_reads_no_installed_copy(tmp_path: Path) -> None:
    """A Django project scanned from a venv that holds lionagi: lionagi is not read (it cost
    seconds and said nothing), nor said to be missing; a folder given with --context still is."""
    from planeshift.analyzer.context import mentioned_in
    from planeshift.analyzer.discover import discover

    site = tmp_path / "site"
    pkg = package(site)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "views.py").write_text("import django\n")
    mentions = mentioned_in(discover(tmp_path / "app"))
    assert find_roots(PACKS, tmp_path / "app", [], set(), [str(site)],
                      mentions=mentions) == ([], [])
    assert one(find_roots(PACKS, tmp_path / "app", [site], set(), [], mentions=mentions))[0] == pkg
    (tmp_path / "app" / "hooks.py").write_text("from somelib import bus\n")
    mentions = mentioned_in(discover(tmp_path / "app"))
    assert one(find_roots(PACKS, tmp_path / "app", [], set(), [str(site)],
                          mentions=mentions))[0] == pkg


def test_a_package_found_nowhere_is_missing(tmp_path: Path) -> None:
    assert find_roots(PACKS, tmp_path, [], set(), []) == ([], ["somelib"])


def test_looking_can_be_turned_off(tmp_path: Path) -> None:
    package(tmp_path / "site")
    assert find_roots(PACKS, tmp_path, [tmp_path / "site"], set(), [], look=False) == (
        [], ["somelib"])


def test_context_folders_from_pyproject_are_relative_to_it(tmp_path: Path) -> None:
    from planeshift.config import load_config

    (tmp_path / "pyproject.toml").write_text('[tool.planeshift]\ncontext = ["vendor/site"]\n')
    config = load_config(tmp_path)
    assert config.context == ((tmp_path / "vendor" / "site").resolve(),)
    assert config.with_flags(context=(tmp_path / "other",)).context == (
        (tmp_path / "vendor" / "site").resolve(), tmp_path / "other")


def test_the_cli_reads_context_flags(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from planeshift.cli import cli

    package(tmp_path / "site")
    (tmp_path / "app.py").write_text("import lionagi\n")  # (a tree that uses it hears of it)
    result = CliRunner().invoke(cli, ["scan", str(tmp_path), "--format", "json", "--no-cache",
                                      "--no-context"])
    assert result.exit_code == 0, result.output
    assert '"origin": "not read (--no-context)"' in result.output
    (tmp_path / "app.py").write_text("x = 1\n")
    result = CliRunner().invoke(cli, ["scan", str(tmp_path), "--format", "json", "--no-cache",
                                      "--no-context"])
    assert '"origin": "not read (--no-context)"' not in result.output


def test_two_installs_of_a_library_share_the_cache_and_an_edited_one_does_not(
        tmp_path: Path) -> None:
    """The demo bus installed twice (two venvs, files written at other times) and described by
    one pack kept in two places: a scan with either answers from the other's cache, and says
    which it read; one byte edited in an install, its size and mtime kept, is read afresh."""
    import os

    from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree
    from planeshift.api import scan
    from planeshift.config import Config

    pack = DEMO_PACK.read_text(encoding="utf-8").replace("pack: demo\n",
                                                         "pack: demo\npackage: demo\n", 1)
    assert "package: demo\n" in pack
    root = tmp_path / "app"
    write_tree(root, {"app.py": "from demo.bus import EventBus\n\n\ndef audit(**payload):\n"
                                "    return payload\n\n\nbus = EventBus()\nbus.subscribe(audit)\n"})
    installs = [tmp_path / "venv-a" / "site", tmp_path / "venv-b" / "site"]
    for install in installs:
        write_tree(install, DEMO_FILES)
        (install / "demo.yaml").write_text(pack, encoding="utf-8")
    for path in installs[0].rglob("*"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))

    def run(install: Path) -> tuple[str, str | None, str, int]:
        seen: dict[str, tuple[str, str, bool]] = {}
        result = scan(Config(root=root, packs=(install / "demo.yaml",), builtin_packs=(),
                             context=(install,), jobs=1), seen=seen)
        [use] = result.context
        return (result.stats["cache"], use.root, seen["<context>/demo/bus.py"][0],
                len(result.registrations))

    cold, warm, again = run(installs[0]), run(installs[1]), run(installs[0])
    assert cold[0] == "cold" and cold[3] == 1
    assert (warm[0], again[0]) == ("result", "result")
    assert (cold[1], warm[1], again[1]) == tuple(
        (i / "demo").resolve().as_posix() for i in (installs[0], installs[1], installs[0]))
    assert cold[2] == warm[2] == again[2]  # the key is the bytes, wherever they lie

    bus = installs[1] / "demo" / "bus.py"
    before, text = bus.stat(), bus.read_bytes()
    bus.write_bytes(text.replace(b"EventBus", b"EventBuS", 1))
    os.utime(bus, ns=(before.st_atime_ns, before.st_mtime_ns))
    edited = run(installs[1])
    assert edited[0] != "result" and edited[2] != warm[2]
