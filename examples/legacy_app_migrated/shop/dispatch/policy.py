# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/policy.py (planeshift 0.1.0) by `planeshift kernels vendor`.
# Do not edit: re-run that command to update this copy.
"""Fan-out dispatch policies: ordered phases, validated as a whole, and the ADR's named profiles."""

from __future__ import annotations

from dataclasses import dataclass

from . import profiles
from ._rules import Violations, policy_rules
from .errors import PolicyError
from .phases import DispatchPhase

__all__ = ["DispatchPolicy"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchPolicy:
    """Ordered phases that together select every registration exactly once.

    `preserve_registration_order` governs invocation order only: True promises that handlers are
    invoked (sequential) or started (concurrent) in registration order; False waives that promise,
    though this kernel still keeps it. The report is in registration order either way.
    """

    phases: tuple[DispatchPhase, ...]
    preserve_registration_order: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.phases, list):
            object.__setattr__(self, "phases", tuple(self.phases))
        bad: Violations = []
        if not isinstance(self.phases, tuple) or not all(isinstance(p, DispatchPhase) for p in self.phases):
            bad.append(("field-type", "phases must be a tuple of DispatchPhase"))
        if not isinstance(self.preserve_registration_order, bool):
            bad.append(("field-type", "preserve_registration_order must be a bool"))
        if bad:
            raise PolicyError(bad)
        found = policy_rules(self)
        if found:
            raise PolicyError(found)

    @property
    def has_sync_entry(self) -> bool:
        return self.phases[0].has_sync_entry

    # Named constructors: the ADR's pinned compatibility profiles (phases spelled out in profiles.py).
    @classmethod
    def scheduler(cls) -> DispatchPolicy:
        return cls(phases=profiles.scheduler())

    @classmethod
    def terminal_callback(cls, *, deadline_seconds: float = 10.0) -> DispatchPolicy:
        return cls(phases=profiles.terminal_callback(deadline_seconds=deadline_seconds))

    @classmethod
    def session_observer(cls) -> DispatchPolicy:
        return cls(phases=profiles.session_observer())

    @classmethod
    def broadcaster(cls) -> DispatchPolicy:
        return cls(phases=profiles.broadcaster())

    @classmethod
    def message_manager_sync(cls) -> DispatchPolicy:
        return cls(phases=profiles.message_manager_sync())

    @classmethod
    def message_manager_async(cls) -> DispatchPolicy:
        return cls(phases=profiles.message_manager_async())
