"""Forwarders: helpers and façades that register on a dispatcher with their caller's arguments.

``def observe(self, *keys, handler=None): return self.observer.observe(*keys, handler=handler)``
is not itself a registration: the caller decides the point and the handler. Such a function
becomes a derived registration API of the mechanism, and its call sites are the registrations.
Chains (a façade over a façade) resolve over successive rounds in the linker.
"""

from __future__ import annotations

from dataclasses import replace

from ...packs.model import ArgSpec, RegistrationForm
from ..extract.facts import Function, Param
from .match.candidates import NOT_GIVEN, Match
from .match.matcher import Matcher


def _param_source(ref, params: dict[str, Param], func: Function) -> Param | None:
    """The parameter a ref is, when it is a parameter name never rebound in the function."""
    if ref is None or ref[0] != "name" or ref[1] not in params:
        return None
    bindings = [b for name, b in func.bindings if name == ref[1]]
    if any(b[0] != "param" for b in bindings):
        return None  # reassigned before use: not a plain pass-through
    return params[ref[1]]


def _spec_for(param: Param, positional: list[Param]) -> ArgSpec:
    if param.kind == "vararg":
        return ArgSpec(rest=True)
    if param.kind == "pos":
        return ArgSpec(index=positional.index(param), keyword=param.name)
    return ArgSpec(keyword=param.name)


def _through_star(cand: Match, inner: ArgSpec, params, positional, func) -> ArgSpec | None:
    """``bus.on(*keys, handler=h)`` in ``def on(self, *keys, handler)``: the caller's first
    positional argument is the wrapped API's point."""
    if inner.index is None or inner.index < 0:
        return None
    before = 0
    for arg in cand.site.args:
        if arg.name is not None:
            continue
        if arg.star == "*":
            param = _param_source(arg.ref, params, func)
            if param is None or param.kind != "vararg" or inner.index < before:
                return None
            return ArgSpec(index=len(positional) + inner.index - before)
        before += 1
    return None


def derive(cand: Match, matcher: Matcher) -> RegistrationForm | None:
    """A derived registration form when *cand* sits in a function that forwards its parameters.

    A helper that only forwards the point (its handler is fixed) is derived only when the
    mechanism's classification depends on the point: then the caller decides the plane.
    """
    index = matcher.ev.index
    if not cand.scope:
        return None
    qn = f"{cand.module}.{cand.scope}"
    func = index.functions.get(qn)
    if func is None:
        return None
    params = {p.name: p for p in func.params if p.kind not in ("self", "cls")}
    positional = [p for p in func.params if p.kind == "pos"]
    handler_ref = cand.handler_arg.ref if cand.handler_arg else None
    if handler_ref is not None:  # a migrated site hands on its parameter through an adapter
        handler_ref = matcher.build.handlers.adapted(handler_ref, cand.module, cand.scope) \
            or handler_ref
    handler_param = _param_source(handler_ref, params, func)
    point_param: Param | None = None
    stars = [a for a in cand.site.args if a.star == "*"]
    if cand.spec.point is not None and cand.spec.point.rest and stars:
        point_param = _param_source(stars[0].ref, params, func)
    elif len(cand.point_args) == 1:
        point_param = _param_source(cand.point_args[0].ref, params, func)
    if point_param is None and not cand.point_args and cand.spec.point is not None:
        point_spec_from_star = _through_star(cand, cand.spec.point, params, positional, func)
    else:
        point_spec_from_star = None
    receiver_param = None
    if cand.spec.kind == "function" and cand.spec.receiver is not None:
        pass  # a function-form registration already names its dispatcher argument
    elif cand.receiver is not None and "unresolved_receiver" in cand.flags:
        receiver_param = _param_source(cand.receiver, params, func)
    if handler_param is None and point_param is None and point_spec_from_star is None:
        return None
    if point_param is None and point_spec_from_star is None and cand.point_note is not None:
        # the point is found only as the helper runs (`for point in points: bus.on(point, h)`):
        # its callers' calls would be registrations on no point at all, so the site stays the
        # registration, with its dynamic point; unless the helper is a decorator factory's
        return _decorator_factory(cand, matcher, func, handler_param)
    if handler_param is None and not any(
        key == "point" for rule in cand.mechanism.classify for key, _ in rule.when
    ):
        return None
    if cand.handler.expr == NOT_GIVEN and handler_param is None:
        return None
    handler_spec = None
    fixed_handler = None
    if handler_param is not None:
        handler_spec = _spec_for(handler_param, positional)
        inner = cand.spec.handler
        if point_param is not None and point_param.kind == "vararg" and inner is not None and (
            inner.index is not None and inner.index < 0
        ):
            # the wrapped API takes a trailing positional handler from the same *args
            handler_spec = replace(handler_spec, index=inner.index, min_args=inner.min_args)
    else:
        fixed_handler = cand.handler
    point_spec = _spec_for(point_param, positional) if point_param is not None else point_spec_from_star
    default_point = None
    if point_param is not None and point_param.default is not None:
        # a caller that omits the argument registers on the parameter's default
        module, scope = index.function_scope(qn)
        parent = scope.rsplit(".", 1)[0] if "." in scope else ""
        values = matcher.ev.eval(point_param.default, module, parent)
        default_point = matcher.points.normalize_point(values, cand.mechanism).name
    return RegistrationForm(
        default_point=default_point,
        kind="function",
        name=qn,
        callables=(qn,),
        point=point_spec,
        handler=handler_spec,
        receiver=_spec_for(receiver_param, positional) if receiver_param is not None else None,
        fixed_point=None if point_spec is not None else cand.point,
        fixed_handler=fixed_handler,
        forwards=f"{cand.file}:{cand.line}",
        decorates_too=handler_param is not None and handler_param.default == ("const", "None"),
    )


def _decorator_factory(cand: Match, matcher: Matcher, inner: Function,
                       handler_param: Param | None) -> RegistrationForm | None:
    """``def on_hook(point): def wrap(fn): bus.on(point, fn); return fn; return wrap``: the
    registration's point is a parameter of the enclosing function, its handler the parameter of
    the function that function returns, so ``@on_hook(P)`` registers what it decorates on P."""
    index = matcher.ev.index
    outer_qn, _, name = f"{cand.module}.{cand.scope}".rpartition(".")
    outer = index.functions.get(outer_qn)
    if outer is None or handler_param is None or outer.kind != "function" or len(
            cand.point_args) != 1 or ("name", name) not in outer.return_values:
        return None
    positional = [p for p in inner.params if p.kind == "pos"]
    if positional[:1] != [handler_param] or len(positional) != 1:
        return None  # the decorated function is what the returned function is handed
    params = {p.name: p for p in outer.params if p.kind not in ("self", "cls")}
    point_param = _param_source(cand.point_args[0].ref, params, outer)
    if point_param is None or any(n == point_param.name for n, _ in inner.bindings):
        return None
    return RegistrationForm(
        kind="decorator",
        name=outer_qn,
        callables=(outer_qn,),
        point=_spec_for(point_param, [p for p in outer.params if p.kind == "pos"]),
        forwards=f"{cand.file}:{cand.line}",
    )
