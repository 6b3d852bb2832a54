"""The two parts of the suite: the everyday run and the slow one.

``python -m pytest`` with no arguments is the everyday run, the one to run before a commit: it
leaves out the runs over the lionagi corpus (marked ``corpus``) and the end-to-end runs that
build environments, spawn interpreters or generate and run whole test suites (marked ``slow``
here, by file). ``python -m pytest -m "corpus or slow"`` runs those; ``.ci/run`` runs both parts.
Naming files, folders or a ``-m`` expression selects exactly what is named, slow or not.
"""

from __future__ import annotations

import pytest

SLOW = (  # files or single tests: each builds an environment or runs a suite in other processes
    "tests/lint/test_precommit.py",  # pre-commit installs planeshift into its own venv
    "tests/characterize/test_gate.py",  # generated gates run against mutated copies
    "tests/characterize/test_cli.py",
    "tests/characterization/test_runner.py",
    "tests/kernels/test_kernel_py310.py::test_kernel_suite_passes_on_python_310",  # under 3.10
    "tests/kernels/test_kernel_py310.py::test_a_vendored_copy_imports_and_runs_on_a_plain_python_310",
    "tests/guarantees/test_properties.py",  # hypothesis over generated programs
    "tests/guarantees/test_crash_safe.py",  # killed and re-run processes
    "tests/examples/test_migrated_example.py",
    # migrate --series, then git am patch by patch, the package imported and the gate run after each
    "tests/codemods/test_series.py::test_the_example_series_is_in_dependency_order",
    "tests/codemods/test_series.py::test_each_example_patch_says_what_why_adr_gate_and_what_was_refused",
    "tests/codemods/test_series.py::test_the_example_patches_apply_one_by_one_and_the_gate_stays_green",
    "tests/codemods/test_series.py::test_a_small_app_gets_its_owner_before_its_call_sites_and_its_tests_last",
    "tests/codemods/test_series.py::test_a_project_below_the_git_top_with_its_kernels_vendored_starts_at_the_gate",
)
EVERYDAY = "not corpus and not slow"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: an end-to-end run left out of the everyday run (tests/conftest.py)")


def _everyday(config: pytest.Config) -> bool:
    """True when pytest was started with no paths and no -m: the everyday run."""
    return (config.args_source == pytest.Config.ArgsSource.TESTPATHS
            and not config.option.markexpr)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        rel = item.path.relative_to(root).as_posix()
        if rel in SLOW or f"{rel}::{item.name.split('[')[0]}" in SLOW:
            item.add_marker(pytest.mark.slow)
        if rel.startswith("tests/corpus/"):  # every run over the lionagi corpus, marked or not
            item.add_marker(pytest.mark.corpus)
    if not _everyday(config):
        return
    kept = [i for i in items if not (i.get_closest_marker("corpus") or i.get_closest_marker("slow"))]
    left = [i for i in items if i not in set(kept)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_report_header(config: pytest.Config) -> str | None:
    if _everyday(config):
        return ('everyday run: corpus and slow tests left out; run them with '
                'python -m pytest -m "corpus or slow"')
    return None
