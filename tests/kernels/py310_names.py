"""A pytest plugin for running the kernel tests on Python 3.10 (test_kernel_py310.py loads it with
``-p py310_names``, ``tests`` and ``tests/kernels`` on the path). It adapts the harness, never the
kernels, to two things 3.10's runtime does differently:

- the tests name 3.11's builtin ``ExceptionGroup`` / ``BaseExceptionGroup``: each test module gets
  the ``exceptiongroup`` backport's classes, the ones the kernels raise there. Only the test
  modules' globals get them, never ``builtins``, so a kernel module that used the builtin names
  would still fail on 3.10;
- a CancelledError subclass that ends ``asyncio.run``'s main task comes out of 3.11's ``run`` as
  raised, but out of 3.10's as a fresh CancelledError (the original only its ``__context__``):
  ``helpers.run`` hands it out of the loop itself.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if sys.version_info >= (3, 11):
        return
    from kernels import helpers

    def run(awaitable: Awaitable[Any]) -> Any:
        async def main() -> tuple[bool, Any]:
            try:
                return True, await awaitable
            except asyncio.CancelledError as exc:
                return False, exc

        ok, value = asyncio.run(main())
        if not ok:
            raise value
        return value

    run.__doc__ = helpers.run.__doc__
    helpers.run = run


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if sys.version_info >= (3, 11):
        return
    import exceptiongroup

    for item in items:
        module = getattr(item, "module", None)
        if module is not None:
            module.__dict__.setdefault("ExceptionGroup", exceptiongroup.ExceptionGroup)
            module.__dict__.setdefault("BaseExceptionGroup", exceptiongroup.BaseExceptionGroup)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # test_kernel_py310.py reads this line to know which Python ran the suite
    terminalreporter.write_line(f"kernels on Python {sys.version_info[0]}.{sys.version_info[1]}.")
