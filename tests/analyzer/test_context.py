"""Where a pack's package source is found (never imported): given folders first, then the
interpreter's path, then the scanned project's own environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.analyzer.context import find_roots
from planeshift.rules.forms import Pack

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
    (tmp_path / "app.py").write_text("x = 1\n")
    result = CliRunner().invoke(cli, ["scan", str(tmp_path), "--format", "json", "--no-cache",
                                      "--no-context"])
    assert result.exit_code == 0, result.output
    assert '"origin": "not read (--no-context)"' in result.output
