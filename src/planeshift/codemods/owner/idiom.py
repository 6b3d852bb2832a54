"""The handler invocation inside a dispatch loop's step, and the kernel ``call`` that replaces it.

A step calls its handler in one of the forms the analyzer reads (ADR-0120 D2's classification,
returned-value classifier, returned-awaitable disposition and sync-handler mode), and the form is
what the kernel's ``call(handler, *args)`` must reproduce:

- ``await maybe_await(h(*args))``: by returned value, ``inspect.isawaitable``, awaited inline;
- ``r = h(*args)`` then ``if asyncio.iscoroutine(r): await r`` (or ``inspect.isawaitable``);
- ``if is_coro_func(h): await h(*args) else: <sync>``: by declaration, where ``<sync>`` calls the
  handler inline or offloads it (``anyio.to_thread.run_sync(h, *args, abandon_on_cancel=True)``,
  ``asyncio.to_thread(h, *args)``), awaiting (``maybe_await``) or dropping what it returns.

Any other form is refused with what it is: ``await h(x)`` fails on a sync handler's result, a
dropped ``h(x)`` never runs a coroutine function's body, a thread waited for on cancellation
cannot be abandoned at a deadline. Exactly one invocation per step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from .names import (
    ANYIO_RUN_SYNC,
    CLASSIFIERS,
    IS_CORO_FUNC,
    MAYBE_AWAIT,
    TO_THREAD,
    Resolver,
)

Code = Callable[[cst.CSTNode], str]
FORMS = ("await maybe_await(h(...)); h(...) then await when asyncio.iscoroutine or "
         "inspect.isawaitable; is_coro_func(h) branches whose sync branch runs inline or offloaded")


class Refused(Exception):
    """The owner is left as it is; the message says which axis or behaviour the kernels cannot
    reproduce, and where."""


class NoInvocation(Refused):
    """The statements hold no handler invocation in a form the kernels reproduce."""


@dataclass
class Invocation:
    axes: dict[str, str] = field(default_factory=dict)
    seen: str = ""  # the code read, for the report
    offload: str = ""  # the owner's own offload, as the kernel's `offload=` (a one-argument call)


def _call(call_name: str, handler: cst.BaseExpression, args: Sequence[cst.Arg]) -> cst.Await:
    return cst.Await(cst.Call(func=cst.Name(call_name), args=[cst.Arg(handler), *args]))


def _inner_call(node: cst.BaseExpression | None) -> cst.Call | None:
    return node if isinstance(node, cst.Call) else None


class _MaybeAwait(cst.CSTTransformer):
    """``await maybe_await(h(...))`` -> ``await call(h, ...)``, outside nested functions."""

    def __init__(self, resolver: Resolver, call_name: str, code: Code) -> None:
        self.resolver, self.call_name, self.code = resolver, call_name, code
        self.found: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Await(self, original: cst.Await, updated: cst.Await) -> cst.BaseExpression:
        outer = self.resolver.call_of(updated.expression, MAYBE_AWAIT)
        if outer is None or len(outer.args) != 1 or outer.args[0].star:
            return updated
        inner = _inner_call(outer.args[0].value)
        if inner is None or self.resolver.call_of(inner, MAYBE_AWAIT | ANYIO_RUN_SYNC | TO_THREAD):
            return updated
        self.found.append(self.code(original))
        return _call(self.call_name, inner.func, inner.args).with_changes(
            lpar=updated.lpar, rpar=updated.rpar)


def _expr_of(stmt: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
            and isinstance(stmt.body[0], cst.Expr):
        return stmt.body[0].value
    return None


def _statement(expr: cst.BaseExpression, like: cst.BaseStatement) -> cst.SimpleStatementLine:
    leading = like.leading_lines if isinstance(like, (cst.SimpleStatementLine, cst.If)) else ()
    return cst.SimpleStatementLine(body=[cst.Expr(expr)], leading_lines=leading)


def _same(code: Code, a: cst.CSTNode, b: cst.CSTNode) -> bool:
    return code(a).strip() == code(b).strip()


class IdiomReader:
    """Finds the one handler invocation in a step's statements and rewrites it into ``call``."""

    def __init__(self, resolver: Resolver, code: Code, call_name: str) -> None:
        self.r, self.code, self.call_name = resolver, code, call_name
        self.offload = ""  # the last offload call read (_offload), handed to its Invocation

    def rewrite(self, stmts: Sequence[cst.BaseStatement], where: str
                ) -> tuple[list[cst.BaseStatement], Invocation]:
        found: list[Invocation] = []
        out: list[cst.BaseStatement] = []
        index = 0
        while index < len(stmts):
            stmt = stmts[index]
            declared = self._by_declaration(stmt)
            if declared is not None:
                new, inv = declared
                out.append(new)
                found.append(inv)
                index += 1
                continue
            pair = self._checked_pair(stmts, index)
            if pair is not None:
                new, inv = pair
                out.append(new)
                found.append(inv)
                index += 2
                continue
            out.append(stmt)
            index += 1
        transformer = _MaybeAwait(self.r, self.call_name, self.code)
        out = [cast(cst.BaseStatement, s.visit(transformer)) for s in out]
        found += [Invocation(_BY_VALUE | {"returned_value_classifier": "inspect_awaitable"}, seen)
                  for seen in transformer.found]
        if not found:
            raise NoInvocation(f"{where}: no handler invocation in one of the forms the kernels "
                               f"reproduce ({FORMS})")
        if len(found) != 1:
            raise Refused(f"{where}: {len(found)} handler invocations in one step; the kernel's "
                          "step calls one handler")
        return out, found[0]

    # -- r = h(...); if asyncio.iscoroutine(r): await r ----------------------------------------

    def _checked_pair(self, stmts: Sequence[cst.BaseStatement], index: int
                      ) -> tuple[cst.BaseStatement, Invocation] | None:
        if index + 1 >= len(stmts):
            return None
        first, second = stmts[index], stmts[index + 1]
        if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                and isinstance(first.body[0], cst.Assign) and len(first.body[0].targets) == 1):
            return None
        assign = first.body[0]
        result = assign.targets[0].target
        call = _inner_call(assign.value)
        if not isinstance(result, cst.Name) or call is None:
            return None
        if not (isinstance(second, cst.If) and second.orelse is None
                and isinstance(second.test, cst.Call) and len(second.test.args) == 1):
            return None
        classifier = CLASSIFIERS.get(self.r.qualified(second.test.func) or "")
        arg = second.test.args[0].value
        body = second.body.body
        awaited = _expr_of(body[0]) if len(body) == 1 and isinstance(body[0], cst.BaseStatement) \
            else None
        if classifier is None or not (isinstance(arg, cst.Name) and arg.value == result.value):
            return None
        if not (isinstance(awaited, cst.Await) and isinstance(awaited.expression, cst.Name)
                and awaited.expression.value == result.value):
            return None
        seen = f"{self.code(first).strip()}; {self.code(second.test)}: await {result.value}"
        inv = Invocation(_BY_VALUE | {"returned_value_classifier": classifier}, seen)
        return _statement(_call(self.call_name, call.func, call.args), first), inv

    # -- if is_coro_func(h): await h(...) else: <sync> --------------------------------------

    def _by_declaration(self, stmt: cst.BaseStatement
                        ) -> tuple[cst.BaseStatement, Invocation] | None:
        if not (isinstance(stmt, cst.If) and isinstance(stmt.orelse, cst.Else)
                and self.r.call_of(stmt.test, IS_CORO_FUNC) is not None):
            return None
        test = stmt.test
        assert isinstance(test, cst.Call)
        if len(test.args) != 1:
            return None
        handler = test.args[0].value
        async_branch = self._single(stmt.body)
        sync_branch = self._single(stmt.orelse.body)
        if async_branch is None or sync_branch is None:
            return None
        called = self._awaited_call(async_branch, handler)
        if called is None:
            return None
        self.offload = ""
        sync = self._sync_branch(sync_branch, handler, called)
        if sync is None:
            raise Refused(
                f"the sync branch of `if {self.code(test)}` ({self.code(sync_branch).strip()}) is "
                "not one the kernels reproduce: an inline call, `await maybe_await(h(...))`, or an "
                "offload that abandons its thread on cancellation")
        seen = f"if {self.code(test)}: {self.code(async_branch).strip()} else: " \
               f"{self.code(sync_branch).strip()}"
        return (_statement(_call(self.call_name, handler, called.args), stmt),
                Invocation(sync, seen, self.offload))

    @staticmethod
    def _single(block: cst.BaseSuite) -> cst.BaseExpression | None:
        body = block.body
        if len(body) != 1:
            return None
        only = body[0]
        if isinstance(only, cst.BaseStatement):
            return _expr_of(only)
        return only.value if isinstance(only, cst.Expr) else None

    def _awaited_call(self, expr: cst.BaseExpression, handler: cst.BaseExpression) -> cst.Call | None:
        """``await h(...)`` or ``await maybe_await(h(...))``: the call of *handler*."""
        if not isinstance(expr, cst.Await):
            return None
        inner = _inner_call(expr.expression)
        if inner is not None and self.r.call_of(inner, MAYBE_AWAIT) and len(inner.args) == 1:
            inner = _inner_call(inner.args[0].value)
        if inner is None or not _same(self.code, inner.func, handler):
            return None
        return inner

    def _sync_branch(self, expr: cst.BaseExpression, handler: cst.BaseExpression,
                     called: cst.Call) -> dict[str, str] | None:
        def same_args(args: Sequence[cst.Arg]) -> bool:
            return [self.code(a.value) for a in args] == [self.code(a.value) for a in called.args] \
                and [(a.star, a.keyword and a.keyword.value) for a in args] == \
                [(a.star, a.keyword and a.keyword.value) for a in called.args]

        awaited = False
        if isinstance(expr, cst.Await):
            outer = self.r.call_of(expr.expression, MAYBE_AWAIT)
            if outer is None or len(outer.args) != 1:
                offload = self._offload(expr.expression, handler, same_args)
                return None if offload is None else {**offload, **_DROPPED}
            expr, awaited = outer.args[0].value, True
        returned = {"returned_value_classifier": "inspect_awaitable",
                    "returned_awaitable": "await_in_invocation"} if awaited else dict(_DROPPED)
        direct = _inner_call(expr)
        if direct is not None and _same(self.code, direct.func, handler) and same_args(direct.args):
            return {**_BY_DECLARATION, "sync_handlers": "inline", **returned}
        if isinstance(expr, cst.Await):
            offload = self._offload(expr.expression, handler, same_args)
            return None if offload is None else {**offload, **returned}
        return None

    def _offload(self, expr: cst.BaseExpression, handler: cst.BaseExpression,
                 same_args: Callable[[Sequence[cst.Arg]], bool]) -> dict[str, str] | None:
        call = _inner_call(expr)
        if call is None or not call.args or not _same(self.code, call.args[0].value, handler):
            return None
        rest = list(call.args[1:])
        if self.r.call_of(call, ANYIO_RUN_SYNC) is not None:
            abandon = [a for a in rest if a.keyword and a.keyword.value == "abandon_on_cancel"]
            if len(abandon) != 1 or self.code(abandon[0].value).strip() != "True":
                raise Refused(
                    f"sync handlers: `{self.code(call)}` waits for the handler's thread when the "
                    "emit is cancelled (abandon_on_cancel is not True); the kernel's offload "
                    "abandons it, as ADR-0120 D2's TerminalCallback profile pins")
            rest = [a for a in rest if a is not abandon[0]]
            offload = f"lambda fn: {self.code(call.func).strip()}(fn, abandon_on_cancel=True)"
        elif self.r.call_of(call, TO_THREAD) is not None:
            offload = self.code(call.func).strip()  # to_thread(fn) runs the bound handler
        else:
            return None
        if not same_args(rest):
            return None
        self.offload = offload  # the owner's worker threads, not the kernel's own
        return {**_BY_DECLARATION, "sync_handlers": "offload"}


_BY_VALUE = {"handler_classification": "by_return_value", "sync_handlers": "inline",
             "returned_awaitable": "await_in_invocation"}
_BY_DECLARATION = {"handler_classification": "by_declaration"}
_DROPPED = {"returned_value_classifier": "not_inspected", "returned_awaitable": "discard_unawaited"}
