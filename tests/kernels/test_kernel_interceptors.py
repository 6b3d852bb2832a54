"""OrderedInterceptorChain: ordering, CONTINUE / STOP / DENY, per-stage exception mapping, cancellation."""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType
from typing import Any

import pytest

from .helpers import run


def _reg(k: ModuleType, name: str, stage: str, handler: Any, order: int = 0) -> Any:
    return k.InterceptorRegistration(name=name, stage=stage, handler=handler, order=order)


def _tag(k: ModuleType, tag: str) -> Any:
    """An interceptor that appends `tag` to a tuple context, as a CONTINUE replacement."""

    def handler(ctx: tuple[str, ...]) -> Any:
        return k.InterceptorDecision(disposition=k.InterceptorDisposition.CONTINUE, context=(*ctx, tag))

    return handler


def test_order_is_stage_then_explicit_order_then_composition(kernels: ModuleType) -> None:
    regs = [
        _reg(kernels, "post-a", "post", _tag(kernels, "post-a")),
        _reg(kernels, "sec-late", "security", _tag(kernels, "sec-late"), order=5),
        _reg(kernels, "sec-b", "security", _tag(kernels, "sec-b")),
        _reg(kernels, "sec-c", "security", _tag(kernels, "sec-c")),
        _reg(kernels, "sec-first", "security", _tag(kernels, "sec-first"), order=-1),
    ]
    chain = kernels.OrderedInterceptorChain(stages=("security", "post"), registrations=regs)
    assert [r.name for r in chain.plan] == ["sec-first", "sec-b", "sec-c", "sec-late", "post-a"]
    report = run(chain.apply(()))
    assert report.disposition is kernels.InterceptorDisposition.CONTINUE
    assert report.context == ("sec-first", "sec-b", "sec-c", "sec-late", "post-a")
    assert [d.name for d in report.decisions] == [r.name for r in chain.plan]


def test_none_continues_unchanged_and_async_handlers_are_awaited(kernels: ModuleType) -> None:
    async def replace(ctx: dict[str, int]) -> Any:
        return kernels.InterceptorDecision(
            disposition=kernels.InterceptorDisposition.CONTINUE, context={"n": ctx["n"] + 1}
        )

    chain = kernels.OrderedInterceptorChain(
        stages=("s",),
        registrations=[_reg(kernels, "noop", "s", lambda ctx: None), _reg(kernels, "inc", "s", replace)],
    )
    report = run(chain.apply({"n": 1}))
    assert report.context == {"n": 2}
    assert report.decisions[0].decision.disposition is kernels.InterceptorDisposition.CONTINUE
    assert report.decisions[0].decision.context is kernels.Unset


def test_stop_ends_the_chain_but_keeps_its_replacement(kernels: ModuleType) -> None:
    ran: list[str] = []

    def stop(ctx: str) -> Any:
        return kernels.InterceptorDecision(
            disposition=kernels.InterceptorDisposition.STOP, context=ctx + "!", reason="enough"
        )

    chain = kernels.OrderedInterceptorChain(
        stages=("s",),
        registrations=[
            _reg(kernels, "stop", "s", stop),
            _reg(kernels, "later", "s", lambda c: ran.append(c)),
        ],
    )
    report = run(chain.apply("ctx"))
    assert (report.disposition, report.context, report.reason, report.decided_by) == (
        kernels.InterceptorDisposition.STOP,
        "ctx!",
        "enough",
        "stop",
    )
    assert not report.denied and ran == []


def test_deny_returns_a_typed_denial_and_ignores_a_replacement(kernels: ModuleType) -> None:
    def deny(ctx: str) -> Any:
        return kernels.InterceptorDecision(
            disposition=kernels.InterceptorDisposition.DENY,
            context="ignored",
            reason="not allowed",
            evidence=("rule-7",),
        )

    chain = kernels.OrderedInterceptorChain(
        stages=("security",), registrations=[_reg(kernels, "guard", "security", deny)]
    )
    report = run(chain.apply("ctx"))
    assert report.denied and report.context == "ctx"
    assert (report.reason, report.evidence, report.decided_by) == ("not allowed", ("rule-7",), "guard")


def test_security_stage_maps_an_evaluator_exception_to_deny(kernels: ModuleType) -> None:
    def evaluator(ctx: str) -> None:
        raise RuntimeError("policy store down")

    chain = kernels.OrderedInterceptorChain(
        stages=("security", "post"),
        registrations=[
            _reg(kernels, "evaluator", "security", evaluator),
            _reg(kernels, "post", "post", _tag(kernels, "post")),
        ],
        exception_policy={"security": kernels.StageExceptionPolicy.DENY},
    )
    report = run(chain.apply(()))
    assert report.denied
    assert isinstance(report.evidence[0], RuntimeError)
    assert "policy store down" in report.reason
    assert [d.name for d in report.decisions] == ["evaluator"]


