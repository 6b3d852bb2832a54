"""The records of `planeshift migrate --series`: a patch (its node in the dependency graph, its
commit message and files) and the series."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...types import InputError
from ..model import MigrateResult
from .patchfile import FileDiff, Message

GATE = "tests/test_characterization_generated.py"  # where the docs have `characterize` write it
KERNELS, GATE_KEY = "kernels", "gate"
ADR = {
    "kernels": "ADR-0120 D7 (the kernels live in the project, lionagi/runtime/dispatch), D2 "
               "(DispatchPolicy and the named profiles the owners take)",
    "gate": "ADR-0120 Phase 0 (characterization and migration sequence): the merge gate each "
            "Phase 1 change must keep green",
    "owner": "ADR-0120 D2 (DispatchPolicy, the named profiles), Phase 1 (kernels behind existing "
             "façades)",
    "registration": "ADR-0120 D1 (planes), D2 (InterceptorRegistration), D3, D5 (ports), Phase 1",
    "discard_gate": "ADR-0120 D2 (DISCARD_UNAWAITED and its gate)",
    "decisions": "ADR-0120 D2 (InterceptorDecision, InterceptorDisposition), D4",
    "argv": "ADR-0120 D6 (ExternalHookRegistration.command is argv, never a shell string)",
}


class SeriesError(InputError):
    def __init__(self, message: str) -> None:
        super().__init__("--series", "<flag>", message)


@dataclass
class Patch:
    key: str  # its node in the dependency graph
    phase: int  # 1 kernels, 2 gate, 3 owners, 4 call sites, 5 tests and examples, 6 argv
    message: Message
    files: list[FileDiff]
    needs: set[str] = field(default_factory=set)
    mechanisms: frozenset[str] = frozenset()
    written: Path | None = None


@dataclass
class Series:
    patches: list[Patch]
    gate: str | None  # the gate module's path (repository-relative), None when nothing was
    packages: tuple[str, ...]  # the import packages the gate guards
    results: list[MigrateResult]
    notes: list[str]
    command: str | None = None  # the gate's command, from the git top-level
