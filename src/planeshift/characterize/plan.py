"""From a scan to a characterization: which dispatch paths get tests, which are left out, the
module's text."""

from __future__ import annotations

from ..analyzer.discover import SourceFile
from ..analyzer.shapes import vocabulary
from ..packs.model import Mechanism, Pack
from ..types import MechanismSummary, ScanResult
from .calls import CannotCall
from .cases import Cases
from .model import Characterization, PathPlan, Recipe, Skip
from .policy import Policy
from .recipe import recipe_for
from .render import render_module, subject_name
from .source import Sources
from .stops import stop_cases


def characterization(result: ScanResult, packs: tuple[Pack, ...],
                     files: list[SourceFile]) -> Characterization:
    """Plan every mechanism of *result* and render the module (empty when nothing is planned)."""
    sources = Sources(files, vocabulary(packs))
    mechanisms = {m.id: m for p in packs for m in p.mechanisms}
    plans: list[PathPlan] = []
    skipped: list[Skip] = []
    for summary in result.mechanisms:
        mech = mechanisms.get(summary.id)
        if mech is None:
            continue
        done, left = _mechanism(summary, mech, sources)
        plans += done
        skipped += left
    root = result.root.rstrip("/").rsplit("/", 1)[-1] or result.root
    packages = tuple(dict.fromkeys(p.recipe.dispatcher.split(".")[0] for p in plans))
    module = render_module(root, packages, tuple(plans), tuple(skipped)) if plans else ""
    return Characterization(result.root, packages, tuple(plans), tuple(skipped), module)


def _mechanism(summary: MechanismSummary, mech: Mechanism,
               sources: Sources) -> tuple[list[PathPlan], list[Skip]]:
    dispatcher = summary.dispatcher[0] if summary.dispatcher else mech.id
    if mech.characterize is not None and mech.characterize.skip:
        return [], [Skip(mech.id, dispatcher, "", f"the pack says: {mech.characterize.skip}")]
    if not summary.dispatch_paths:
        return [], [Skip(mech.id, dispatcher, "", "the scan read no dispatch path: no emission "
                         "loop of it in the tree")]
    plans: list[PathPlan] = []
    skipped: list[Skip] = []
    taken: set[str] = set()
    for path in summary.dispatch_paths:
        try:
            recipe = recipe_for(summary, mech, path, sources)
        except CannotCall as exc:
            skipped.append(Skip(mech.id, dispatcher, path.entry, str(exc)))
            continue
        name = _unique(subject_name(recipe), taken)
        policy = Policy(path, recipe.is_async)
        cases = Cases(policy, recipe.budget, recipe.budget_note).all()
        cases += stop_cases(path, sources, policy)
        plans.append(PathPlan(recipe, name, tuple(cases)))
    if not plans and len({s.reason for s in skipped}) == 1:
        skipped = [Skip(mech.id, dispatcher, "", skipped[0].reason)]
    return plans, skipped


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    taken.add(out)
    return out


__all__ = ["Recipe", "characterization"]
