"""What `planeshift characterize` plans for the user-written buses: which dispatchers it builds and
how, which it leaves out and why, and that every expected value is the scan's own reading."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest
from analyzer.helpers import write_tree

from planeshift import api
from planeshift.analyzer.policy.axes import AXES
from planeshift.characterize.model import Characterization, PathPlan
from planeshift.config import Config

from .helpers import characterize_buses, copy_buses


@pytest.fixture(scope="module")
def buses(tmp_path_factory: pytest.TempPathFactory) -> Characterization:
    return characterize_buses(copy_buses(tmp_path_factory.mktemp("tree")))


def plan_of(result: Characterization, entry: str) -> PathPlan:
    return next(p for p in result.plans if p.recipe.entry == entry)


def test_each_loop_shape_is_characterized_and_the_rest_left_out_with_the_reason(
    buses: Characterization,
) -> None:
    assert [p.recipe.entry for p in buses.plans] == [
        "SequentialBus.publish", "PropagateBus.broadcast", "GatherBus.emit",
        "TaskGroupBus.notify", "OffloadBus.dispatch", "DeadlineBus.emit", "BudgetBus.fire",
        "TimedBus.emit", "CollectBus.apost", "CollectBus.post"]
    assert {s.mechanism: s.reason for s in buses.skipped} == {
        "store_bus": "its constructor needs `db` (a database, session, network or file handle)",
        "abstract_bus": "abstract: AbstractBus.wrap is abstract",
    }
    assert buses.packages == ("userbus",)


def test_recipes_are_read_from_the_declarations(buses: Characterization) -> None:
    sequential = plan_of(buses, "SequentialBus.publish").recipe
    # AUDIT is singled out by a classify rule: the first ordinary member is emitted
    assert sequential.register == "dispatcher.on(Topic.ORDER_PLACED, handler)"
    assert sequential.fire == "dispatcher.publish(Topic.ORDER_PLACED)"
    assert sequential.construct == "SequentialBus()"  # name: str | None has a default
    gathered = plan_of(buses, "GatherBus.emit").recipe
    assert gathered.register == "dispatcher.observe(type(payload), handler)"  # type-keyed
    assert (gathered.fire, gathered.payload) == ("dispatcher.emit(payload)", "Payload()")
    deadline = plan_of(buses, "DeadlineBus.emit").recipe
    assert deadline.register == 'dispatcher.register(f"handler_{n}", handler)'  # one name each
    assert (deadline.budget, deadline.construct_budget) == ("timeout", "DeadlineBus(timeout=budget)")
    assert plan_of(buses, "BudgetBus.fire").recipe.budget == "budget"
    assert plan_of(buses, "OffloadBus.dispatch").recipe.register == (
        "dispatcher.callbacks.append(handler)")


def test_every_pinned_value_is_the_scans_reading_of_the_path(buses: Characterization) -> None:
    assert buses.scan is not None
    paths = {p.entry: p for m in buses.scan.mechanisms for p in m.dispatch_paths}
    for plan in buses.plans:
        read = {a.axis: a.value for a in paths[plan.recipe.entry].axes}
        for case in plan.cases:
            if case.skip or case.axis not in AXES:
                continue
            parts = [v.split(" (")[0] for v in read[case.axis].split(" / ")]
            assert case.value in parts, (plan.recipe.entry, case.name, read[case.axis])
            assert case.evidence, case.name  # the docstring cites the lines read


def test_the_module_is_deterministic_and_parses(buses: Characterization, tmp_path: Path) -> None:
    again = characterize_buses(copy_buses(tmp_path))
    assert again.module == buses.module
    tree = ast.parse(buses.module)
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and n.name.startswith("test_")]
    assert len(names) == len(set(names)) == sum(len(p.cases) for p in buses.plans)
    doc = ast.get_docstring(next(n for n in tree.body if isinstance(n, ast.FunctionDef)
                                 and n.name == names[0]))
    assert doc is not None and "sequential.py:" in doc


def test_the_module_is_formatted_and_linted_as_ruff_would_have_it(
    buses: Characterization, tmp_path: Path
) -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (the dev extra has it)")
    module = tmp_path / "test_generated.py"
    module.write_text(buses.module)
    done = subprocess.run([ruff, "format", "--isolated", "--diff", str(module)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[:3000]
    done = subprocess.run([ruff, "check", "--isolated", "--select", "E4,E7,E9,F,I", str(module)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[:3000]


UNDECIDED = '''
import logging

log = logging.getLogger(__name__)


class MixedBus:
    def __init__(self):
        self._first = []
        self._second = []

    def on(self, handler):
        self._first.append(handler)

    def emit(self, event):
        for handler in self._first:
            try:
                handler(event)
            except Exception:
                log.exception("failed")
        for handler in self._second:
            handler(event)
'''

UNDECIDED_PACK = '''
pack: mixed
mechanisms:
  - id: mixed
    dispatcher: mixed.bus.MixedBus
    policy: {failure: isolate}
    register: [{method: "on"}]
    emit: [{method: emit}]
    classify: [{plane: subscriber, because: "ADR-0120 D1"}]
'''


def test_an_axis_the_code_does_not_decide_is_generated_as_a_skip_not_a_guess(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"mixed/bus.py": UNDECIDED})
    pack = tmp_path / "mixed.yaml"
    pack.write_text(UNDECIDED_PACK)
    result = api.characterize(Config(root=tmp_path / "mixed", packs=(pack,), builtin_packs=(),
                                     use_cache=False, use_context=False, jobs=1))
    (plan,) = result.plans
    failure = [c for c in plan.cases if c.axis == "failure"]
    # two loops, one isolating and one not: unknown; the pack's isolate is not the code's
    assert [(c.skip is not None, c.name) for c in failure] == [(True, "failure_not_pinned")]
    assert "the code does not decide failure; the pack declares isolate" in (failure[0].skip or "")
    assert "@pytest.mark.skip(" in result.module
    assert not [c for c in plan.cases if c.axis == "completion" and not c.skip]


def test_pack_hints_name_the_point_and_constructor_arguments(tmp_path: Path) -> None:
    copy_buses(tmp_path)
    pack = tmp_path / "hinted.yaml"
    text = Path(__file__).parents[1].joinpath("fixtures", "characterize", "userbus.yaml").read_text()
    pack.write_text(text.replace(
        "    points: userbus.sequential.Topic\n",
        "    points: userbus.sequential.Topic\n"
        "    characterize: {point: ORDER_SHIPPED, construct: {name: \"'hinted'\"}}\n").replace(
        "  - id: store_bus\n", "  - id: store_bus\n    characterize: {skip: needs a live database}\n"))
    result = api.characterize(Config(root=tmp_path / "userbus", packs=(pack,), builtin_packs=(),
                                     use_cache=False, use_context=False, jobs=1))
    recipe = plan_of(result, "SequentialBus.publish").recipe
    assert recipe.fire == "dispatcher.publish(Topic.ORDER_SHIPPED)"
    assert recipe.construct == "SequentialBus(name='hinted')"
    assert ("store_bus", "the pack says: needs a live database") in {
        (s.mechanism, s.reason) for s in result.skipped}
