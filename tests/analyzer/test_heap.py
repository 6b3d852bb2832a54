"""The cyclic collector is held back while a file is extracted and while the link runs, and is
left as it was found: on or off, after a good file, a bad one, or an exception."""

from __future__ import annotations

import gc

import pytest

import planeshift.rules.checks  # noqa: F401  (gives extraction the rules' per-file reader)
from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.shapes import vocabulary
from planeshift.heap import collector_paused, heap_frozen

GOOD = b"def f():\n    return [x for x in range(3)]\n"
BAD = b"def f(:\n"


@pytest.fixture(params=[True, False], ids=["collecting", "not-collecting"])
def collecting(request: pytest.FixtureRequest):
    was = gc.isenabled()
    gc.enable() if request.param else gc.disable()
    yield request.param
    gc.enable() if was else gc.disable()


@pytest.mark.parametrize("data", [GOOD, BAD, b"\xff\xfe"], ids=["good", "syntax", "undecodable"])
def test_extraction_leaves_the_collector_as_it_found_it(collecting: bool, data: bytes) -> None:
    facts = extract_source(data, "m.py", "m", False, vocabulary(()))
    assert gc.isenabled() is collecting
    assert (facts.error is None) is (data == GOOD)


def test_the_collector_is_paused_inside_and_restored_after_an_exception(collecting: bool
                                                                       ) -> None:
    with pytest.raises(KeyError), collector_paused():
        assert not gc.isenabled()
        raise KeyError("x")
    assert gc.isenabled() is collecting


def test_a_frozen_heap_is_unfrozen_after() -> None:
    alive = [object() for _ in range(10)]
    with pytest.raises(KeyError), heap_frozen():
        assert gc.get_freeze_count() >= len(alive)
        raise KeyError("x")
    assert gc.get_freeze_count() == 0


def test_in_a_process_the_command_ends_the_heap_stays_frozen_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from planeshift import heap

    monkeypatch.setattr(heap, "_exit_follows", True)
    monkeypatch.setattr(heap, "_frozen", False)  # restored after, with the unfreeze below
    try:
        with heap_frozen():
            made_inside = [[i] for i in range(10)]
        assert gc.get_freeze_count() >= len(made_inside)  # what the stretch made: frozen too
    finally:
        gc.unfreeze()


def test_a_one_shot_process_collects_its_youngest_generation_rarely(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from planeshift import heap

    monkeypatch.setattr(heap, "_exit_follows", False)
    before = gc.get_threshold()
    try:
        heap.exit_follows_command()
        assert gc.get_threshold() == (heap._ONE_SHOT_THRESHOLD, *before[1:])
    finally:
        gc.set_threshold(*before)
