"""Handler facts: what a registered callable is, whether it is declared async, and whether a call
to it can return an awaitable although it is declared sync (the DISCARD_UNAWAITED hazard).

A registration `planeshift migrate` rewrote hands an owner that reads declarations its typed
registration, ``Subscription(name=..., policy=..., handler=h)`` (or, written by earlier
releases, through a kernels adapter, ``as_subscriber(Subscription(...))``, which returns ``h``
itself): its facts are ``h``'s, so a migrated site reads as it did before the rewrite. A handler
that may be None is rewritten in the optional form, ``optional(h, lambda handler:
as_subscriber(Subscription(..., handler=handler)))``, which hands on None or ``h`` itself: its
facts are ``h``'s too (kind, qualified name, None among its values, declared async).
"""

from __future__ import annotations

from dataclasses import replace

from ....types import Handler
from ...extract.facts import Ref
from ..evaluate.engine import Evaluator
from ..evaluate.values import Value, Values, untyped
from .effects import Effects

AWAITABLE_FACTORIES = {
    "asyncio.create_task", "asyncio.ensure_future", "asyncio.gather", "asyncio.sleep",
    "asyncio.wait_for", "asyncio.shield", "asyncio.to_thread", "asyncio.run_coroutine_threadsafe",
}
AWAITABLE_ANNOTATIONS = ("Awaitable", "Coroutine", "Future", "Task")
NONE = ("const", "None")
ADAPTERS = frozenset({"as_interceptor", "as_subscriber", "as_sink"})  # of a kernels `adapters`
OPTIONAL = "optional"  # of a kernels `adapters`: optional(value, register)
TYPED = frozenset({"Subscription", "SinkRegistration", "InterceptorRegistration"})


