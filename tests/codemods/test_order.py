"""The order codemods run in is derived from what each declares (``after``, ``after_rewrites``),
not listed anywhere: each runs after what it requires, ties go by id, and an unknown id or a
cycle is a clear error when the codemods are collected."""

from __future__ import annotations

import random

import pytest

from planeshift.codemods import all_codemods
from planeshift.codemods.base import Codemod, OrderError, running_order
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.run import selected

CODEMODS = all_codemods()


def _fake(ident: str, after: tuple[str, ...] = (), late: bool = False,
          owner: bool = False) -> type[Codemod]:
    """A codemod class that is never registered (the registry stays as it is)."""
    return type(f"Fake_{ident}", (Codemod,), {"id": ident, "after": after,
                                                "after_rewrites": late, "owner": owner})


def test_each_codemod_runs_after_what_it_declares() -> None:
    position = {c.id: i for i, c in enumerate(CODEMODS)}
    for codemod in CODEMODS:
        for before in codemod.after:
            assert position[before] < position[codemod.id], (before, codemod.id)


def test_a_codemod_reading_the_rewrites_runs_after_every_one_that_does_not() -> None:
    for family in (False, True):
        mine = [c for c in CODEMODS if c.owner == family]
        flags = [c.after_rewrites for c in mine]
        assert flags == sorted(flags), [c.id for c in mine]


def test_the_call_site_set_comes_before_the_owners_set() -> None:
    owners = [c.owner for c in CODEMODS]
    assert owners == sorted(owners)


def test_the_order_does_not_depend_on_the_order_the_codemods_are_found() -> None:
    for seed in range(5):
        shuffled = list(CODEMODS)
        random.Random(seed).shuffle(shuffled)
        assert running_order(shuffled) == CODEMODS


def test_ties_go_by_id_and_declarations_decide_the_rest() -> None:
    a, b, c, d = _fake("c_first"), _fake("a_needs_c", ("c_first",)), _fake("b_free"), \
        _fake("z_late", late=True)
    assert [x.id for x in running_order([d, b, a, c])] == ["b_free", "c_first", "a_needs_c",
                                                          "z_late"]


def test_the_selected_codemods_keep_the_running_order() -> None:
    chosen = selected(MigrateOptions(select=("decisions", "registration")))
    assert [c.id for c in chosen] == ["registration", "decisions"]


def test_an_unknown_id_is_an_error_naming_it() -> None:
    with pytest.raises(OrderError, match="'x' runs after 'nothing_such', which no codemod is"):
        running_order([_fake("x", ("nothing_such",))])


def test_a_requirement_in_the_other_set_is_an_error() -> None:
    with pytest.raises(OrderError, match="which runs in the other set"):
        running_order([_fake("o", ("c",), owner=True), _fake("c")])


def test_a_cycle_is_an_error_naming_it() -> None:
    with pytest.raises(OrderError, match="cycle: .*x.*y"):
        running_order([_fake("x", ("y",)), _fake("y", ("x",))])
