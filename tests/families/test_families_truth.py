"""The built-in django, blinker and pluggy packs on real projects, against labelled truth
(``truth/*.yaml``: every registration of the tree, its plane and the reason, from reading the
handler's body): recall and precision of the inventory at least 0.95, plane agreement at least
0.90, with no hand-written pack and no library source in view. The projects are fetched from the
package index, pinned by sha256 (``source.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from planeshift.api import scan
from planeshift.config import Config

from . import source

TRUTH = Path(__file__).resolve().parent / "truth"
FAMILY_PACKS = ("django", "blinker", "pluggy")

PROJECTS: dict[str, Callable[[], Path]] = {
    "django_contrib": source.django_contrib,
    "simple_history": source.simple_history,
    "pelican": source.pelican,
    "pelican_plugins": source.pelican_plugins,
    "xdist": source.xdist,
    "pytest": source.pytest_core,
}

pytestmark = pytest.mark.corpus


def measure(name: str) -> dict[str, float | list]:
    try:
        tree = PROJECTS[name]()
    except source.Unavailable as exc:
        pytest.skip(str(exc))
    truth = yaml.safe_load((TRUTH / f"{name}.yaml").read_text(encoding="utf-8"))
    labelled = {(r["at"], r["point"]): r for r in truth["registrations"]}
    result = scan(Config(root=tree, packs=(), builtin_packs=None, use_cache=False,
                         use_context=False, jobs=1))
    found = {(f"{r.file}:{r.line}", r.point): r for r in result.registrations
             if r.mechanism.split("_")[0] in ("django", "blinker", "pluggy")}
    hit = labelled.keys() & found.keys()
    agree = [k for k in hit if found[k].plane == labelled[k]["plane"]]
    return {
        "recall": len(hit) / len(labelled),
        "precision": len(hit) / len(found) if found else 0.0,
        "agreement": len(agree) / len(hit) if hit else 0.0,
        "missed": sorted(labelled.keys() - found.keys()),
        "extra": sorted(found.keys() - labelled.keys()),
        "disagree": sorted((k, found[k].plane, labelled[k]["plane"]) for k in hit
                           if k not in agree),
    }


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_inventory_and_planes_against_the_labelled_truth(name: str) -> None:
    got = measure(name)
    assert got["recall"] >= 0.95 and got["precision"] >= 0.95, got
    assert got["agreement"] >= 0.90, got


def test_only_the_family_packs_report_on_these_trees() -> None:
    """No lionagi registration on a Django tree: the lionagi pack guesses only where lionagi is
    in play."""
    try:
        tree = source.django_contrib()
    except source.Unavailable as exc:
        pytest.skip(str(exc))
    result = scan(Config(root=tree, packs=(), builtin_packs=None, use_cache=False,
                         use_context=False, jobs=1))
    assert {r.mechanism for r in result.registrations} == {"django_signals"}
