"""The summary of `planeshift characterize`: text for stderr, or the JSON contract
``planeshift.characterize/1``."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..characterize.model import Characterization, PathPlan

AXIS_NAMES = {  # the short names the text summary uses
    "concurrency": "order", "sync_handlers": "sync", "handler_classification": "classify",
    "returned_value_classifier": "classifier", "returned_awaitable": "awaitable",
    "sync_entry": "entry", "failure": "failure", "completion": "completion",
    "error_surface": "surface", "handler_cancellation": "cancel", "emitter_cancellation":
    "emitter-cancel", "deadline": "deadline", "deadline_disposition": "deadline-end",
    "predicate_failure": "predicate", "stop_signal": "stop",
}


def render_json(result: Characterization) -> str:
    return json.dumps(result.to_json(), indent=2) + "\n"


def render_text(result: Characterization) -> str:
    """Per dispatch path: its tests by axis and the axes not pinned; then what was left out."""
    mechanisms = len({p.recipe.mechanism for p in result.plans})
    skipped_cases = sum(1 for p in result.plans for c in p.cases if c.skip)
    head = (f"planeshift characterize: {result.tests} tests of {len(result.plans)} dispatch "
            f"paths ({mechanisms} mechanisms), {skipped_cases} more generated as skipped; "
            f"{len(result.skipped)} left out")
    lines = [head]
    width = max((len(p.recipe.mechanism) for p in result.plans), default=0)
    for plan in result.plans:
        lines.append(f"  {plan.recipe.mechanism:<{width}}  {plan.recipe.entry} "
                     f"({plan.recipe.file}:{plan.recipe.line}): {_axes(plan)}")
    if result.skipped:
        lines.append("left out:")
        width = max(len(s.mechanism) for s in result.skipped)
        for skip in result.skipped:
            where = f" {skip.entry}:" if skip.entry else ""
            lines.append(f"  {skip.mechanism:<{width}} {where} {skip.reason}")
    return "\n".join(lines) + "\n"


def _axes(plan: PathPlan) -> str:
    counts = Counter(AXIS_NAMES.get(c.axis, c.axis) for c in plan.cases if not c.skip)
    pinned = " ".join(f"{axis} {n}" for axis, n in counts.items())
    unpinned = sorted({AXIS_NAMES.get(c.axis, c.axis) for c in plan.cases if c.skip})
    return pinned + (f"; not pinned: {', '.join(unpinned)}" if unpinned else "")
