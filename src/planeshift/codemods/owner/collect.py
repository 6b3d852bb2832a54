"""The error surface of a loop that collects every failure, then raises one as itself or several
as a group (ADR-0120 D2's COLLECT / AWAIT_ALL / UNWRAP_SINGLE_ELSE_GROUP, the message-manager
profiles)::

    errors = []                                   # (annotated or not) before the loop
    for cb in callbacks:
        try:
            ...                                   # the step
        except BaseException as exc:              # or `except Exception`: cancellations leave
            errors.append(exc)
    if errors:                                    # right after the loop
        raise_errors(errors)                      # a module function (below), or inline:
        # if len(errors) == 1:
        #     raise errors[0]
        # raise MyGroup("...", errors)

where ``raise_errors`` is a module-level function of one parameter that starts with
``if len(p) == 1: raise p[0]``, ends with a ``raise`` and returns nowhere (it never returns).
The kernel raises one failure as itself; for several it calls the owner's ``group`` hook, which
is the helper itself (``group=lambda errors: raise_errors(errors)``: what it raises leaves) or the
inline group's constructor. ``errors`` must be read nowhere else. Anything else is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from .idiom import Code, Refused
from .names import Resolver, reads_and_binds, statements


@dataclass
class Collected:
    name: str  # the list the clause appends to
    init: int  # index in the method body of the statement that binds it to []
    group: str  # source of the owner's `group` hook (a lambda)
    cancellation: str  # collect (except BaseException) | propagate (except Exception)
    seen: str


def _is_unwrap_single(stmt: cst.BaseStatement, name: str) -> bool:
    """``if len(name) == 1: raise name[0]`` and nothing else."""
    first = m.Raise(exc=m.Subscript(value=m.Name(name),
                                    slice=[m.SubscriptElement(m.Index(m.Integer("0")))]), cause=None)
    return m.matches(stmt, m.If(
        test=m.Comparison(left=m.Call(func=m.Name("len"), args=[m.Arg(m.Name(name))]),
                          comparisons=[m.ComparisonTarget(m.Equal(), m.Integer("1"))]),
        body=m.IndentedBlock(body=[m.SimpleStatementLine(body=[first])])
        | m.SimpleStatementSuite(body=[first]),
        orelse=None))


def _body_without_docstring(fn: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = statements(fn.body)
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        body = body[1:]
    return body


def _own_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    todo = list(node.children)
    while todo:
        current = todo.pop()
        out.append(current)
        if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            todo.extend(current.children)
    return out


class CollectReader:
    """Reads the collected-failure surface of the loop at ``body[index]``."""

    def __init__(self, body: Sequence[cst.BaseStatement], module: Sequence[cst.BaseStatement],
                 r: Resolver, code: Code, where: str) -> None:
        self.body, self.module, self.r, self.code, self.where = body, module, r, code, where

    def read(self, index: int, clause_try: cst.Try, name: str) -> Collected:
        cancellation = self._clause(clause_try, name)
        init = self._init(index, name)
        if index + 1 >= len(self.body):
            raise self._refused(name, "nothing after the loop raises them")
        surface = self.body[index + 1]
        group = self._surface(surface, name)
        others = [i for i, s in enumerate(self.body)
                  if i not in (init, index, index + 1) and name in reads_and_binds([s])[0] | reads_and_binds([s])[1]]
        if others:
            shown = " ".join(self.code(self.body[others[0]]).split())[:80]
            raise self._refused(name, f"`{shown}` uses the list too")
        seen = f"{self.where}: {name}.append(...); " + " ".join(self.code(surface).split())[:120]
        return Collected(name, init, group, cancellation, seen)

    def _refused(self, name: str, why: str) -> Refused:
        return Refused(f"error surface: {self.where} collects every failure into `{name}` and {why};"
                       " the owner codemods read a collected list raised right after the loop, one "
                       "failure as itself and several as a group (or by a module function that does "
                       "that), nothing else")

    def _clause(self, node: cst.Try, name: str) -> str:
        if node.orelse is not None or node.finalbody is not None or len(node.handlers) != 1:
            raise self._refused(name, "the handler's try has more than its one except clause")
        clause = node.handlers[0]
        caught = self.r.qualified(clause.type) if clause.type is not None else "BaseException"
        exc = clause.name.name.value if clause.name is not None and \
            isinstance(clause.name.name, cst.Name) else None
        body = statements(clause.body)
        appended = m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.Call(
            func=m.Attribute(value=m.Name(name), attr=m.Name("append")),
            args=[m.Arg(m.Name(exc or ""))]))])) if len(body) == 1 and exc else False
        if not appended:
            raise self._refused(name, "the except clause does more than append what it caught")
        if caught == "BaseException":
            return "collect"
        if caught == "Exception":
            return "propagate"
        raise Refused(f"failure: `except {self.code(clause.type).strip() if clause.type else ''}` "
                      f"({self.where}) collects only that class and lets every other failure "
                      "propagate: one failure value per stage cannot say both")

    def _init(self, index: int, name: str) -> int:
        binds = [i for i, s in enumerate(self.body[:index]) if name in reads_and_binds([s])[1]]
        if len(binds) != 1:
            raise self._refused(name, "it is not bound once before the loop")
        stmt = self.body[binds[0]]
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
            else None
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
        target = small.targets[0].target if isinstance(small, cst.Assign) and \
            len(small.targets) == 1 else small.target if isinstance(small, cst.AnnAssign) else None
        if not (isinstance(value, cst.List) and not value.elements and isinstance(target, cst.Name)
                and target.value == name):
            raise self._refused(name, f"`{self.code(stmt).strip()}` does not start it empty")
        if any(name in reads_and_binds([s])[0] for s in self.body[binds[0]:index]
               if s is not stmt):
            raise self._refused(name, "it is read before the loop")
        return binds[0]

    def _surface(self, stmt: cst.BaseStatement, name: str) -> str:
        if not (isinstance(stmt, cst.If) and m.matches(stmt.test, m.Name(name)) and stmt.orelse is None):
            raise self._refused(name, f"`{' '.join(self.code(stmt).split())[:80]}` follows the loop, "
                                f"not `if {name}:`")
        body = statements(stmt.body)
        if len(body) == 1:
            helper = self._helper_call(body[0], name)
            if helper is not None:
                return f"lambda {name}: {helper}({name})"
        if len(body) == 2 and _is_unwrap_single(body[0], name):
            last = body[1]
            raised = last.body[0] if isinstance(last, cst.SimpleStatementLine) and \
                len(last.body) == 1 and isinstance(last.body[0], cst.Raise) else None
            if raised is not None and isinstance(raised.exc, cst.Call) and raised.cause is None:
                return f"lambda {name}: {' '.join(self.code(raised.exc).split())}"
        raise self._refused(name, f"`if {name}:` raises them in a form not read")

    def _helper_call(self, stmt: cst.BaseStatement, name: str) -> str | None:
        if not m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(m.Call(
                func=m.Name(), args=[m.Arg(m.Name(name), keyword=None, star="")]))])):
            return None
        assert isinstance(stmt, cst.SimpleStatementLine)
        call = stmt.body[0].value  # type: ignore[attr-defined]
        helper = call.func.value
        defs = [s for s in self.module if isinstance(s, cst.FunctionDef) and s.name.value == helper]
        if len(defs) != 1:
            raise self._refused(name, f"`{helper}` is not one function of this module")
        fn = defs[0]
        params = fn.params
        if fn.asynchronous is not None or fn.decorators or len(params.params) != 1 or \
                params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or \
                params.star_kwarg or params.posonly_params:
            raise self._refused(name, f"`{helper}` is not a plain function of one parameter")
        param = params.params[0].name.value
        body = _body_without_docstring(fn)
        if not body or not _is_unwrap_single(body[0], param):
            raise self._refused(name, f"`{helper}` does not start with `if len({param}) == 1: "
                                f"raise {param}[0]`")
        if not m.matches(body[-1], m.SimpleStatementLine(body=[m.Raise(exc=m.DoNotCare())])) or \
                any(isinstance(n, (cst.Return, cst.Yield, cst.Await)) for n in _own_nodes(fn)):
            raise self._refused(name, f"`{helper}` may return instead of raising")
        return helper
