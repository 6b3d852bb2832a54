"""A loop that invokes each handler inline and keeps what it returns in one of two lists, the
awaitables to gather once every handler was invoked and the other values (SessionObserver.emit:
ADR-0120 D2's GATHER_AFTER_INVOCATIONS)::

    results: list[Any] = []
    pending: list[Any] = []
    for flt, handler in self._subs:                       # one loop, or loops nested
        for matched in self._match(flt, event, payload):
            out = handler(matched, ctx)
            if inspect.isawaitable(out):
                pending.append(out)
            else:
                results.append(out)
    if pending:
        from lionagi.ln.concurrency import gather as _gather

        gathered: list[Any] = list(await _gather(*pending))
    else:
        gathered = []

becomes, the owner's loops kept as the generator of the kernel's entries, the owner's gather
as its ``gather=``, and the two lists read back from the report::

    from lionagi.ln.concurrency import gather as _gather

    def _entries():
        for flt, handler in self._subs:
            for matched in self._match(flt, event, payload):
                yield handler, matched

    async def _step(_entry, call):
        handler, matched = _entry
        return await call(handler, matched, ctx)

    report = await fan_out(_POLICY, _entries(), _step, gather=_gather)
    results: list[Any] = list(report.invocation_values)
    gathered: list[Any] = list(report.gathered_values)

The kernel consumes the generator as its sequential stage runs: each filter is computed when
the loop reaches its subscription, after the handlers before it ran, over the live list, as the
loop did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..support.sections import import_line
from .clauses import Failure
from .idiom import Code, Invocation, Refused
from .names import CLASSIFIERS, Resolver, reads_and_binds, statements, target_names


@dataclass
class Partition:
    """What the writer needs besides the loop: the owner's gather, the imports its gather block
    made (hoisted above the fan-out call), and the two lists' statements as they are assigned
    from the report."""

    gather: str  # the owner's gather, as written (``_gather``, ``asyncio.gather``)
    loops: list[str]  # `for flt, handler in self._subs:`, `if key in event:`, ... as written
    imports: list[cst.BaseStatement] = field(default_factory=list)
    results: str = ""  # `results: list[Any] = `: the invoked values' target, as written
    gathered: str = ""  # `gathered: list[Any] = `: the gathered values' target


@dataclass
class Read:
    start: int
    end: int
    target: str  # the names each entry holds, as the step unpacks them
    step: str  # the step's one statement: `return await call(handler, ...)`
    invocation: Invocation
    failure: Failure
    partition: Partition


class PartitionReader:
    """Reads the loop at *index* of a method's *body*, with the two lists initialized just
    above it and the gather just below; None when its body is not the partition."""

    def __init__(self, body: list[cst.BaseStatement], r: Resolver, code: Code, call: str,
                 where: str) -> None:
        self.body, self.r, self.code, self.call, self.where = body, r, code, call, where

    def read(self, index: int) -> Read | None:
        loops = _nested(self.body[index])
        if not loops:
            return None
        inner = statements(loops[-1].body)
        kept = self._split(inner)
        if kept is None:
            return None
        call, out, classifier, pending, results = kept
        if any(isinstance(loop, cst.For) and loop.orelse is not None for loop in loops):
            raise Refused(f"{self.where}: the dispatch loop has an else clause")
        inits = self._inits(index, {pending, results})
        post = index + 1
        gathered, gather, imports = self._gather(post, pending)
        start, end = index - 2, post + 1
        bound = [target_names(loop.target) for loop in loops if isinstance(loop, cst.For)]
        after = reads_and_binds(self.body[end:])[0]
        leaked = sorted(after & set().union(*bound))
        if leaked:  # a loop's variable keeps its last value after the loop, not the generator's
            raise Refused(f"{self.where}: `{leaked[0]}`, a loop variable, is read after the loop")
        outside = reads_and_binds([s for i, s in enumerate(self.body)
                                   if not start <= i < end])[0]
        if pending in outside or out in outside:
            raise Refused(f"{self.where}: `{pending}` or `{out}` is read outside the loop and "
                          "its gather")
        used = reads_and_binds([call])[0]
        names = [n for names in bound for n in sorted(names) if n in used]
        if not names or _name(call.func) not in names:
            return None  # not a handler the loop takes from its entries
        fors = [f"for {self.code(loop.target).strip()} in {self.code(loop.iter).strip()}:"
                if isinstance(loop, cst.For) else f"if {self.code(loop.test).strip()}:"
                for loop in loops]
        target = ", ".join(names)
        args = ", ".join(self.code(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()
                         for a in call.args)
        step = f"return await {self.call}({self.code(call.func).strip()}, {args})\n"
        invocation = Invocation({"handler_classification": "by_return_value",
                                 "sync_handlers": "inline",
                                 "returned_value_classifier": classifier,
                                 "returned_awaitable": "gather_after_invocations"},
                                f"{out} = {self.code(call).strip()}; kept for one gather when "
                                f"{classifier}, else among the results")
        failure = Failure("propagate", seen=f"{self.where}: no except clause around the handler")
        results_target = self._target(inits[results], results)
        return Read(start, end, target, step, invocation, failure,
                    Partition(gather, fors, imports, results_target, gathered))

    def _split(self, inner: list[cst.BaseStatement]
               ) -> tuple[cst.Call, str, str, str, str] | None:
        """``out = h(...)`` then ``if isawaitable(out): A.append(out) else: B.append(out)``:
        (the call, out, the classifier, A, B)."""
        if len(inner) != 2 or not isinstance(inner[0], cst.SimpleStatementLine) or \
                len(inner[0].body) != 1 or not isinstance(inner[1], cst.If):
            return None
        assign, branch = inner[0].body[0], inner[1]
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and isinstance(assign.value, cst.Call)):
            return None
        out = assign.targets[0].target.value
        test = branch.test
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        test = test.expression if negated else test  # type: ignore[attr-defined]
        classifier = CLASSIFIERS.get(self.r.qualified(test.func) or "") if isinstance(
            test, cst.Call) else None
        if classifier is None or len(test.args) != 1 or _name(test.args[0].value) != out:
            return None
        orelse = branch.orelse
        if not isinstance(orelse, cst.Else):
            return None
        first, second = _appended(branch.body, out), _appended(orelse.body, out)
        if first is None or second is None or first == second:
            return None
        pending, results = (second, first) if negated else (first, second)
        return assign.value, out, classifier, pending, results

    def _inits(self, index: int, names: set[str]) -> dict[str, cst.SimpleStatementLine]:
        """The two statements just above the loop, each making one of the lists empty."""
        found: dict[str, cst.SimpleStatementLine] = {}
        for stmt in self.body[max(0, index - 2):index]:
            name = _empty_list(stmt)
            if name in names and isinstance(stmt, cst.SimpleStatementLine):
                found[name] = stmt
        if set(found) != names:
            raise Refused(f"{self.where}: the lists the loop keeps its handlers' values in "
                          f"({', '.join(sorted(names))}) are not made empty just above it")
        return found

    def _gather(self, at: int, pending: str) -> tuple[str, str, list[cst.BaseStatement]]:
        """``if pending: [imports] R = [list(]await G(*pending)[)] else: R = []``: (R's target,
        G, the imports)."""
        stmt = self.body[at] if at < len(self.body) else None
        refused = Refused(f"{self.where}: after the loop, `{pending}` is not gathered as "
                          f"`if {pending}: results = list(await gather(*{pending})) else: "
                          "results = []`")
        if not (isinstance(stmt, cst.If) and _name(stmt.test) == pending
                and isinstance(stmt.orelse, cst.Else)):
            raise refused
        body = statements(stmt.body)
        imports = [s for s in body[:-1] if import_line(s)]
        if len(imports) != len(body) - 1 or not isinstance(body[-1], cst.SimpleStatementLine):
            raise refused
        assign = body[-1].body[0] if len(body[-1].body) == 1 else None
        value = assign.value if isinstance(assign, (cst.Assign, cst.AnnAssign)) else None
        if isinstance(value, cst.Call) and _name(value.func) == "list" and len(value.args) == 1:
            value = value.args[0].value
        call = value.expression if isinstance(value, cst.Await) else None
        if not (isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0].star == "*"
                and _name(call.args[0].value) == pending):
            raise refused
        name = _assigned(assign)
        other = statements(stmt.orelse.body)
        if name is None or len(other) != 1 or _empty_list(other[0]) != name:
            raise refused
        return self._target(body[-1], name), self.code(call.func).strip(), imports

    def _target(self, stmt: cst.SimpleStatementLine, name: str) -> str:
        """`name: T = ` or `name = `: the list's assignment as written, without its value."""
        small = stmt.body[0]
        if isinstance(small, cst.AnnAssign) and small.annotation is not None:
            return f"{name}: {self.code(small.annotation.annotation).strip()} = "
        return f"{name} = "


