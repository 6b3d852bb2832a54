"""Proves runner.run_suite: the suite passes on a copy of lionagi, and imports that copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .runner import EXPECT_ENV, copy_installed_lionagi, run_suite

pytestmark = pytest.mark.characterization

# run_suite never collects this module; the skip also holds if someone runs it under a runner.
nested = pytest.mark.skipif(bool(os.environ.get(EXPECT_ENV)), reason="already inside a runner")


@nested
def test_suite_passes_on_a_copy_of_lionagi_and_imports_the_copy(tmp_path: Path) -> None:
    copy = copy_installed_lionagi(tmp_path)
    done = run_suite(tmp_path)  # not -q: the report header names the lionagi imported
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"lionagi under test: {copy / '__init__.py'}" in done.stdout
    assert " passed" in done.stdout.splitlines()[-1]


@nested
def test_suite_refuses_to_run_when_the_copy_is_not_the_lionagi_imported(tmp_path: Path) -> None:
    # no lionagi/ under tmp_path, so the installed package is imported instead of a copy
    done = run_suite(tmp_path, "-q", "-k", "test_string_point_names_the_same_handlers")
    assert done.returncode == 1
    assert f"{EXPECT_ENV}={tmp_path.resolve()}, but lionagi was imported from" in done.stdout
