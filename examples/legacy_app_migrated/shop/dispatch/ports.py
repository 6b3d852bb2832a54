# planeshift-vendored: planeshift.kernels 0.1.0 as shop.dispatch
# Vendored from planeshift.kernels/ports.py (planeshift 0.1.0).
# Do not edit: re-run `planeshift kernels vendor` to update this copy.
"""ADR-0120 D5 ports: staging inside the owner's transaction versus delivery after
commit."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

from ._vocab import Unset, UnsetType

__all__ = [
    "CommitParticipant",
    "CommitRefs",
    "CommittedDeliveryIntent",
    "DeliveryResult",
    "DeliverySink",
    "DeliveryStatus",
    "PendingDomainFact",
    "TransactionRef",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TransactionRef:
    """The domain owner's open transaction, by identity only: a participant never
    commits it."""

    id: str
    owner: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingDomainFact:
    """A fact the owner is about to commit; `payload` should be an immutable wire
    snapshot."""

    kind: str
    subject: str
    payload: object = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitRefs:
    """What a participant staged (evidence rows, outbox intents), committed with the
    owner or not at all."""

    refs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CommittedDeliveryIntent:
    """A committed outbox intent; `idempotency_key` is what makes a retried delivery
    safe."""

    intent_id: str
    idempotency_key: str
    destination: str
    fact: PendingDomainFact
    attempt: int = 1


class DeliveryStatus(str, Enum):
    DELIVERED = "delivered"
    RETRY = "retry"
    DEAD_LETTER = "dead_letter"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliveryResult:
    """A delivery attempt's result; it changes delivery state, never the committed
    source outcome."""

    status: DeliveryStatus
    detail: str | UnsetType = Unset
    retry_after_seconds: float | UnsetType = Unset


@runtime_checkable
class CommitParticipant(Protocol):
    """Stages required evidence or an outbox intent inside the owner's transaction.

    It may fail the commit before it happens; it never performs network delivery and is
    never scheduled by a FanoutDispatcher.
    """

    async def stage(
        self,
        transaction: TransactionRef,
        fact: PendingDomainFact,
    ) -> CommitRefs: ...


@runtime_checkable
class DeliverySink(Protocol):
    """Delivers a committed intent; its failure changes delivery state, not the domain
    outcome."""

    async def deliver(self, committed: CommittedDeliveryIntent) -> DeliveryResult: ...
