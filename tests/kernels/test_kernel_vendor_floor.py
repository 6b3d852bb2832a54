"""`kernels vendor` reads the target's Python floor, says what it vendored for, and refuses below
the kernels' own (3.10); the package name climbs over folders without an __init__.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from planeshift.cli.kernels import kernels as kernels_group
from planeshift.pyfloor import python_floor, target_floor
from planeshift.vendor import VendorError, infer_package, kernel_sources, vendor_kernels

# planeshift itself runs on 3.11+ (vendor.py reads pyproject.toml with tomllib); only the kernels
# it vendors run on 3.10, where test_kernel_py310.py runs this folder again
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="planeshift itself needs Python 3.11+")


@pytest.mark.parametrize(
    ("spec", "floor"),
    [
        (">=3.10", (3, 10)),
        (">=3.10, <4", (3, 10)),
        (">=3.10.4", (3, 10)),
        (">3.9", (3, 9)),  # PEP 440: 3.9.1 > 3.9
        ("~=3.9", (3, 9)),
        ("==3.11.*", (3, 11)),
        ("!=3.10.*,>=3.10", (3, 11)),
        (">=3.12.0rc1", (3, 12)),
        ("<3", None),
        ("^3.10", None),  # Poetry's caret is not PEP 440
    ],
)
def test_python_floor_is_the_oldest_3x_a_specifier_admits(spec: str, floor: tuple[int, int] | None) -> None:
    assert python_floor(spec) == floor


def _project(root: Path, pyproject: str | None = None, setup_cfg: str | None = None) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject)
    if setup_cfg is not None:
        (root / "setup.cfg").write_text(setup_cfg)
    return root / "app" / "runtime" / "dispatch"


def _vendor(into: Path, *extra: str) -> object:
    return CliRunner().invoke(kernels_group, ["vendor", "--into", str(into), *extra])


def test_vendor_says_the_floor_it_read_from_pyproject(tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\nrequires-python = ">=3.10"\n'
                              'dependencies = ["anyio>=4.7"]\n')
    result = _vendor(into)
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    files = len(kernel_sources()) + 1  # and app/runtime/__init__.py
    assert last == (f"vendored {files} files as package app.runtime.dispatch for Python >= 3.10 "
                    f"(requires-python '>=3.10' in {tmp_path.resolve() / 'pyproject.toml'})")
    assert "note:" not in result.output  # anyio brings exceptiongroup on 3.10


def test_setup_cfg_is_the_fallback_and_a_missing_exceptiongroup_is_noted(tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\n',
                    "[options]\npython_requires = >=3.10\ninstall_requires =\n    pydantic\n")
    result = _vendor(into)
    assert result.exit_code == 0, result.output
    assert f"for Python >= 3.10 (requires-python '>=3.10' in {tmp_path.resolve() / 'setup.cfg'})" in result.output
    assert "note: on Python 3.10 the kernels import exceptiongroup" in result.output


def test_a_target_that_declares_no_floor_gets_the_kernels_own(tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\ndependencies = ["exceptiongroup"]\n')
    result = _vendor(into)
    assert result.exit_code == 0, result.output
    assert (f"for Python >= 3.10 (the kernels' own floor; {tmp_path.resolve() / 'pyproject.toml'} "
            "declares no requires-python planeshift reads)") in result.output
    assert "note:" not in result.output


@pytest.mark.parametrize("declared", [">=3.9", ">=3.8,<4", "~=3.7"])
def test_vendor_refuses_a_floor_below_310_and_writes_nothing(tmp_path: Path, declared: str) -> None:
    into = _project(tmp_path, f'[project]\nname = "app"\nrequires-python = "{declared}"\n')
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = _vendor(into)
    assert result.exit_code == 2
    assert "the kernels need Python >= 3.10; nothing was written" in result.output
    assert f"requires-python '{declared}'" in result.output
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_requires_python_option_overrides_what_the_target_declares(tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\nrequires-python = ">=3.9"\n')
    result = _vendor(into, "--requires-python", ">=3.11")
    assert result.exit_code == 0, result.output
    assert "for Python >= 3.11 (--requires-python '>=3.11')" in result.output
    refused = _vendor(tmp_path / "other", "--requires-python", ">=3.9")
    assert refused.exit_code == 2 and not (tmp_path / "other").exists()


def test_an_unreadable_floor_is_refused_with_the_reason(tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\nrequires-python = "^3.10"\n')
    result = _vendor(into)
    assert result.exit_code == 2
    assert "requires-python '^3.10'" in result.output and "not a version specifier" in result.output
    assert not into.exists()


def test_the_library_entry_refuses_too(tmp_path: Path) -> None:
    with pytest.raises(VendorError, match="nothing was written"):
        vendor_kernels(tmp_path / "pkg", "pkg", requires_python=">=3.9")
    assert not (tmp_path / "pkg").exists()
    assert target_floor(tmp_path / "pkg").version is None


def test_the_package_name_climbs_over_a_folder_without_init(tmp_path: Path) -> None:
    (tmp_path / "lionagi" / "runtime").mkdir(parents=True)
    (tmp_path / "lionagi" / "__init__.py").write_text("")
    # lionagi 0.36.0 has no lionagi/runtime/__init__.py
    assert infer_package(tmp_path / "lionagi" / "runtime" / "dispatch") == "lionagi.runtime.dispatch"


def test_the_package_name_stops_at_the_project_root_src_layout_included(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("")  # above the project root: not part of the name
    repo = tmp_path / "repo"
    (repo / "src" / "app" / "deep").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (repo / "src" / "app" / "__init__.py").write_text("")
    assert infer_package(repo / "src" / "app" / "deep" / "dispatch") == "app.deep.dispatch"


def test_without_a_project_root_the_name_stops_above_the_outermost_package(tmp_path: Path) -> None:
    (tmp_path / "outer" / "plain" / "app").mkdir(parents=True)
    (tmp_path / "outer" / "__init__.py").write_text("")
    (tmp_path / "outer" / "plain" / "app" / "__init__.py").write_text("")
    assert infer_package(tmp_path / "outer" / "plain" / "app" / "dispatch") == "app.dispatch"
    assert infer_package(tmp_path / "loose" / "dispatch") == "dispatch"


def test_vendoring_into_lionagi_runtime_without_package_imports_as_lionagi_runtime_dispatch(
        tmp_path: Path) -> None:
    into = _project(tmp_path, '[project]\nname = "app"\nrequires-python = ">=3.10"\n')
    (tmp_path / "lionagi").mkdir()
    (tmp_path / "lionagi" / "__init__.py").write_text("")
    result = _vendor(tmp_path / "lionagi" / "runtime" / "dispatch")
    assert result.exit_code == 0, result.output
    assert "as package lionagi.runtime.dispatch for Python >= 3.10" in result.output
    text = (tmp_path / "lionagi" / "runtime" / "dispatch" / "fanout.py").read_text()
    assert text.splitlines()[0].endswith("as lionagi.runtime.dispatch")
    assert (tmp_path / "lionagi" / "runtime" / "__init__.py").is_file()
    assert not into.exists()
