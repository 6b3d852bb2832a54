"""Guards the characterization suite against characterizing the wrong copy of lionagi."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .runner import EXPECT_ENV


def imported_lionagi() -> Path:
    import lionagi

    return Path(lionagi.__file__).resolve()


def pytest_report_header(config: pytest.Config) -> str:
    """Printed when the suite's folder is given on the command line (as the runner does)."""
    return f"lionagi under test: {imported_lionagi()}"


@pytest.fixture(scope="session", autouse=True)
def lionagi_under_test() -> Path:
    """The imported lionagi; every test errors when it is not under ${EXPECT_ENV} (if set)."""
    path = imported_lionagi()
    expected = os.environ.get(EXPECT_ENV)
    if expected and not path.is_relative_to(Path(expected).resolve()):
        pytest.fail(
            f"{EXPECT_ENV}={expected}, but lionagi was imported from {path}: the suite would "
            "characterize the wrong copy (is the copy's parent folder first on PYTHONPATH?)",
            pytrace=False,
        )
    return path
