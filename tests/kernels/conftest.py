"""Fixtures that run every kernel test twice: against planeshift.kernels and a vendored copy of it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

VENDORED_PACKAGE = "psvendored_proj.runtime.dispatch"


@pytest.fixture(scope="session")
def vendored_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from planeshift.vendor import vendor_kernels

    root = tmp_path_factory.mktemp("vendored")
    vendor_kernels(root / "psvendored_proj" / "runtime" / "dispatch", VENDORED_PACKAGE)
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))


@pytest.fixture(params=["installed", "vendored"])
def kernels(request: pytest.FixtureRequest) -> ModuleType:
    """The kernels package under test; the vendored copy must pass exactly the same tests."""
    if request.param == "installed":
        return importlib.import_module("planeshift.kernels")
    request.getfixturevalue("vendored_root")
    module = importlib.import_module(VENDORED_PACKAGE)
    assert not module.__name__.startswith("planeshift")
    return module
