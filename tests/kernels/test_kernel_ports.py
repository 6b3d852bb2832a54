"""ADR D5 ports are runtime-checkable Protocols over small frozen value types."""

from __future__ import annotations

import dataclasses
from types import ModuleType

import pytest

from .helpers import run


def test_a_component_may_implement_both_ports_but_each_is_checked_on_its_own(kernels: ModuleType) -> None:
    class Outbox:
        async def stage(self, transaction: object, fact: object) -> object:
            return kernels.CommitRefs(refs=(f"outbox:{fact.subject}",))

    class Sink:
        async def deliver(self, committed: object) -> object:
            return kernels.DeliveryResult(status=kernels.DeliveryStatus.DELIVERED)

    assert isinstance(Outbox(), kernels.CommitParticipant) and not isinstance(Outbox(), kernels.DeliverySink)
    assert isinstance(Sink(), kernels.DeliverySink) and not isinstance(Sink(), kernels.CommitParticipant)
    fact = kernels.PendingDomainFact(kind="run.completed", subject="run-1")
    refs = run(Outbox().stage(kernels.TransactionRef(id="tx1", owner="lifecycle"), fact))
    assert refs.refs == ("outbox:run-1",)
    intent = kernels.CommittedDeliveryIntent(
        intent_id="i1", idempotency_key="run-1:completed", destination="hook", fact=fact
    )
    assert run(Sink().deliver(intent)).status is kernels.DeliveryStatus.DELIVERED
    assert kernels.DeliveryResult(status=kernels.DeliveryStatus.RETRY).detail is kernels.Unset


def test_port_values_are_frozen(kernels: ModuleType) -> None:
    fact = kernels.PendingDomainFact(kind="k", subject="s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.kind = "other"  # type: ignore[misc]
