"""A synchronous dispatch method (a *sync entry*) read for the kernel's ``fan_out_sync``.

ADR-0120 D2: "A synchronous owner calls preflight_sync() before its domain mutation and later
supplies that immutable registration snapshot to emit_sync(). The message-manager profile
rejects a declared async callback during that preflight, so rejection remains before message
mutation." The owner codemods read the owner's own form of it (REJECT_DECLARED_ASYNC_BEFORE_
OWNER_EFFECT)::

    def add(self, item):
        snapshot = self._preflight()          # the method's first statement
        ...                                   # the owner's mutation
        self._fire(item, snapshot)            # or the fan-out loop itself, over `snapshot`

    def _preflight(self):
        snapshot = list(self._callbacks)      # a copy (see owner_snapshot)
        for cb in snapshot:
            if is_coro_func(cb):
                raise RuntimeError(...)       # the owner's own exception, kept
        return snapshot

    def _fire(self, item, snapshot):
        for cb in snapshot:                   # a sequential loop (owner_dispatch's forms)
            cb(item)                          # the one handler call, its result dropped

The preflight stays the owner's; the loop becomes ``fan_out_sync(policy, snapshot, step, ...)``.
A sync method in any other form is refused with what it lacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
import libcst.matchers as m

from .idiom import Code, Invocation, NoInvocation, Refused
from .names import IS_CORO_FUNC, Resolver, reads_and_binds, statements, target_names
from .read import FanOut, MethodReader
from .snapshot import Snapshots

_SYNC_CALL = {"handler_classification": "by_declaration", "sync_handlers": "inline",
              "returned_value_classifier": "not_inspected", "returned_awaitable": "discard_unawaited"}
_ADR = ("ADR-0120 D2 has a sync entry take its snapshot, and refuse a declared-async handler, "
        "before the owner's mutation")


class SyncIdiomReader:
    """The one handler call of a sync step: ``h(*args)`` as a statement, ``h`` the loop's entry."""

    def __init__(self, code: Code, call_name: str, handlers: set[str]) -> None:
        self.code, self.call_name, self.handlers = code, call_name, handlers

    def rewrite(self, stmts: Sequence[cst.BaseStatement], where: str
                ) -> tuple[list[cst.BaseStatement], Invocation]:
        out: list[cst.BaseStatement] = []
        found: list[Invocation] = []
        for stmt in stmts:
            call = _called_statement(stmt)
            if call is not None and isinstance(call.func, cst.Name) and \
                    call.func.value in self.handlers:
                found.append(Invocation(dict(_SYNC_CALL), f"{where}: {self.code(call)}"))
                new = cst.Call(func=cst.Name(self.call_name), args=[cst.Arg(call.func), *call.args])
                out.append(stmt.with_changes(body=[cst.Expr(new)]))  # type: ignore[union-attr]
                continue
            out.append(stmt)
        if not found:
            raise NoInvocation(f"{where}: no handler call `h(...)` as a statement of the sync step")
        if len(found) != 1:
            raise Refused(f"{where}: {len(found)} handler calls in one step; the kernel's step "
                          "calls one handler")
        uses = [n for s in out for n in m.findall(s, m.Name()) if isinstance(n, cst.Name)
                and n.value in self.handlers]
        if len(uses) != 1:
            raise Refused(f"handler invocation: {where}'s step uses its handler beside calling it")
        return out, found[0]


def _called_statement(stmt: cst.BaseStatement) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
            isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.Call):
        return stmt.body[0].value
    return None


