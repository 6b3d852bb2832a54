"""Declarations: an owner façade reads what a call site's typed registration declares (name,
order, plane), stores the bare handler as before, and never keeps a handler alive."""

from __future__ import annotations

import gc
from types import ModuleType
from typing import Any

import pytest

from .helpers import axes, run


def _sub(k: ModuleType, name: str, handler: Any, order: int | None = None) -> Any:
    return k.adapters.Subscription(name=name, policy="bus", handler=handler, order=order)


def test_order_is_optional_and_defaults_to_registration_order(kernels: ModuleType) -> None:
    reg = kernels.InterceptorRegistration(name="a", stage="s", handler=lambda c: None)
    assert reg.order is None
    regs = [
        kernels.InterceptorRegistration(name="b", stage="s", handler=lambda c: None),
        kernels.InterceptorRegistration(name="first", stage="s", handler=lambda c: None,
                                        order=-1),
        reg,
    ]
    chain = kernels.OrderedInterceptorChain(stages=("s",), registrations=regs)
    assert [r.name for r in chain.plan] == ["first", "b", "a"]
    with pytest.raises(kernels.PolicyError):
        _sub(kernels, "x", print, order="1")


def test_accept_unwraps_records_and_hands_back_the_bare_handler(kernels: ModuleType) -> None:
    table = kernels.Declarations(planes=("subscriber",))

    def late(signal: Any) -> None: ...
    def early(signal: Any) -> None: ...
    def plain(signal: Any) -> None: ...

    stored = [table.accept(_sub(kernels, "app.late", late)),
              table.accept(_sub(kernels, "app.early", early, order=-5)),
              table.accept(plain), table.accept(None)]
    assert stored == [late, early, plain, None]
    assert [table.name(h) for h in (late, early, plain)] == ["app.late", "app.early", None]
    assert table.ordered([late, early, plain]) == [early, late, plain]
    # an owner's own record (a tuple, an object with .handler) is read through
    assert table.name(((int,), (), late)) == "app.late"
    table.accept(late)  # registered again bare: the old declaration no longer names it
    assert table.name(late) is None


def test_the_kernel_reports_the_declared_names_in_declared_order(kernels: ModuleType) -> None:
    table = kernels.Declarations(planes=("subscriber",))
    seen: list[str] = []
    handlers = [table.accept(_sub(kernels, f"app.h{i}", lambda s, i=i: seen.append(f"h{i}"),
                                  order=-i)) for i in range(3)]
    policy = kernels.DispatchPolicy.from_axes(**axes())
    report = run(kernels.fan_out(policy, table.ordered(handlers), lambda h, call: call(h, 1),
                                 name=table.name))
    assert seen == ["h2", "h1", "h0"]
    assert [o.name for o in report.outcomes] == ["app.h2", "app.h1", "app.h0"]


def test_a_declaration_of_another_plane_is_refused(kernels: ModuleType) -> None:
    table = kernels.Declarations(planes=("subscriber",))
    sink = kernels.adapters.SinkRegistration(name="app.mail", port=kernels.DeliverySink,
                                             handler=print)
    with pytest.raises(kernels.PolicyError) as caught:
        table.accept(sink)
    assert caught.value.rules == ("plane-mismatch",)
    assert "'app.mail' is declared delivery_sink, but this dispatcher serves subscriber" in str(
        caught.value)
    assert kernels.Declarations(planes=("delivery_sink",)).accept(sink) is print


def test_a_record_never_keeps_a_bound_methods_instance_alive(kernels: ModuleType) -> None:
    import weakref

    class Listener:
        def on(self, signal: Any) -> None: ...

    table = kernels.Declarations(planes=("subscriber",))
    listener = Listener()
    handler = table.accept(_sub(kernels, "app.Listener.on", listener.on))
    assert table.name(listener.on) == "app.Listener.on"  # a new bound method, same identity
    alive = weakref.ref(listener)
    del listener, handler
    gc.collect()
    assert alive() is None and not table._records