def test_isolating_stage_logs_and_continues(kernels: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    def noisy(ctx: tuple[str, ...]) -> None:
        raise ValueError("observer bug")

    chain = kernels.OrderedInterceptorChain(
        stages=("observe",),
        registrations=[
            _reg(kernels, "noisy", "observe", noisy),
            _reg(kernels, "next", "observe", _tag(kernels, "next")),
        ],
        exception_policy={"observe": kernels.StageExceptionPolicy.ISOLATE},
    )
    report = run(chain.apply(()))
    assert report.disposition is kernels.InterceptorDisposition.CONTINUE and report.context == ("next",)
    assert isinstance(report.decisions[0].decision.evidence[0], ValueError)
    assert any("noisy" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


def test_default_stage_policy_propagates_and_bad_return_types_are_errors(kernels: ModuleType) -> None:
    def broken(ctx: str) -> None:
        raise KeyError("x")

    chain = kernels.OrderedInterceptorChain(stages=("s",), registrations=[_reg(kernels, "b", "s", broken)])
    with pytest.raises(KeyError):
        run(chain.apply("ctx"))
    odd = kernels.OrderedInterceptorChain(
        stages=("s",), registrations=[_reg(kernels, "odd", "s", lambda c: True)]
    )
    with pytest.raises(TypeError):
        run(odd.apply("ctx"))
    fail_closed = kernels.OrderedInterceptorChain(
        stages=("s",),
        registrations=[_reg(kernels, "odd", "s", lambda c: True)],
        exception_policy={"s": kernels.StageExceptionPolicy.DENY},
    )
    assert run(fail_closed.apply("ctx")).denied


@pytest.mark.parametrize("policy", ["DENY", "ISOLATE", "PROPAGATE"])
def test_cancellation_always_propagates(kernels: ModuleType, policy: str) -> None:
    async def cancelled(ctx: str) -> None:
        raise asyncio.CancelledError("teardown")

    chain = kernels.OrderedInterceptorChain(
        stages=("s",),
        registrations=[_reg(kernels, "c", "s", cancelled)],
        exception_policy={"s": getattr(kernels.StageExceptionPolicy, policy)},
    )

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await chain.apply("ctx")

    run(main())


@pytest.mark.parametrize(
    ("rule", "build"),
    [
        (
            "name-duplicate",
            lambda k: dict(
                stages=("s",),
                registrations=[_reg(k, "a", "s", _tag(k, "a")), _reg(k, "a", "s", _tag(k, "b"))],
            ),
        ),
        (
            "stage-undeclared",
            lambda k: dict(stages=("s",), registrations=[_reg(k, "a", "post", _tag(k, "a"))]),
        ),
        (
            "stage-undeclared",
            lambda k: dict(stages=("s",), exception_policy={"t": k.StageExceptionPolicy.DENY}),
        ),
        ("stage-duplicate", lambda k: dict(stages=("s", "s"))),
        ("field-type", lambda k: dict(stages=("s",), exception_policy={"s": "deny"})),
    ],
)
def test_invalid_plans_are_refused(kernels: ModuleType, rule: str, build: Any) -> None:
    with pytest.raises(kernels.PolicyError) as caught:
        kernels.OrderedInterceptorChain(**build(kernels))
    assert caught.value.rules == (rule,)


def test_decisions_and_registrations_validate_their_fields(kernels: ModuleType) -> None:
    with pytest.raises(kernels.PolicyError):
        kernels.InterceptorDecision(disposition="deny")
    with pytest.raises(kernels.PolicyError):
        kernels.InterceptorRegistration(name="", stage="s", handler=lambda c: None, order=0)
    with pytest.raises(kernels.PolicyError):
        kernels.InterceptorRegistration(name="a", stage="s", handler=lambda c: None, order=True)
    with pytest.raises(TypeError):
        kernels.InterceptorDecision(kernels.InterceptorDisposition.STOP)  # keyword-only


def test_registration_order_is_optional_unlike_the_adr_dataclass(kernels: ModuleType) -> None:
    """ADR-0120 D2 declares ``order: int`` without a default; planeshift's is optional (None ranks
    as 0), so a migrated call site need not invent an ``order=0`` its source never had:
    "Registration order is (stage order declared by the owner, explicit order, composition order)."
    """
    assert kernels.InterceptorRegistration(name="a", stage="s", handler=lambda c: None).order is None
    assert kernels.InterceptorRegistration(name="a", stage="s", handler=lambda c: None, order=0).order == 0
