"""OrderedInterceptorChain: owner-declared stages of typed CONTINUE / STOP / DENY
decisions."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ._vocab import InterceptorDisposition, StageExceptionPolicy, Unset, UnsetType
from .errors import PolicyError

__all__ = [
    "Interceptor",
    "InterceptorDecision",
    "InterceptorRegistration",
    "InterceptorReport",
    "OrderedInterceptorChain",
    "RecordedDecision",
]

logger = logging.getLogger(__name__)
ContextT = TypeVar("ContextT")


@dataclass(frozen=True, slots=True, kw_only=True)
class InterceptorDecision(Generic[ContextT]):
    """A handler's verdict; `context` replaces the current context when given (CONTINUE
    or STOP)."""

    disposition: InterceptorDisposition
    context: ContextT | UnsetType = Unset
    reason: str | UnsetType = Unset
    evidence: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.disposition, InterceptorDisposition):
            raise PolicyError(
                [
                    (
                        "field-type",
                        f"disposition must be InterceptorDisposition, got {self.disposition!r}",
                    ),
                ],
            )
        if not isinstance(self.evidence, tuple):
            raise PolicyError([("field-type", "evidence must be a tuple")])


# A handler returns a decision, or None for "CONTINUE with the context unchanged"; sync
# or async.
_Verdict = InterceptorDecision[ContextT] | Awaitable[Any] | None
Interceptor = Callable[[ContextT], _Verdict]


@dataclass(frozen=True, slots=True, kw_only=True)
class InterceptorRegistration(Generic[ContextT]):
    """One interceptor; the handler is runtime-only and never part of a durable plan
    digest.

    `order` is a rank within the stage; None (the default) ranks as 0, so registrations
    that declare none run in registration order. The ADR's dataclass requires it; a
    migrated call site writes one only where the source had one.
    """

    name: str
    stage: str
    handler: Interceptor[ContextT]
    order: int | None = None

    def __post_init__(self) -> None:
        bad = []
        if not isinstance(self.name, str) or not self.name:
            bad.append(
                ("field-type", f"name must be a non-empty str, got {self.name!r}"),
            )
        if not isinstance(self.stage, str):
            bad.append(("field-type", f"stage must be a str, got {self.stage!r}"))
        if not callable(self.handler):
            bad.append(("field-type", f"handler of {self.name!r} must be callable"))
        order = self.order
        integral = isinstance(order, int) and not isinstance(order, bool)
        if order is not None and not integral:
            bad.append(
                ("field-type", f"order must be an int or None, got {self.order!r}"),
            )
        if bad:
            raise PolicyError(bad)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedDecision(Generic[ContextT]):
    name: str
    stage: str
    decision: InterceptorDecision[ContextT]


@dataclass(frozen=True, slots=True, kw_only=True)
class InterceptorReport(Generic[ContextT]):
    """The chain's result; on DENY the owner decides its own public error or result
    type."""

    disposition: InterceptorDisposition
    context: ContextT
    reason: str | UnsetType = Unset
    evidence: tuple[object, ...] = ()
    decided_by: str | None = None
    decisions: tuple[RecordedDecision[ContextT], ...] = ()

    @property
    def denied(self) -> bool:
        return self.disposition is InterceptorDisposition.DENY


class OrderedInterceptorChain(Generic[ContextT]):
    """An immutable plan: registrations ordered by (declared stage, explicit order,
    composition order).

    `exception_policy` maps a stage to how an ordinary handler exception is treated
    there: PROPAGATE (default) re-raises, DENY turns it into a denial carrying the
    exception as evidence (fail closed, for security stages), ISOLATE logs it and
    continues with the context unchanged. Cancellation and other non-Exception
    BaseExceptions always propagate.
    """

    def __init__(
        self,
        *,
        stages: Sequence[str],
        registrations: Iterable[InterceptorRegistration[ContextT]] = (),
        exception_policy: Mapping[str, StageExceptionPolicy] | None = None,
    ) -> None:
        regs = list(registrations)
        self.stages: tuple[str, ...] = tuple(stages)
        self.exception_policy: dict[str, StageExceptionPolicy] = dict(
            exception_policy or {},
        )
        _validate(self.stages, regs, self.exception_policy)
        rank = {stage: index for index, stage in enumerate(self.stages)}
        ordered = sorted(
            enumerate(regs),
            key=lambda item: (rank[item[1].stage], item[1].order or 0, item[0]),
        )
        plan = tuple(reg for _, reg in ordered)
        self.plan: tuple[InterceptorRegistration[ContextT], ...] = plan

    async def apply(self, context: ContextT) -> InterceptorReport[ContextT]:
        current = context
        records: list[RecordedDecision[ContextT]] = []
        for reg in self.plan:
            decision = await self._decide(reg, current)
            records.append(
                RecordedDecision(name=reg.name, stage=reg.stage, decision=decision),
            )
            # A denial does not adopt a replacement context: the operation will not run
            # with it.
            denied = decision.disposition is InterceptorDisposition.DENY
            if not denied and not isinstance(decision.context, UnsetType):
                current = decision.context
            if decision.disposition in (
                InterceptorDisposition.DENY,
                InterceptorDisposition.STOP,
            ):
                return InterceptorReport(
                    disposition=decision.disposition,
                    context=current,
                    reason=decision.reason,
                    evidence=decision.evidence,
                    decided_by=reg.name,
                    decisions=tuple(records),
                )
        return InterceptorReport(
            disposition=InterceptorDisposition.CONTINUE,
            context=current,
            decisions=tuple(records),
        )

    async def _decide(
        self,
        reg: InterceptorRegistration[ContextT],
        context: ContextT,
    ) -> InterceptorDecision[ContextT]:
        try:
            result: Any = reg.handler(context)
            if inspect.isawaitable(result):
                result = await result
            if result is None:
                return InterceptorDecision(disposition=InterceptorDisposition.CONTINUE)
            if not isinstance(result, InterceptorDecision):
                kind = type(result).__name__
                raise TypeError(
                    f"interceptor {reg.name!r} returned {kind}, not a decision or None",
                )
            return result
        except Exception as exc:
            policy = self.exception_policy.get(
                reg.stage,
                StageExceptionPolicy.PROPAGATE,
            )
            if policy is StageExceptionPolicy.PROPAGATE:
                raise
            reason = f"interceptor {reg.name!r} raised {type(exc).__name__}: {exc}"
            if policy is StageExceptionPolicy.DENY:
                return InterceptorDecision(
                    disposition=InterceptorDisposition.DENY,
                    reason=reason,
                    evidence=(exc,),
                )
            logger.warning("%s; isolated, chain continues", reason, exc_info=exc)
            return InterceptorDecision(
                disposition=InterceptorDisposition.CONTINUE,
                reason=reason,
                evidence=(exc,),
            )


def _validate(
    stages: tuple[str, ...],
    regs: list[InterceptorRegistration[Any]],
    policies: dict[str, StageExceptionPolicy],
) -> None:
    bad: list[tuple[str, str]] = []
    if not all(isinstance(s, str) and s for s in stages):
        bad.append(("field-type", "stages must be non-empty strings"))
    if len(set(stages)) != len(stages):
        bad.append(("stage-duplicate", f"stages {list(stages)} declare a stage twice"))
    if not all(isinstance(r, InterceptorRegistration) for r in regs):
        raise PolicyError(
            [*bad, ("field-type", "registrations must be InterceptorRegistration")],
        )
    names = [r.name for r in regs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        bad.append(
            (
                "name-duplicate",
                f"interceptor names must be unique in one plan: {duplicates}",
            ),
        )
    used = {r.stage for r in regs} | set(policies)
    undeclared = sorted(s for s in used if s not in stages)
    if undeclared:
        bad.append(
            (
                "stage-undeclared",
                f"stages {undeclared} are not declared by the owner {list(stages)}",
            ),
        )
    if not all(isinstance(p, StageExceptionPolicy) for p in policies.values()):
        bad.append(
            ("field-type", "exception_policy values must be StageExceptionPolicy"),
        )
    if bad:
        raise PolicyError(bad)
