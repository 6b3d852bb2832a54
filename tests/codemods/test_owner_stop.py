"""owner_dispatch's stop-signal fixtures behave the same before and after the rewrite: each
module is run (lionagi's maybe_await before, planeshift's kernels after) over the same listeners,
and what they observably do is compared: which listeners ran, what was recorded or logged, what
the method returned or raised."""

from __future__ import annotations

import asyncio
import logging
import types
from typing import Any

import pytest

from planeshift.codemods.owner.stop_examples import STOP_EXAMPLES

from .helpers import dedent


def _module(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(dedent(source), f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - a fixture
    return module


def _listeners(module: types.ModuleType, trace: list[str], kinds: str) -> list[Any]:
    """One listener per letter: o returns, a is async, s raises the stop signal, v ValueError,
    k KeyError (a LookupError)."""
    def make(index: int, kind: str) -> Any:
        label = f"{kind}{index}"

        def sync(event: Any) -> None:
            trace.append(label)
            if kind == "s":
                raise module.Enough()
            if kind == "v":
                raise ValueError(label)
            if kind == "k":
                raise KeyError(label)

        async def later(event: Any) -> None:
            await asyncio.sleep(0)
            trace.append(label)

        return later if kind == "a" else sync

    return [make(i, k) for i, k in enumerate(kinds)]


def _observe(source: str, name: str, kinds: str, caplog: pytest.LogCaptureFixture) -> dict[str, Any]:
    module = _module(source, name)
    relay = module.Relay()
    trace: list[str] = []
    for listener in _listeners(module, trace, kinds):
        relay.listen(listener)
    caplog.clear()
    try:
        outcome: Any = ("returned", asyncio.run(relay.fire("e")))
    except Exception as exc:  # noqa: BLE001 - what leaves is the observation
        outcome = ("raised", type(exc).__name__, str(exc))
    logged = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records
              if r.name == name]
    firing = getattr(module, "_firing", None)
    return {"trace": trace, "outcome": outcome, "logged": logged,
            "denied": getattr(relay, "denied", None),
            "firing": firing.get() if firing is not None else None}


SCENARIOS = ["oso", "asoa", "ovo", "ovsko", "okvo", "s", ""]


@pytest.mark.parametrize("index", range(len(STOP_EXAMPLES)))
@pytest.mark.parametrize("kinds", SCENARIOS)
def test_the_rewritten_fixture_behaves_as_the_loop_it_replaces(
        index: int, kinds: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    example = STOP_EXAMPLES[index]
    name = f"stop_fixture_{index}"
    before = _observe(example.before, name, kinds, caplog)
    after = _observe(example.after, name, kinds, caplog)
    assert after == before
    if "s" in kinds:  # the stop signal skipped the rest
        assert before["trace"][-1].startswith(("s", "v", "k"))


def test_the_fixtures_use_the_stop_signal_and_the_try() -> None:
    first, second = (dedent(e.after) for e in STOP_EXAMPLES)
    assert "stop=Enough," in first and "stop=Enough," in second
    assert "        finally:\n            _firing.reset(token)\n" in second
