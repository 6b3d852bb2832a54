"""The kernels import only the standard library, and only each other through relative imports."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import ModuleType


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
    return found


# On Python 3.10 only (test_kernel_py310.py checks the guard), the backport of 3.11's exception groups.
BACKPORTS = {("_compat.py", "exceptiongroup")}


def test_kernels_import_nothing_outside_the_standard_library(kernels: ModuleType) -> None:
    files = sorted(Path(kernels.__file__).parent.glob("*.py"))
    assert len(files) > 5
    offenders = [
        f"{path.name}: {module}"
        for path in files
        for level, module in _imports(path)
        if level == 0 and module.split(".")[0] not in sys.stdlib_module_names
        and (path.name, module) not in BACKPORTS
    ]
    assert offenders == []


def test_every_public_name_is_exported(kernels: ModuleType) -> None:
    assert sorted(kernels.__all__) == sorted(set(kernels.__all__))
    for name in kernels.__all__:
        assert hasattr(kernels, name), name
