"""What every policy-axis reader of one dispatch path starts from: its handler calls, the loops
that fan them out, and what an ordinary exception of a call meets on its way out."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import AxisEvidence
from ..extract.observations import HandlerCall
from .dispatch_paths import Hit, Path, catches_ordinary

UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Reading:
    value: str
    evidence: tuple[AxisEvidence, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What becomes of an ordinary exception of a call, by its first catching clause."""

    kind: str  # "propagate" | "collect" | "isolate"
    how: str = ""  # propagate: the concurrency whose guard it meets ("task_group", "gather",
    #                "task"); isolate: how the clause ends the handler ("break", "continue",
    #                "return"), "" when it falls through


def ev(hit: Hit, note: str = "") -> AxisEvidence:
    return AxisEvidence(hit.file, hit.seen.line,
                        f"{hit.function}: {hit.seen.text}" + (f" ({note})" if note else ""))


def handler_call(hit: Hit) -> HandlerCall:
    """The handler call a ``call`` observation records."""
    return hit.detail(HandlerCall)


class PathView:
    """One dispatch path, as the axis readers (``axes.py``) see it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls = path.of("call")
        handlers = path.of("call", "offload")
        self.live = [h for h in path.of("loop") if any(h.encloses(c) for c in handlers)]
        self.dispositions = {handler_call(c).result.what for c in self.calls}
        self.via = [c for c in self.calls if handler_call(c).via]

    def _ordinary(self, call: Hit) -> tuple[Outcome, Hit | None]:
        """What an ordinary exception of *call* meets: the outcome, and the clause (or the
        guard its concurrency implies) that decides it; None when nothing catches it."""
        for hit in call.guards:
            guard = hit.guard
            if guard.implied:
                if guard.implied == "gathered":
                    return Outcome("collect"), hit
                return Outcome("propagate", guard.implied), hit
            if not catches_ordinary(guard.caught):
                continue
            kinds = [a.kind for a in guard.actions]
            if "collect" in kinds:
                return Outcome("collect"), hit
            if "raise" in kinds or "raise_new" in kinds:
                return Outcome("propagate"), hit
            ends = [k for k in kinds if k in ("break", "continue", "return")]
            return Outcome("isolate", ends[0] if ends else ""), hit
        return Outcome("propagate"), None
