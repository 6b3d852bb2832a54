"""Vendoring writes a self-contained, marked copy atomically and never clobbers foreign files."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import planeshift
from planeshift.cli.kernels import kernels as kernels_group
from planeshift.vendor import (
    MARKER,
    VendorError,
    infer_package,
    kernel_sources,
    vendor_kernels,
)


def test_vendored_copy_is_marked_and_free_of_planeshift_imports(tmp_path: Path) -> None:
    target = tmp_path / "lionagi" / "runtime" / "dispatch"
    written = vendor_kernels(target, "lionagi.runtime.dispatch")
    assert [p.name for p in written[:-1]] == [p.name for p in kernel_sources()]
    assert (target / "__init__.py") in written and (target / "adapters.py") in written
    assert written[-1] == (tmp_path / "lionagi" / "runtime" / "__init__.py").resolve()
    assert not (tmp_path / "lionagi" / "__init__.py").exists()  # the top-level package is the user's
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert text.startswith(MARKER) and f"planeshift {planeshift.__version__}" in text.splitlines()[1]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("planeshift"), path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("planeshift") for a in node.names), path
    assert not list(target.glob(".*.tmp"))


def test_vendored_copy_runs_without_planeshift_importable(tmp_path: Path) -> None:
    vendor_kernels(tmp_path / "proj" / "dispatch", "proj.dispatch")
    script = (
        "import sys, asyncio\n"
        "sys.modules['planeshift'] = None  # any planeshift import now fails\n"
        "from proj.dispatch import FanoutDispatcher, DispatchPolicy\n"
        "d = FanoutDispatcher(DispatchPolicy.scheduler())\n"
        "d.subscribe(lambda s: s * 2)\n"
        "print(asyncio.run(d.emit(21)).values)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(42,)"


def test_refuses_to_overwrite_foreign_files_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    target.mkdir()
    (target / "fanout.py").write_text("# hand-written, precious\n")
    with pytest.raises(VendorError, match=r"fanout\.py"):
        vendor_kernels(target, "pkg")
    assert (target / "fanout.py").read_text() == "# hand-written, precious\n"
    assert not (target / "__init__.py").exists()  # refused before writing anything
    vendor_kernels(target, "pkg", force=True)
    assert (target / "fanout.py").read_text().startswith(MARKER)


def test_a_previous_vendored_copy_is_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    vendor_kernels(target, "pkg")
    (target / "policy.py").write_text(MARKER + " old copy\n")
    vendor_kernels(target, "pkg")
    assert "class DispatchPolicy" in (target / "policy.py").read_text()


def test_package_name_is_inferred_and_validated(tmp_path: Path) -> None:
    (tmp_path / "lionagi" / "runtime").mkdir(parents=True)
    (tmp_path / "lionagi" / "__init__.py").write_text("")
    (tmp_path / "lionagi" / "runtime" / "__init__.py").write_text("")
    assert infer_package(tmp_path / "lionagi" / "runtime" / "dispatch") == "lionagi.runtime.dispatch"
    with pytest.raises(VendorError, match="package name"):
        vendor_kernels(tmp_path / "x", "not a package")
    (tmp_path / "file").write_text("")
    with pytest.raises(VendorError, match="not a directory"):
        vendor_kernels(tmp_path / "file", "file")


def test_cli_vendor_prints_what_it_wrote_and_exits_0(tmp_path: Path) -> None:
    target = tmp_path / "myproj" / "runtime" / "dispatch"
    result = CliRunner().invoke(
        kernels_group, ["vendor", "--into", str(target), "--package", "myproj.runtime.dispatch"]
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {target / 'fanout.py'}" in result.output
    assert "as package myproj.runtime.dispatch" in result.output


def test_cli_vendor_exits_2_on_refusal_and_usage_errors(tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    target.mkdir()
    (target / "policy.py").write_text("mine\n")
    refused = CliRunner().invoke(kernels_group, ["vendor", "--into", str(target)])
    assert refused.exit_code == 2
    assert "refusing to overwrite" in refused.output
    assert CliRunner().invoke(kernels_group, ["vendor"]).exit_code == 2  # --into is required
    forced = CliRunner().invoke(kernels_group, ["vendor", "--into", str(target), "--force"])
    assert forced.exit_code == 0


def test_absolute_kernel_imports_are_rewritten_and_other_planeshift_imports_refused(tmp_path: Path) -> None:
    from planeshift.vendor import render

    source = tmp_path / "mod.py"
    source.write_text("from planeshift.kernels.policy import DispatchPolicy\nimport planeshift.kernels\n")
    text = render(source, "lionagi.runtime.dispatch")
    assert "from lionagi.runtime.dispatch.policy import DispatchPolicy" in text
    assert "import lionagi.runtime.dispatch\n" in text
    source.write_text("from planeshift.types import Span\n")
    with pytest.raises(VendorError, match=r"planeshift\.types"):
        render(source, "pkg")


def test_missing_package_folders_between_top_and_target_get_an_init_and_others_are_kept(
        tmp_path: Path) -> None:
    (tmp_path / "app" / "deep").mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("# mine\n")
    (tmp_path / "app" / "deep" / "__init__.py").write_text("# mine too\n")
    written = vendor_kernels(tmp_path / "app" / "deep" / "runtime" / "dispatch",
                             "app.deep.runtime.dispatch")
    created = tmp_path / "app" / "deep" / "runtime" / "__init__.py"
    assert created.resolve() in written and created.is_file()
    assert (tmp_path / "app" / "deep" / "__init__.py").read_text() == "# mine too\n"
    again = vendor_kernels(tmp_path / "app" / "deep" / "runtime" / "dispatch",
                           "app.deep.runtime.dispatch")
    assert created.resolve() not in again


def test_vendored_adapters_hand_over_the_original_handler(tmp_path: Path) -> None:
    vendor_kernels(tmp_path / "proj" / "runtime" / "dispatch", "proj.runtime.dispatch")
    script = (
        "import sys\n"
        "sys.modules['planeshift'] = None\n"
        "from proj.runtime.dispatch import InterceptorRegistration\n"
        "from proj.runtime.dispatch.adapters import as_interceptor, optional\n"
        "def guard(**kw): return None\n"
        "reg = InterceptorRegistration(name='g', stage='TOOL_PRE', handler=guard, order=0)\n"
        "print(as_interceptor(reg) is guard)\n"
        "print(optional(None, lambda h: 1 / 0) is None)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]
