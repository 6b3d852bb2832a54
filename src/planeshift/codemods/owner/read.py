"""Reads the fan-out of one dispatch method: which loop shape it is, what it runs over, its step.

Three shapes, each a statement of the method's own body, optionally inside one shared deadline
(``with move_on_after(d):`` silent, ``with fail_after(d):`` / ``async with asyncio.timeout(d):``
raising):

- a sequential ``for entry in entries:`` whose body is the step (in a per-handler ``try`` or not);
- an anyio / lionagi task group, ``for entry in entries: tg.start_soon(step, entry)``, where
  ``step`` is a nested ``async def`` of the method;
- ``raw = await gather(*(step(e) for e in entries), return_exceptions=True)`` over a nested
  ``async def step``, followed by code that raises the failures as a group and translates a
  handler's cancellation (see ``owner_gather``).

``entries`` must be a snapshot the method takes (a copy, a comprehension, a local list), since
the kernel runs over the list it is handed when the fan-out starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from .clauses import Collects, Failure, clause_reads_step_locals, read_failure
from .collect import Collected, CollectReader
from .gather import GatherPost, read_post
from .idiom import FORMS, Code, IdiomReader, Invocation, NoInvocation, Refused
from .names import (
    ASYNCIO_TASK_GROUP,
    FAIL_AFTER,
    GATHER,
    MOVE_ON,
    TASK_GROUPS,
    Resolver,
    leaves_loop,
    reads_and_binds,
    statements,
    target_names,
)
from .partition import Partition, PartitionReader
from .snapshot import Snapshots
from .stops import Stop, split_stop


@dataclass
class FanOut:
    kind: str  # loop | task_group | gather | partition
    start: int  # the method-body statements [start, end) the kernel call replaces
    end: int
    entries: cst.BaseExpression
    target: cst.BaseExpression  # the entry's name (or tuple of names) inside the step
    step_body: list[cst.BaseStatement]  # the step's statements, its invocation rewritten
    invocation: Invocation
    failure: Failure
    axes: dict[str, str] = field(default_factory=dict)
    deadline: cst.BaseExpression | None = None
    step_def: int | None = None  # index in the method body of the nested step def it rewrites
    post: GatherPost | None = None
    notes: list[str] = field(default_factory=list)
    stop: Stop | None = None  # ``except <Type>: break``: the kernel's stop signal
    collected: Collected | None = None  # the failures collected and raised after the loop
    sync: bool = False  # a sync entry's fan-out: fan_out_sync
    host: cst.FunctionDef | None = None  # the method holding the loop, when not the entry's own
    partition: Partition | None = None  # a loop keeping its awaitables for one gather after


class MethodReader:
    """One dispatch method of an owner class, read into a FanOut or refused."""

    def __init__(self, method: cst.FunctionDef, cls: cst.ClassDef, resolver: Resolver, code: Code,
                 call_name: str, module: Sequence[cst.BaseStatement] = ()) -> None:
        self.method, self.cls, self.r, self.code = method, cls, resolver, code
        self.module = module  # the module's statements (a collected surface's helper is there)
        self.sync_host = False  # a sync method read for a sync entry (owner_sync_entry)
        self.entries_checked = False  # the entries are a snapshot the sync entry took
        self.idioms = IdiomReader(resolver, code, call_name)
        self.where = f"{cls.name.value}.{method.name.value}"
        body = method.body
        self.body: list[cst.BaseStatement] = list(body.body) if isinstance(body, cst.IndentedBlock) \
            else []

    def read(self) -> FanOut:
        if self.method.asynchronous is None and not self.sync_host:
            raise Refused(f"sync entry: {self.where} is synchronous; the owner codemods rewrite "
                          "async dispatch loops (the kernels' sync entry is FanoutDispatcher."
                          "emit_sync, whose snapshot the owner must take before its mutation)")
        found = []
        for index, stmt in enumerate(self.body):
            fan = self._at(index, stmt)
            if fan is not None:
                found.append(fan)
        if len(found) != 1:
            raise Refused(self._none_reason() if not found else
                          f"concurrency: {self.where} fans out {len(found)} times")
        fan = found[0]
        self._check_step(fan)
        return fan

    # -- the shapes ---------------------------------------------------------------------------

    def _at(self, index: int, stmt: cst.BaseStatement) -> FanOut | None:
        deadline, inner, disposition = self._deadline(stmt)
        fan = self._partition(index, inner) or self._loop(index, inner) or \
            self._task_group(index, inner) or self._gather(index, inner)
        if fan is None:
            return None
        if deadline is not None:
            if fan.kind == "gather":
                raise Refused(f"deadline: a deadline around {self.where}'s gather leaves its "
                              "results unbound when it expires")
            fan.deadline = deadline
            fan.axes.update(deadline="shared", deadline_disposition=disposition)
        else:
            fan.axes.update(deadline="none", deadline_disposition="none")
        return fan

    def _deadline(self, stmt: cst.BaseStatement
                  ) -> tuple[cst.BaseExpression | None, cst.BaseStatement, str]:
        if not (isinstance(stmt, cst.With) and len(stmt.items) == 1):
            return None, stmt, ""
        call = stmt.items[0].item
        if not isinstance(call, cst.Call) or len(call.args) != 1 or stmt.items[0].asname:
            return None, stmt, ""
        if self.r.is_(call.func, MOVE_ON) and stmt.asynchronous is None:
            disposition = "silent_stop"
        elif self.r.is_(call.func, FAIL_AFTER):
            disposition = "raise"
        else:
            return None, stmt, ""
        inner = stmt.body.body
        if len(inner) != 1 or not isinstance(inner[0], cst.BaseStatement):
            raise Refused(f"deadline: {self.where}'s deadline block holds more than the fan-out")
        return call.args[0].value, inner[0], disposition

    def _partition(self, index: int, stmt: cst.BaseStatement) -> FanOut | None:
        if stmt is not self.body[index]:  # inside a deadline block: not this shape
            return None
        read = PartitionReader(self.body, self.r, self.code, self.idioms.call_name,
                               self.where).read(index)
        if read is None:
            return None
        return FanOut("partition", read.start, read.end, cst.Name("_entries"),
                      cst.parse_expression(read.target), [cst.parse_statement(read.step)],
                      read.invocation, read.failure,
                      {"concurrency": "sequential", "handler_cancellation": "propagate"},
                      partition=read.partition)

    def _loop(self, index: int, stmt: cst.BaseStatement) -> FanOut | None:
        if not isinstance(stmt, cst.For) or stmt.asynchronous is not None:
            return None
        body = statements(stmt.body)
        prefix, only_try = _split_try(body)
        step = [*prefix, *statements(only_try.body)] if only_try is not None else body
        try:
            new, invocation = self.idioms.rewrite(step, self.where)
        except NoInvocation:
            return None  # not a loop over handlers (or one in a form _none_reason names)
        if stmt.orelse is not None:
            raise Refused(f"{self.where}: the dispatch loop has an else clause")
        only_try, stop = split_stop(only_try, self.r, self.code, self.where)
        collected = None
        try:
            failure = read_failure(only_try, self.r, self.code, self.where)
        except Collects as collects:
            if not self.module or only_try is None:
                raise Refused(self._collected_surface(index, collects.name)) from None
            collected = CollectReader(self.body, self.module, self.r, self.code,
                                      self.where).read(index, only_try, collects.name)
            failure = Failure("collect", seen=collected.seen)
        failure.hook = [*prefix, *failure.hook] if failure.has_hook else failure.hook
        leaving = leaves_loop(step)
        if leaving is not None:
            raise Refused(f"completion: `{self.code(leaving).strip()}` in {self.where}'s loop "
                          "body leaves the loop, which the kernel's step cannot")
        axes = {"concurrency": "sequential", "handler_cancellation": "propagate"}
        if collected is not None:
            if stop is not None:
                raise Refused(f"failure: {self.where} stops at `{stop.seen}` and collects the "
                              "other failures: the owner codemods read one or the other")
            axes["handler_cancellation"] = collected.cancellation
            return FanOut("loop", index, index + 2, stmt.iter, stmt.target, new, invocation,
                          failure, axes, collected=collected)
        fan = FanOut("loop", index, index + 1, stmt.iter, stmt.target, new, invocation,
                     failure, axes, stop=stop)
        if failure.reraises:
            fan.notes.append(f"failure: isolate, except what `{failure.seen.splitlines()[0]}` "
                             "re-raises: the owner's failed hook re-raises it inside the kernel's "
                             "except, and it leaves the fan-out with the later entries not started")
        if stop is not None:
            fan.notes.append(f"stop: `{stop.seen}` is the kernel's stop signal "
                             f"(fan_out(stop={stop.source}))")
        return fan

    def _task_group(self, index: int, stmt: cst.BaseStatement) -> FanOut | None:
        if not (isinstance(stmt, cst.With) and stmt.asynchronous is not None
                and len(stmt.items) == 1 and isinstance(stmt.items[0].item, cst.Call)):
            return None
        opener = stmt.items[0].item
        if self.r.is_(opener.func, ASYNCIO_TASK_GROUP):
            raise Refused(f"handler cancellation: {self.where} runs its handlers in an asyncio."
                          "TaskGroup, which lets a handler's own cancellation end that handler "
                          "alone: no HandlerCancellation value says that")
        if not self.r.is_(opener.func, TASK_GROUPS):
            return None
        group = stmt.items[0].asname
        inner = stmt.body.body
        loop = inner[0] if len(inner) == 1 else None
        if not (group is not None and isinstance(group.name, cst.Name) and isinstance(loop, cst.For)
                and len(loop.body.body) == 1):
            raise Refused(f"concurrency: {self.where}'s task group holds more than "
                          "`for entry in entries: tg.start_soon(step, entry)`")
        start = loop.body.body[0]
        call = start.body[0].value if isinstance(start, cst.SimpleStatementLine) and \
            isinstance(start.body[0], cst.Expr) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name) and call.func.value.value == group.name.value
                and call.func.attr.value == "start_soon" and len(call.args) == 2
                and isinstance(loop.target, cst.Name)
                and self.code(call.args[1].value).strip() == loop.target.value):
            raise Refused(f"concurrency: {self.where}'s task group holds more than "
                          "`for entry in entries: tg.start_soon(step, entry)`")
        fan = self._step_function(index, call.args[0].value, loop.iter, "task_group")
        if fan.failure.reraises:
            raise Refused(f"failure: {self.where}'s step re-raises some failures from its except "
                          "clause, which in a task group cancels the others: no failure value "
                          "says that")
        if fan.failure.failure == "propagate":
            raise Refused(f"failure: in {self.where}'s task group a handler's failure cancels the "
                          "others and leaves as an exception group: RAISE_GROUP requires "
                          "completion AWAIT_ALL (ADR-0120 D2)")
        fan.axes.update(concurrency="concurrent", handler_cancellation="cancel_siblings_and_return")
        return fan

    def _gather(self, index: int, stmt: cst.BaseStatement) -> FanOut | None:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            return None
        small = stmt.body[0]
        value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
        call = value.expression if isinstance(value, cst.Await) else None
        if not (isinstance(call, cst.Call) and self.r.is_(call.func, GATHER)):
            return None
        flag = [a for a in call.args if a.keyword and a.keyword.value == "return_exceptions"]
        spread = [a for a in call.args if a.star == "*"]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            raise Refused(f"error surface: {self.where} drops what gather returns")
        if len(flag) != 1 or self.code(flag[0].value).strip() != "True":
            raise Refused(f"completion: {self.where}'s gather without return_exceptions=True "
                          "raises the first failure while the other handlers go on unawaited: no "
                          "completion value says that")
        source = spread[0].value if len(spread) == 1 and len(call.args) == 2 else None
        if isinstance(source, (cst.GeneratorExp, cst.ListComp)) and \
                source.for_in.inner_for_in is None and not source.for_in.ifs and \
                isinstance(source.elt, cst.Call) and len(source.elt.args) == 1 and \
                isinstance(source.for_in.target, cst.Name) and \
                self.code(source.elt.args[0].value).strip() == source.for_in.target.value:
            func, entries = source.elt.func, source.for_in.iter
        else:
            raise Refused(f"concurrency: {self.where} gathers `{self.code(call)[:80]}`, not "
                          "`step(entry) for entry in entries` over a nested step function")
        fan = self._step_function(index, func, entries, "gather")
        raw = small.targets[0].target.value
        fan.post = read_post(self.body[index + 1:], raw, self.r, self.code, self.where)
        fan.axes.update(concurrency="concurrent", handler_cancellation="translate",
                        failure="collect", completion="await_all", error_surface="raise_group")
        return fan

    def _step_function(self, index: int, func: cst.BaseExpression, entries: cst.BaseExpression,
                       kind: str) -> FanOut:
        name = func.value if isinstance(func, cst.Name) else None
        defs = [i for i, s in enumerate(self.body[:index])
                if isinstance(s, cst.FunctionDef) and s.name.value == name]
        if not defs:
            raise Refused(f"{self.where}: the step `{self.code(func)}` is not an async function "
                          "defined in the method")
        at = defs[-1]
        fn = self.body[at]
        assert isinstance(fn, cst.FunctionDef)
        params = fn.params
        if fn.asynchronous is None or fn.decorators or len(params.params) != 1 or \
                params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or \
                params.star_kwarg or params.posonly_params or params.params[0].default:
            raise Refused(f"{self.where}: the step `{name}` is not `async def {name}(entry)`")
        body = statements(fn.body)
        prefix, only_try = _split_try(body)
        step = [*prefix, *statements(only_try.body)] if only_try is not None else body
        new, invocation = self.idioms.rewrite(step, f"{self.where}.{name}")
        failure = read_failure(only_try, self.r, self.code, f"{self.where}.{name}")
        failure.hook = [*prefix, *failure.hook] if failure.has_hook else failure.hook
        if kind == "gather" and only_try is not None:
            raise Refused(f"failure: {self.where}.{name} catches its handler's failure itself "
                          "before gather collects it")
        fan = FanOut(kind, index, index + 1, entries, params.params[0].name, new, invocation,
                     failure, step_def=at)
        uses = [i for i, s in enumerate(self.body) if i not in (at, index)
                and name in reads_and_binds([s])[0]]
        if uses:
            raise Refused(f"{self.where}: the step `{name}` is used outside the fan-out")
        return fan

    def _collected_surface(self, index: int, name: str) -> str:
        raising = next((s for s in self.body[index + 1:] if name in reads_and_binds([s])[0]),
                       None)
        shown = " ".join(self.code(raising).split()) if raising is not None else "nothing"
        return (f"error surface: {self.where} collects every failure into `{name}` (every "
                f"BaseException, a cancellation included) and `{shown[:100]}` decides what "
                "leaves; the owner codemods read no surface raised from a helper or a collected "
                "list, and the kernels raise one failure as itself or several as a group, "
                "nothing else")

    # -- checks -------------------------------------------------------------------------------

    def _check_step(self, fan: FanOut) -> None:
        if not self.entries_checked and fan.kind != "partition":  # (a generator, taken as
            # the loops took it)
            Snapshots(self.method, self.cls, self.code).require(fan.entries,
                                                                 self.body[:fan.start], self.where)
        params = target_names(fan.target)
        if fan.kind == "loop":
            _, binds = reads_and_binds(fan.step_body)
            outside = [s for i, s in enumerate(self.body) if not fan.start <= i < fan.end]
            reads, _ = reads_and_binds(outside)
            clash = sorted((binds & reads) - params)
            if clash:
                raise Refused(f"{self.where}: the loop body assigns `{clash[0]}`, which the method "
                              "reads outside the loop; as the kernel's step it would be a local")
        shared = clause_reads_step_locals(fan.failure, fan.step_body, params)
        if shared is not None:
            raise Refused(f"{self.where}: the except clause reads `{shared}`, which the step "
                          "binds; as the owner's failure hook it could not see it")

    def _none_reason(self) -> str:
        for stmt in self.body:
            loop = stmt if isinstance(stmt, cst.For) else None
            if loop is None and isinstance(stmt, cst.With) and len(stmt.body.body) == 1 \
                    and isinstance(stmt.body.body[0], cst.For):
                loop = stmt.body.body[0]
            names = target_names(loop.target) if loop is not None else set()
            for node in _walk(loop) if loop is not None else ():
                if isinstance(node, cst.Call) and reads_and_binds([node.func])[0] & names:
                    return (f"handler invocation: {self.where} calls `{self.code(node).strip()}`, "
                            f"not in one of the forms the kernels reproduce ({FORMS})")
        for stmt in self.body:
            if not isinstance(stmt, (cst.Try, cst.If, cst.With)):
                continue
            for node in _walk(stmt)[1:]:
                if not isinstance(node, (cst.For, cst.With)) or not isinstance(
                        node, cst.BaseStatement):
                    continue
                try:  # what the nested loop does is the better reason, when it is one
                    fan = self._loop(0, node) or self._task_group(0, node)
                except Refused as exc:
                    return str(exc)
                if fan is not None:
                    return (f"concurrency: {self.where}'s handler loop sits inside a "
                            f"{type(stmt).__name__.lower()} block (line `"
                            f"{self.code(stmt).strip().splitlines()[0]}`); the owner codemods "
                            "rewrite a fan-out that is a statement of the method itself")
        return (f"concurrency: {self.where} has no fan-out over its handlers (a for loop, an "
                "anyio task group, or gather(..., return_exceptions=True))")


def _split_try(body: list[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], cst.Try | None]:
    """(the statements before a closing per-handler ``try``, the try): the statements must only
    unpack the entry (assignments of names, attributes, subscripts: nothing that can call), as
    the kernel runs them inside its own except; the failure hook runs them again."""
    if not body or not isinstance(body[-1], cst.Try):
        return [], None
    prefix = body[:-1]
    for stmt in prefix:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign) and _pure(stmt.body[0].value)):
            return [], None
    return prefix, body[-1]


def _pure(node: cst.BaseExpression) -> bool:
    """Only names, attributes, constant subscripts and tuples of them: reading it calls nothing
    a handler could observe (a property getter aside)."""
    if isinstance(node, (cst.Name, cst.Integer, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.Subscript):
        return _pure(node.value) and all(
            isinstance(e.slice, cst.Index) and _pure(e.slice.value) for e in node.slice)
    if isinstance(node, cst.Tuple):
        return all(_pure(e.value) for e in node.elements)
    return False


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    for child in node.children:
        if not isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            out += _walk(child)
    return out