class HandlerResolver:
    """Turns a handler expression into :class:`Handler` facts using the evaluator."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.ev = evaluator
        # function name -> the modules defining a function of that name, one entry per file
        # (set by the linker from every file's summary, the context's included)
        self.definers: dict[str, tuple[str, ...]] = {}
        self.effects = Effects(evaluator)

    def with_effects(self, handler: Handler) -> Handler:
        """*handler* with what its body does (read only for a mechanism whose rules ask)."""
        if handler.qualname is None or handler.kind not in ("function", "method", "partial",
                                                            "instance"):
            return handler
        return replace(handler, effects=self.effects.of(handler.qualname))

    def resolve(self, ref: Ref, text: str, module: str, scope: str) -> Handler:
        ref = self.adapted(ref, module, scope) or ref
        values = self.ev.eval(ref, module, scope)
        handler = self.from_values(values, text)
        if handler.kind == "unknown" and ref[0] == "attr":
            named = self.by_name(ref, module, scope)
            if named is not None:
                kind, qualname, is_async, returns = self._function("method", named)
                handler = Handler(text, qualname, is_async, returns, kind, by_name=True)
        return replace(handler, may_be_none=True) if self.gives_none(ref, module, scope) \
            else handler

    def by_name(self, ref: Ref, module: str, scope: str) -> str | None:
        """``x.meth`` where ``x`` has no type (an ``Any`` parameter, say): the one method named
        ``meth`` in view, when no other function anywhere has that name; else None."""
        name = ref[2]
        self.ev.index.note(("defined", name))  # another definition anywhere changes the answer
        definers = self.definers.get(name, ())
        if len(definers) != 1:
            return None
        if not untyped(self.ev.eval(ref[1], module, scope)):
            return None
        facts = self.ev.index.modules.get(definers[0])
        found = [f for f in facts.functions if f.name == name] if facts is not None else []
        if len(found) != 1 or found[0].kind not in ("method", "classmethod", "staticmethod"):
            return None
        return f"{definers[0]}.{found[0].qualname}"

    def from_values(self, values: Values, text: str) -> Handler:
        found = [self._describe(v) for v in sorted(values, key=repr)]
        known = [h for h in found if h[0] != "unknown"] or found
        if len(known) == 1 or len({h[1:] for h in known}) == 1:
            kind, qualname, is_async, returns = known[0]
            return Handler(text, qualname, is_async, returns, kind)
        # several possible handlers (a conditional expression, an `or` default): agree or say None
        asyncs = {h[2] for h in known}
        awaitables = {h[3] for h in known}
        return Handler(
            text,
            None,
            asyncs.pop() if len(asyncs) == 1 else None,
            awaitables.pop() if len(awaitables) == 1 else (True if True in awaitables else None),
            "several",
            tuple(sorted({h[1] for h in known if h[1]})),
        )

    def adapted(self, ref: Ref, module: str, scope: str) -> Ref | None:
        """``h`` of ``as_X(<typed registration>(..., handler=h))``, an adapter of a kernels
        ``adapters`` module around a ``*Registration`` or ``Subscription``, or of its optional
        form ``optional(h, lambda p: as_X(<typed registration>(..., handler=p)))``; else None."""
        if ref[0] == "call" and len(ref[2]) == 2 and not ref[3] and ref[2][1][0] == "lambda":
            _, body, params, *_ = ref[2][1]
            inner = self.adapted(body, module, scope) if len(params) == 1 else None
            if inner is None or not _reads(inner, ("name", params[0])) or not any(
                    _adapter(v, OPTIONAL) for v in self.ev.eval(ref[1], module, scope)):
                return None
            # the parameter stands for the value (`handler=scheduling(p)` after --convert-discard
            # reads as `scheduling(h)`, as it does in a typed registration without optional)
            return _substitute(inner, ("name", params[0]), ref[2][0])
        direct = self._typed(ref, module, scope)
        if direct is not None:
            return direct
        if ref[0] != "call" or len(ref[2]) != 1 or ref[3] or ref[2][0][0] != "call":
            return None
        inner = ref[2][0]
        handler = next((r for key, r in inner[3] if key == "handler"), None)
        if handler is None or not any(_adapter(v) for v in self.ev.eval(ref[1], module, scope)):
            return None
        made = {_dotted_tail(v) for v in self.ev.eval(inner[1], module, scope)}
        typed = any(n.endswith("Registration") or n == "Subscription" for n in made if n)
        return handler if typed else None

    def _typed(self, ref: Ref, module: str, scope: str) -> Ref | None:
        """``h`` of a typed registration handed to its owner itself, ``Subscription(...,
        handler=h)`` (a call site `migrate` rewrote for an owner that reads declarations)."""
        if ref[0] != "call" or ref[2] or not ref[3]:
            return None
        handler = next((r for key, r in ref[3] if key == "handler"), None)
        if handler is None:
            return None
        made = {_dotted_tail(v) for v in self.ev.eval(ref[1], module, scope)}
        return handler if made & TYPED else None

    def gives_none(self, ref: Ref, module: str, scope: str, depth: int = 0) -> bool:
        """The expression itself may be None: ``h if c else None``, or a call of a function
        that returns None (or such an alternative) on a path. The evaluator leaves None out of
        alternatives (a receiver's methods are called on its other values), and a name is not
        followed to its binding here: ``h = make(); if h is None: return`` guards it."""
        if ref == NONE:
            return True
        if ref[0] == "either":
            return any(self.gives_none(r, module, scope, depth) for r in ref[1])
        if ref[0] != "call" or depth > 3:
            return False
        for callee in self.ev.eval(ref[1], module, scope):
            qn = callee[1] if callee[0] == "func" else (
                self.ev.method(callee[1], callee[2]) if callee[0] == "bound" else None)
            func = self.ev.index.functions.get(qn) if qn else None
            if qn and func is not None:
                where = self.ev.index.function_scope(qn)
                if any(self.gives_none(r, *where, depth + 1) for r in func.return_values):
                    return True
        return False

    def _describe(self, value: Value) -> tuple[str, str | None, bool | None, bool | None]:
        kind = value[0]
        if kind == "func":
            return self._function("function", value[1])
        if kind == "bound":
            qn = self.ev.method(value[1], value[2])
            if qn is None:
                return ("method", f"{value[1]}.{value[2]}", None, None)
            return self._function("method", qn)
        if kind == "lambda":
            _, module, scope, body, _params = value
            returns = self.is_awaitable_expr(body, module, scope)
            return ("lambda", None, False, returns)
        if kind == "partial":
            inner = self._describe(value[1])
            return ("partial", inner[1], inner[2], inner[3])
        if kind == "inst":
            qn = self.ev.method(value[1], "__call__")
            if qn is not None:
                return self._function("instance", qn)
            return ("instance", value[1], None, None)
        if kind == "cls":
            return ("class", value[1], False, False)
        if kind in ("ext", "extcall"):
            return ("external", value[1], None, None)
        return ("unknown", None, None, None)

    def _function(self, kind: str, qn: str) -> tuple[str, str | None, bool | None, bool | None]:
        func = self.ev.index.functions.get(qn)
        if func is None:
            return (kind, qn, None, None)
        if func.is_async:
            return (kind, qn, not func.is_generator, not func.is_generator)
        return (kind, qn, False, self.function_returns_awaitable(qn))

    def function_returns_awaitable(self, qn: str, depth: int = 0) -> bool:
        """A sync function that returns a coroutine call, a task, or is annotated as awaitable."""
        func = self.ev.index.functions.get(qn)
        if func is None or depth > 3:
            return False
        if func.is_async:
            return not func.is_generator
        if func.returns is not None and _mentions(func.returns, AWAITABLE_ANNOTATIONS):
            return True
        module, scope = self.ev.index.function_scope(qn)
        return any(self.is_awaitable_expr(r, module, scope, depth + 1) for r in func.return_values)

    def is_awaitable_expr(self, ref: Ref, module: str, scope: str, depth: int = 0) -> bool:
        """Does evaluating *ref* produce an awaitable (a coroutine object, task or future)?"""
        if ref[0] == "either":
            return any(self.is_awaitable_expr(r, module, scope, depth) for r in ref[1])
        if ref[0] != "call":
            return False
        for callee in self.ev.eval(ref[1], module, scope):
            kind = callee[0]
            if kind == "func" and self._call_is_awaitable(callee[1], depth):
                return True
            if kind == "bound":
                qn = self.ev.method(callee[1], callee[2])
                if qn is not None and self._call_is_awaitable(qn, depth):
                    return True
            if kind == "ext" and callee[1] in AWAITABLE_FACTORIES:
                return True
        return False

    def _call_is_awaitable(self, qn: str, depth: int) -> bool:
        func = self.ev.index.functions.get(qn)
        if func is None:
            return False
        if func.is_async:
            return not func.is_generator
        return self.function_returns_awaitable(qn, depth + 1)


def _reads(ref: tuple, name: Ref) -> bool:
    """*ref* (or a tuple of refs) reads *name*, outside any lambda of its own."""
    if ref == name:
        return True
    if ref and ref[0] == "lambda":
        return False
    return any(isinstance(r, tuple) and _reads(r, name) for r in ref)


def _substitute(ref: tuple, name: Ref, value: Ref) -> tuple:
    """*ref* (or a tuple of refs) with *name* read as *value*, outside any lambda of its own."""
    if ref == name:
        return value
    if ref and ref[0] == "lambda":
        return ref  # its own parameters may shadow the name
    return tuple(_substitute(r, name, value) if isinstance(r, tuple) else r for r in ref)


def _dotted_tail(value: Value) -> str | None:
    """The last name of a class or function value (a project one, or an external name)."""
    return value[1].rsplit(".", 1)[-1] if value[0] in ("cls", "func", "ext") else None


def _adapter(value: Value, names: frozenset[str] | str = ADAPTERS) -> bool:
    parts = value[1].rsplit(".", 2) if value[0] in ("func", "ext") else []
    return len(parts) == 3 and parts[1] == "adapters" and parts[2] in (
        (names,) if isinstance(names, str) else names)


def _mentions(ref: Ref, names: tuple[str, ...]) -> bool:
    if ref[0] == "name":
        return ref[1] in names
    if ref[0] == "attr":
        return ref[2] in names
    if ref[0] in ("sub", "await"):
        return _mentions(ref[1], names)
    if ref[0] == "either":
        return any(_mentions(r, names) for r in ref[1])
    return False
