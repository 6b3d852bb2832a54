"""What the rules read: a linked, classified project as plain facts (``Rule.check(project)``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .analyzer.extract.summary import FileSummary
from .packs.model import Mechanism
from .types import (
    DispatchPath,
    Emission,
    MechanismSummary,
    PolicyAxis,
    ProfileMatch,
    Registration,
)


@dataclass(frozen=True, slots=True)
class MechanismFacts:
    """One mechanism as the link found it: the pack's model, its dispatcher classes in the tree,
    its effective dispatch policy with the evidence, its forwarders and its points."""

    model: Mechanism
    classes: tuple[str, ...] = ()
    policy: tuple[tuple[str, str], ...] = ()  # the effective axis -> value map, code first
    policy_evidence: tuple[str, ...] = ()
    policy_axes: tuple[PolicyAxis, ...] = ()  # every axis with its provenance and evidence
    dispatch_paths: tuple[DispatchPath, ...] = ()  # each entry method's own reading
    profile: ProfileMatch | None = None  # the ADR's named profile, and where the code differs
    forwarders: tuple[str, ...] = ()  # "api (forwards to file:line)"
    dormant_points: frozenset[str] = frozenset()  # declared dormant, or registered never emitted

    @property
    def id(self) -> str:
        return self.model.id

    @property
    def policy_map(self) -> dict[str, str]:
        return dict(self.policy)


@dataclass(frozen=True, slots=True)
class ProjectFacts:
    """The whole project after link and classification: registrations, emissions, the
    mechanisms, and each file's summary (the per-file answers to whole-project questions)."""

    root: str
    registrations: tuple[Registration, ...]
    emissions: tuple[Emission, ...]
    mechanisms: tuple[MechanismFacts, ...]
    files: tuple[FileSummary, ...]
    context: tuple[str, ...] = ()  # the packages whose source was read as context
    _by_id: dict[str, MechanismFacts] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update((m.id, m) for m in self.mechanisms)

    def mechanism(self, mechanism_id: str) -> MechanismFacts:
        return self._by_id[mechanism_id]

    def rule_facts(self, code: str) -> Iterator[tuple[str, Any]]:
        """(file, data) for every file the rule *code* read something of (``Rule.file_facts``)."""
        for summary in self.files:
            for rule, data in summary.rule_facts:
                if rule == code:
                    yield summary.path, data


def _in(qualname: str, packages: tuple[str, ...]) -> bool:
    return any(qualname.startswith(f"{p}.") for p in packages)


def mechanism_summaries(project: ProjectFacts) -> list[MechanismSummary]:
    """The report's per-mechanism inventory (counts by plane, policy, points, forwarders)."""
    out = []
    for facts in project.mechanisms:
        mech = facts.model
        mine = [r for r in project.registrations if r.mechanism == mech.id]
        planes = Counter(r.plane for r in mine)
        emitted = sorted({e.point for e in project.emissions if e.mechanism == mech.id and e.point})
        out.append(MechanismSummary(
            id=mech.id,
            title=mech.title,
            # a mechanism without a dispatcher class is dispatched by its emitting functions
            dispatcher=tuple(dict.fromkeys([*mech.dispatchers, *(
                c for c in facts.classes if not _in(c, project.context))]))
            or tuple(e.name for e in mech.emissions if e.kind == "function")
            or tuple(f"settings key {c.key} in {', '.join(c.files)}" for c in mech.config),
            registration_apis=tuple(dict.fromkeys([*(s.name for s in mech.registrations),
                                                   *facts.forwarders])),
            emission_apis=tuple(dict.fromkeys(e.name for e in mech.emissions)),
            registrations=len(mine),
            planes=tuple(sorted(planes.items())),
            policy=tuple(sorted(facts.policy)),
            policy_evidence=facts.policy_evidence,
            policy_axes=facts.policy_axes,
            dispatch_paths=facts.dispatch_paths,
            profile=facts.profile,
            pack=mech.pack,
            dormant_points=tuple(sorted(facts.dormant_points)),
            emitted_points=tuple(emitted),
        ))
    return out
