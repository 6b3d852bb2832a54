"""One file's share of a link (its *unit*): what the linker assembles candidates from and what
the snapshot keeps for the next, incremental, link."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...packs.model import RegistrationForm
from .candidate import Call, Candidate
from .index import DepKey
from .match.emissions import RawEmission


@dataclass
class Unit:
    """One file's share of the link: its candidates (each with the forwarder form it derives,
    if any), its emissions, and every index entry producing them read."""

    path: str
    entries: list[tuple[Candidate, RegistrationForm | None]]
    used: frozenset[RegistrationForm]  # derived forwarder forms its candidates came through
    emissions: list[RawEmission]
    reads: frozenset[DepKey]
    calls: list[Call] = field(default_factory=list)  # its calls of helpers (activations)
    # the snapshot row this unit was decoded from, and the key table its reads index: a unit an
    # incremental link reuses is written back as it was read
    encoded: tuple | None = field(default=None, compare=False, repr=False)

    @property
    def forms(self) -> set[RegistrationForm]:
        return {form for _, form in self.entries if form is not None}