def _nested(stmt: cst.BaseStatement) -> list[cst.For | cst.If]:
    """The loop at *stmt* and each loop or filter (an ``if`` without ``else``) that is the
    whole body of the one above it; empty when *stmt* is no loop."""
    nested: list[cst.For | cst.If] = []
    node: cst.BaseStatement | None = stmt
    while (isinstance(node, cst.For) and node.asynchronous is None) or (
            nested and isinstance(node, cst.If) and node.orelse is None):
        nested.append(node)
        body = statements(node.body)
        node = body[0] if len(body) == 1 else None
    return nested


def _name(node: cst.CSTNode | None) -> str | None:
    return node.value if isinstance(node, cst.Name) else None


def _appended(suite: cst.BaseSuite, value: str) -> str | None:
    """The list that ``A.append(value)``, the suite's one statement, appends to."""
    body = statements(suite)
    small = body[0].body[0] if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) \
        and len(body[0].body) == 1 else None
    call = small.value if isinstance(small, cst.Expr) else None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
            call.func.attr.value == "append" and len(call.args) == 1 and \
            _name(call.args[0].value) == value:
        return _name(call.func.value)
    return None


def _assigned(small: cst.BaseSmallStatement | None) -> str | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return _name(small.targets[0].target)
    if isinstance(small, cst.AnnAssign):
        return _name(small.target)
    return None


def _empty_list(stmt: cst.BaseStatement) -> str | None:
    """The name a statement binds to an empty list (``x = []``, ``x: list[T] = []``)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
    empty = (isinstance(value, cst.List) and not value.elements) or (
        isinstance(value, cst.Call) and _name(value.func) == "list" and not value.args)
    return _assigned(small) if empty else None