def _own_body(fn: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = statements(fn.body)
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        return body[1:]
    return body


class SyncEntryReader:
    def __init__(self, method: cst.FunctionDef, cls: cst.ClassDef,
                 resolver_in: Callable[[cst.FunctionDef], Resolver], code: Code,
                 call_name: str, module: Sequence[cst.BaseStatement]) -> None:
        """*resolver_in(fn)*: the module's names with the imports *fn* makes itself."""
        self.method, self.cls, self.resolver_in, self.code = method, cls, resolver_in, code
        self.call_name, self.module = call_name, module
        self.where = f"{cls.name.value}.{method.name.value}"

    def read(self) -> FanOut:
        body = _own_body(self.method)
        snapshot = self._preflight(body)
        uses = [s for s in body[1:] if snapshot in reads_and_binds([s])[0]]
        if len(uses) != 1:
            raise Refused(f"sync entry: {self.where} uses its snapshot `{snapshot}` "
                          f"{len(uses)} times after taking it; the owner codemods read one fan-out "
                          "over it")
        use = uses[0]
        if isinstance(use, cst.For):
            host, over = self.method, snapshot
        else:
            host, over = self._helper(use, snapshot)
        loop = next((s for s in statements(host.body) if isinstance(s, cst.For)
                     and m.matches(s.iter, m.Name(over))), None)
        if loop is None:
            raise Refused(f"sync entry: {host.name.value} has no `for ... in {over}:` loop over "
                          f"{self.where}'s snapshot")
        first = body[0]
        if any(over in reads_and_binds([s])[1] for s in statements(host.body) if s is not first):
            raise Refused(f"sync entry: {host.name.value} binds `{over}` again before its fan-out")
        reader = MethodReader(host, self.cls, self.resolver_in(host), self.code, self.call_name,
                              module=self.module)
        idioms = SyncIdiomReader(self.code, self.call_name, target_names(loop.target))
        reader.idioms = idioms  # type: ignore[assignment]  # the same rewrite(), for a sync step
        reader.sync_host = True
        reader.entries_checked = True  # the snapshot the entry took (checked in _preflight)
        fan = reader.read()
        if not (isinstance(fan.entries, cst.Name) and fan.entries.value == over):
            raise Refused(f"sync entry: {reader.where} fans out over "
                          f"`{self.code(fan.entries).strip()}`, not {self.where}'s snapshot")
        fan.sync = True
        fan.host = host if host is not self.method else None
        fan.axes["sync_entry"] = "reject_declared_async_before_owner_effect"
        fan.notes.append(f"sync entry: {self.where} refuses a declared-async handler in its own "
                         "preflight before its mutation, then hands its snapshot to fan_out_sync")
        return fan

    def _preflight(self, body: list[cst.BaseStatement]) -> str:
        first = body[0] if body else None
        small = first.body[0] if isinstance(first, cst.SimpleStatementLine) and \
            len(first.body) == 1 else None
        call = small.value if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
            isinstance(small.targets[0].target, cst.Name) else None
        name = small.targets[0].target.value if call is not None else ""  # type: ignore[union-attr]
        method = self._own_method(call)
        if method is None or not self._rejects(method):
            shown = " ".join(self.code(first).split())[:80] if first is not None else "nothing"
            raise Refused(f"sync entry: {self.where} is synchronous and its first statement "
                          f"(`{shown}`) is not `snapshot = self.<preflight>()` over a method that "
                          f"raises for a declared-async handler; {_ADR}")
        assert call is not None
        Snapshots(self.method, self.cls, self.code).require(call, [], self.where)
        return name

    def _own_method(self, call: cst.BaseExpression | None) -> cst.FunctionDef | None:
        if not (isinstance(call, cst.Call) and not call.args and m.matches(
                call.func, m.Attribute(value=m.Name("self"), attr=m.Name()))):
            return None
        assert isinstance(call.func, cst.Attribute)
        found = [s for s in self.cls.body.body if isinstance(s, cst.FunctionDef)
                 and s.name.value == call.func.attr.value]
        return found[0] if len(found) == 1 and found[0].asynchronous is None else None

    def _rejects(self, method: cst.FunctionDef) -> bool:
        """The method returns one name, after a loop over it that raises for every handler a
        coroutine function (``if is_coro_func(cb): raise ...``) and does nothing else."""
        body = _own_body(method)
        returned = body[-1].body[0] if body and isinstance(body[-1], cst.SimpleStatementLine) \
            else None
        if not (isinstance(returned, cst.Return) and isinstance(returned.value, cst.Name)):
            return False
        name = returned.value.value
        for stmt in body:
            if not (isinstance(stmt, cst.For) and m.matches(stmt.iter, m.Name(name))
                    and isinstance(stmt.target, cst.Name) and stmt.orelse is None):
                continue
            inner = statements(stmt.body)
            branch = inner[0] if len(inner) == 1 and isinstance(inner[0], cst.If) else None
            if branch is None or branch.orelse is not None:
                continue
            checked = self.resolver_in(method).call_of(branch.test, IS_CORO_FUNC)
            raises = statements(branch.body)
            if checked is not None and len(checked.args) == 1 and \
                    m.matches(checked.args[0].value, m.Name(stmt.target.value)) and \
                    len(raises) == 1 and m.matches(raises[0], m.SimpleStatementLine(
                        body=[m.Raise(exc=m.DoNotCare())])):
                return True
        return False

    def _helper(self, use: cst.BaseStatement, snapshot: str) -> tuple[cst.FunctionDef, str]:
        call = _called_statement(use)
        if call is None or not m.matches(call.func, m.Attribute(value=m.Name("self"),
                                                                attr=m.Name())):
            raise Refused(f"sync entry: {self.where} hands its snapshot to "
                          f"`{' '.join(self.code(use).split())[:80]}`, not a loop or a call "
                          "`self.<method>(..., snapshot)` as a statement")
        assert isinstance(call.func, cst.Attribute)
        helper = call.func.attr.value
        found = [s for s in self.cls.body.body if isinstance(s, cst.FunctionDef)
                 and s.name.value == helper]
        if len(found) != 1 or found[0].asynchronous is not None or found[0].decorators:
            raise Refused(f"sync entry: `self.{helper}` is not one plain sync method of "
                          f"{self.cls.name.value}")
        fn = found[0]
        params = fn.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.star_kwarg or \
                params.posonly_params:
            raise Refused(f"sync entry: {helper}'s parameters are not plain")
        names = [p.name.value for p in params.params][1:]  # after self
        bound = None
        for index, arg in enumerate(call.args):
            if m.matches(arg.value, m.Name(snapshot)) and not arg.star:
                bound = arg.keyword.value if arg.keyword else (names[index] if index < len(names)
                                                               else None)
        if bound is None:
            raise Refused(f"sync entry: {self.where} does not hand `{snapshot}` to {helper} "
                          "as one plain argument")
        callers = [c for s in self.cls.body.body if isinstance(s, cst.FunctionDef)
                   for c in m.findall(s, m.Call(func=m.Attribute(value=m.Name("self"),
                                                                 attr=m.Name(helper))))]
        if len(callers) != 1:
            raise Refused(f"sync entry: {helper} is called {len(callers)} times in "
                          f"{self.cls.name.value}; rewriting it would change the other callers")
        return fn, bound


def hands_to_migrated(cls: cst.ClassDef, method: cst.FunctionDef,
                      migrated: Callable[[cst.FunctionDef], bool]) -> bool:
    """A sync entry whose fan-out, in a method of the class it calls, is the kernel's already."""
    if method.asynchronous is not None:
        return False
    called = {c.func.attr.value for c in m.findall(method, m.Call(
        func=m.Attribute(value=m.Name("self"), attr=m.Name())))
        if isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute)}
    return any(isinstance(s, cst.FunctionDef) and s.name.value in called and migrated(s)
               for s in cls.body.body)
