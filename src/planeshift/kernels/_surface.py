"""How a finished stage surfaces its failures and handler cancellations, as its stage
policy says; and the returned-awaitables stage, run and surfaced."""

from __future__ import annotations

from collections.abc import Sequence

from ._hooks import NO_HOOKS, OwnerHooks
from ._runner import Slot, Step, run_concurrent
from ._vocab import DispatchFailure, ErrorSurface, HandlerCancellation, OutcomeStatus
from .errors import HandlerCancelled
from .phases import DispatchStagePolicy

__all__ = ["finish_stage", "gather_stage"]

_FAILED = (OutcomeStatus.FAILED, OutcomeStatus.REJECTED)
_RAISING = (
    ErrorSurface.RAISE_FIRST,
    ErrorSurface.RAISE_GROUP,
    ErrorSurface.UNWRAP_SINGLE_ELSE_GROUP,
)


async def gather_stage(
    pending: Sequence[Slot],
    stage: DispatchStagePolicy,
    awaited: Step,
    deadline: float | None,
    hooks: OwnerHooks = NO_HOOKS,
) -> bool:
    """Await the awaitables *pending* slots kept, concurrently (*awaited* settles one slot),
    then surface the stage as its policy says; True when the shared deadline expired."""
    expired = await run_concurrent(pending, awaited, stage.completion, deadline)
    finish_stage(
        pending,
        stage,
        gather_stage=True,
        label="returned awaitables",
        hooks=hooks,
    )
    return expired


def finish_stage(
    slots: Sequence[Slot],
    stage: DispatchStagePolicy,
    *,
    gather_stage: bool,
    label: str,
    hooks: OwnerHooks = NO_HOOKS,
) -> None:
    """Raise or keep quiet about a finished stage, as its policy says (see ``_surfaced``).

    Before it raises, the slots let go of their errors: the raised error's traceback holds
    the frames that hold the slots, and a slot holding it back would keep the error, its
    frames and what they hold (the payloads, the awaitables kept) alive until the cyclic
    collector runs, where the loop the kernel replaces freed them when the caller let go.
    """
    error = _surfaced(slots, stage, gather_stage, label, hooks)
    if error is None:
        return
    for slot in slots:
        slot.error = None
    try:
        raise error
    finally:
        del error


def _surfaced(
    slots: Sequence[Slot],
    stage: DispatchStagePolicy,
    gather_stage: bool,
    label: str,
    hooks: OwnerHooks,
) -> BaseException | None:
    """What a finished stage raises, as its policy says; None when nothing is.

    LOG_ONLY failures were already logged where they happened (PhaseSteps), so nothing
    is logged here.

    Precedence: an aborting error (propagated cancellation, propagated predicate error)
    first, then translated cancellation, then held errors (collected cancellations and
    collected non-Exception BaseExceptions) merged with raised failures, then failures.
    A handler cancellation under CANCEL_SIBLINGS_AND_RETURN, and every failure an
    ISOLATE stage isolated, raise nothing. *hooks* build the owner's own groups and
    translated cancellation.
    """
    ordered = sorted(slots, key=lambda s: s.reg.seq)
    aborts = [s.error for s in ordered if s.abort and s.error is not None]
    if aborts:
        return aborts[0]
    failed = [s for s in ordered if s.status in _FAILED and s.error is not None]
    failures: list[BaseException] = [s.error for s in failed if s.error is not None]
    cancelled = [s for s in ordered if s.handler_cancelled]
    cancels: list[BaseException] = [s.error for s in cancelled if s.error is not None]
    surface = stage.error_surface
    # TRANSLATE: a handler's cancellation, or another BaseException that is neither an
    # Exception nor a KeyboardInterrupt / SystemExit (which end the process), is raised
    # as the owner's exception, caused by the first of them (the scheduler's "every
    # non-Exception result is a cancellation"); the ordinary failures are its cause then.
    odd = [s for s in failed if _translated_like_a_cancellation(s.error)]
    firsts = sorted([*cancelled, *odd], key=lambda s: s.reg.seq)
    first = next((s.error for s in firsts if s.error is not None), None)
    translates = stage.handler_cancellation is HandlerCancellation.TRANSLATE
    if first is not None and translates:
        translated: BaseException
        if hooks.translated is not None:
            translated = hooks.translated(first)
        else:
            translated = HandlerCancelled(
                f"{label}: handler {_first_cancelled(firsts)} was cancelled",
            )
        ordinary = [e for e in failures if isinstance(e, Exception)]
        if ordinary:
            group = hooks.make_group(_message(label, ordinary), ordinary)
            return _caused(translated, group)
        return _caused(translated, first)
    raising = failures if surface in _RAISING else []
    # A collected KeyboardInterrupt or SystemExit leaves whatever the surface, like a
    # collected cancellation; a gather stage returns its cancellations in the report
    # instead. One the stage isolated (ISOLATE_BASE_EXCEPTIONS) stays isolated.
    isolated = stage.failure is DispatchFailure.ISOLATE_BASE_EXCEPTIONS
    held = [] if isolated else [e for e in failures if not isinstance(e, Exception)]
    if stage.handler_cancellation is HandlerCancellation.COLLECT and not gather_stage:
        held += cancels
    if held:
        # Held errors were delayed until the drain and leave now, in registration order
        # with the failures the surface raises; a cancellation is never converted into
        # an ordinary error. BaseExceptionGroup() itself yields an ExceptionGroup when
        # every member is an Exception.
        raised_ids = {id(e) for e in (*held, *raising)}
        errors = [s.error for s in ordered if s.error is not None]
        merged = [e for e in errors if id(e) in raised_ids]
        if surface is ErrorSurface.RAISE_GROUP or len(merged) > 1:
            return hooks.make_group(_message(label, merged), merged)
        return merged[0]
    if not raising:
        return None
    if surface is ErrorSurface.RAISE_FIRST:
        return raising[0]
    if surface is ErrorSurface.RAISE_GROUP or len(raising) > 1:
        return hooks.make_group(_message(label, raising), raising)
    return raising[0]


def _caused(error: BaseException, cause: BaseException) -> BaseException:
    """*error* as ``raise error from cause`` leaves it."""
    error.__cause__ = cause
    return error


def _first_cancelled(firsts: Sequence[Slot]) -> str:
    return repr(firsts[0].reg.name)


def _message(label: str, errors: Sequence[BaseException]) -> str:
    return f"{len(errors)} handler(s) failed during {label}"


def _translated_like_a_cancellation(error: BaseException | None) -> bool:
    process = (Exception, KeyboardInterrupt, SystemExit, GeneratorExit)
    return error is not None and not isinstance(error, process)
