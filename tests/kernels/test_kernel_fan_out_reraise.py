"""fan_out's ``failed`` hook may re-raise: a façade's ``except Exception: if <test>: raise`` then
``<record>`` isolates the failures it records and propagates the ones its test picks."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .helpers import axes, run


class Refused(Exception):
    pass


def test_a_failed_hook_that_re_raises_ends_the_fan_out_with_that_failure(kernels: ModuleType) -> None:
    trace: list[str] = []
    refusal = Refused("no")

    def ordinary(signal: Any) -> None:
        trace.append("ordinary")
        raise ValueError("logged")

    def refused(signal: Any) -> None:
        trace.append("refused")
        raise refusal

    def last(signal: Any) -> None:
        trace.append("last")

    def failed(handler: Any, exc: BaseException) -> None:
        if isinstance(exc, Refused):
            raise  # noqa: PLE0704 - run inside the kernel's except clause, as the owner's was
        trace.append(f"logged {exc}")

    policy = kernels.DispatchPolicy.from_axes(**axes())  # isolate, log only
    with pytest.raises(Refused) as caught:
        run(kernels.fan_out(policy, [ordinary, refused, last], lambda h, call: call(h, "s"),
                            failed=failed))
    assert caught.value is refusal
    assert trace == ["ordinary", "logged logged", "refused"]
