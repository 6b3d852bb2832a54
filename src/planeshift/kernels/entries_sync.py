"""fan_out_sync: ``fan_out``'s synchronous twin, for an owner's sync entry (ADR-0120 D2).

ADR-0120 D2: "A synchronous owner calls preflight_sync() before its domain mutation and later
supplies that immutable registration snapshot to emit_sync()." An owner façade that keeps its
own handler list (lionagi's MessageManager.add_message) takes that snapshot itself, before its
mutation, and refuses a declared-async handler there with its own exception; it then hands the
snapshot to this function, which runs the policy's one sequential, inline phase over it:

    fan_out_sync(policy, snapshot, lambda entry, call: call(entry, message), group=...)

``step(entry, call)`` runs synchronously; whatever it raises is that entry's handler failure,
whatever it returns is the entry's value in the report. ``call(handler, *args, **kwargs)`` calls
one handler and returns what it returned: nothing can be awaited from a sync entry, so a returned
awaitable is disposed of as the policy says (DISCARD_UNAWAITED hands it back as it is, neither
closed nor awaited, as the loop it replaces left it; REJECT closes it and fails the entry). A
declared-async handler under REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT is a failure of that
entry (SyncEntryError): it means the owner's own preflight let it through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ._calls import (
    close_unawaited,
    handler_name,
    is_declared_async,
    is_returned_awaitable,
)
from ._hooks import OwnerHooks
from ._runner import Slot
from ._steps import PhaseSteps, settled_sync
from ._surface import finish_stage
from ._vocab import (
    CompletionTiming,
    OutcomeStatus,
    ReturnedAwaitableDisposition,
    SyncEntryPolicy,
)
from .entries import entry_slots
from .errors import PolicyError, ReturnedAwaitableRejectedError, SyncEntryError
from .policy import DispatchPolicy
from .report import DispatchReport

__all__ = ["SyncCall", "SyncStep", "fan_out_sync"]

_logger = logging.getLogger(__name__)

SyncCall = Callable[..., Any]
SyncStep = Callable[[Any, SyncCall], Any]


def _check(policy: DispatchPolicy) -> None:
    if not isinstance(policy, DispatchPolicy):
        raise TypeError(f"policy must be a DispatchPolicy, got {type(policy).__name__}")
    if len(policy.phases) != 1 or policy.phases[0].selector != "all":
        raise PolicyError(
            [("fan-out-single-phase", "fan_out_sync runs one selector='all' phase")],
        )
    if not policy.has_sync_entry:
        raise SyncEntryError(
            "this dispatch policy has no sync entry (sync_entry=UNAVAILABLE); use fan_out()",
        )
    # sync-entry-requires-sequential-inline, sync-entry-cannot-await and
    # sync-entry-forbids-deadline (policy validation) leave one sequential, inline phase
    # without a deadline or a gather stage.


class _SyncEntrySteps(PhaseSteps):
    """PhaseSteps whose invocation runs the owner's step for the slot's entry, synchronously."""

    def __init__(
        self,
        policy: DispatchPolicy,
        step: SyncStep,
        log: logging.Logger,
        hooks: OwnerHooks,
    ) -> None:
        super().__init__(policy.phases[0], None, log, hooks)
        self.step = step

    def call_for(self, slot: Slot) -> SyncCall:
        before_effect = SyncEntryPolicy.REJECT_DECLARED_ASYNC_BEFORE_OWNER_EFFECT
        rejects = self.phase.sync_entry is before_effect

        def call(handler: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            if self.by_declaration and rejects and is_declared_async(handler):
                raise SyncEntryError(
                    f"declared-async handler {handler_name(handler)!r} reached the sync entry;"
                    " the owner's preflight must refuse it before its mutation"
                )
            return self.returned(slot, handler(*args, **kwargs))

        return call

    def returned(self, slot: Slot, value: Any) -> Any:
        disposition = self.phase.returned_awaitable
        if disposition is ReturnedAwaitableDisposition.DISCARD_UNAWAITED:
            return value  # never run, handed back untouched (as fan_out does)
        if disposition is not ReturnedAwaitableDisposition.REJECT:
            return value
        if not is_returned_awaitable(value, self.phase.returned_value_classifier):
            return value
        close_unawaited(value)
        kind = type(value).__name__
        raise ReturnedAwaitableRejectedError(
            f"handler {slot.reg.name!r} returned an awaitable ({kind}) under REJECT",
        )

    def invoke_entry(self, slot: Slot) -> None:
        try:
            value = self.step(slot.entry, self.call_for(slot))
            slot.settle(OutcomeStatus.RETURNED, value)
        except asyncio.CancelledError as exc:
            self._cancelled(slot, exc, self.phase.invocation)
        except Exception as exc:
            settled_sync(self._failed(slot, exc, self.phase.invocation))
        except BaseException as exc:
            caught, pending = self._collected(slot, exc, self.phase.invocation)
            if not caught:
                raise
            settled_sync(pending)


def fan_out_sync(
    policy: DispatchPolicy,
    entries: Iterable[Any],
    step: SyncStep,
    *,
    logger: logging.Logger | None = None,
    failed: Callable[[Any, BaseException], Any] | None = None,
    group: Callable[[list[BaseException]], BaseException] | None = None,
    name: Callable[[Any], str | None] | None = None,
) -> DispatchReport:
    """Run *step* for each of *entries* (taken as a list now) under *policy*'s sync entry.

    *failed* and *group* are the owner's (``OwnerHooks``; a ``failed`` hook must not return an
    awaitable here); *logger* receives the records the kernel writes itself; *name* names an
    entry in the report (default: the handler's qualified name for a callable entry).
    """
    _check(policy)
    if logger is not None and not isinstance(logger, logging.Logger):
        raise TypeError(f"logger must be a logging.Logger, got {type(logger).__name__}")
    phase = policy.phases[0]
    slots = entry_slots(list(entries), step, name)
    hooks = OwnerHooks(failed=failed, group=group)
    steps = _SyncEntrySteps(
        policy,
        step,
        logger if logger is not None else _logger,
        hooks,
    )
    awaits_all = phase.invocation.completion is CompletionTiming.AWAIT_ALL
    stopped = False
    for slot in slots:
        if stopped:
            slot.settle(OutcomeStatus.NOT_STARTED)
            continue
        steps.invoke_entry(slot)
        stopped = slot.abort or (not awaits_all and slot.triggers_stop)
    finish_stage(
        slots,
        phase.invocation,
        gather_stage=False,
        label="invocation",
        hooks=hooks,
    )
    return DispatchReport(
        outcomes=tuple(s.outcome() for s in slots),
        deadline_expired=False,
    )
