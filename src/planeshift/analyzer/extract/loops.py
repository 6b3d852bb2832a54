"""Dispatch-path facts: how the functions on a dispatcher's path call the handlers it holds.

ADR-0120 D2 describes a dispatcher by its policy, and the policy is visible in the code that
invokes its handlers: ``for h in handlers: try: await maybe_await(h(...)) except Exception:
log`` is sequential and isolating; a sync call whose result is dropped is DISCARD_UNAWAITED. A
path often spans helpers (an ``_invoke(entry)`` nested function gathered by ``emit``, a
module-level ``_raise_callback_errors(errors)``), so the functions a seed calls in the same file
are read too. Each function is read once, every parameter standing for what a caller may pass
(a handler or registry entry, or a list of collected errors): observations about a parameter
carry it as their ``root``, and ``analyzer/policy/dispatch_paths.py`` keeps them only where a caller on the
path passes such a value. Each observation is a :class:`~.observations.Seen` holding one record
of ``observations.py`` (a handler call and what becomes of its result, an offload, a predicate, a
classification, an except clause or a guard the concurrency implies, a loop, a followed call with
the roles its parameters receive, a gather or a task group, a deadline, a raise of collected
errors, gathered cancellations dropped).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import replace

from .facts import Function
from .loop_results import Results
from .loop_roles import FileScope, Roles
from .loop_shapes import (
    AWAIT_WRAPPERS,
    COMPS,
    DEADLINES,
    DECLARATION,
    NOT_PREDICATES,
    OFFLOAD,
    RESULT_CLASSIFIERS,
    SPAWNS,
    TASK_GROUPS,
    caught,
    clause_actions,
    evidence_text,
    guards,
    in_handler,
    in_predicate_position,
    iterable,
    local_aliases,
    loop_line,
    raised_alone,
    returns_exceptions,
    short,
    walk_body,
)
from .observations import (
    LOCAL,
    Classify,
    Concurrency,
    Deadline,
    Detail,
    Drops,
    Follow,
    Guard,
    HandlerCall,
    Loop,
    LoopFacts,
    Offload,
    Origin,
    Passed,
    Predicate,
    Result,
    Seen,
)
from .sites import last_name
from .visitor import child_nodes

Node = ast.FunctionDef | ast.AsyncFunctionDef


def dispatch_facts(functions: list[Function], nodes: dict[str, Node], seeds: Iterable[str],
                   classes: Iterable[str]) -> list[Function]:
    """*functions* with ``loop`` facts for every seed and every same-file function it calls."""
    scope = FileScope(nodes, frozenset(classes))
    read: dict[str, FunctionReader] = {}
    todo = sorted(set(seeds) & set(nodes))
    while todo:
        qualname = todo.pop()
        if qualname not in read:
            read[qualname] = reader = FunctionReader(qualname, scope)
            todo.extend(sorted(reader.callees - set(read)))
    facts = _pruned(read)
    return [replace(f, loop=facts[f.qualname]) if f.qualname in facts else f for f in functions]


def _pruned(read: dict[str, FunctionReader]) -> dict[str, LoopFacts]:
    """Facts of the functions that observe something, or call one that does."""
    keep = {qn for qn, r in read.items() if any(s.kind != "follow" for s in r.seen)}
    grown = True
    while grown:
        before = len(keep)
        keep |= {qn for qn, r in read.items() if r.callees & keep}
        grown = len(keep) != before
    out: dict[str, LoopFacts] = {}
    for qn in keep:
        r = read[qn]
        seen = tuple(s for s in r.seen
                     if not isinstance(s.detail, Follow) or s.detail.target in keep)
        out[qn] = LoopFacts(tuple(dict.fromkeys(r.iterates)), tuple(r.lines), seen)
    return out


class FunctionReader:
    """The observations of one function's body (nested functions are read on their own)."""

    def __init__(self, qualname: str, scope: FileScope) -> None:
        self.qualname, self.scope = qualname, scope
        self.nodes = list(walk_body(scope.functions[qualname].body))
        self.parents: dict[ast.AST, ast.AST] = {}
        parents = self.parents
        for parent in self.nodes:
            for child in child_nodes(parent):
                parents[child] = parent
        self.roles = Roles(self.nodes, self.parents, scope.params(qualname))
        self.aliases = local_aliases(self.nodes)
        self.results = Results(self.nodes, self.parents, self.is_gather)
        self.seen: list[Seen] = []
        self.callees: set[str] = set()
        self.iterates: list[str] = []
        self.lines: list[int] = []
        self.loops: dict[int, ast.AST] = {}  # dispatch loops by line
        self.predicates: list[tuple[ast.Call, Origin]] = []
        self.read()

    def add(self, detail: Detail, node: ast.AST, at: int = 0, root: Origin = LOCAL,
            text: str | None = None) -> None:
        shown = evidence_text(node, self.parents) if text is None else text
        self.seen.append(Seen(detail, getattr(node, "lineno", 0), at, root, shown))

    def is_gather(self, call: ast.Call) -> bool:
        """``gather(...)``, ``asyncio.gather(...)``, or a local alias (``import gather as _g``)."""
        name = last_name(call) or ""
        return self.aliases.get(name, name).lstrip("_") == "gather"

    # -- the pass ---------------------------------------------------------------------------
    def read(self) -> None:
        calls = sorted((n for n in self.nodes if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            self._call(call)
        for call, root in self.predicates:
            self._predicate(call, root)
        for node in self.nodes:
            if isinstance(node, (ast.With, ast.AsyncWith)):
                self._with(node)
            elif isinstance(node, ast.Raise) and not in_handler(node, self.parents):
                self._raise(node)
        for call in calls:
            if self.is_gather(call):
                self._gather(call)
        self._drops()
        for line, loop in sorted(self.loops.items()):
            self.iterates.append(short(iterable(loop), 80))
            self.add(Loop(short(iterable(loop), 80)), loop,
                     at=getattr(loop, "end_lineno", None) or line)

    def _call(self, call: ast.Call) -> None:
        name = last_name(call) or ""
        if name in DECLARATION or name in RESULT_CLASSIFIERS:
            self._classifier(call, name)  # an isawaitable test is read with the result it tests
            return
        if (name in OFFLOAD or name in SPAWNS) and self._handed_over(call, name):
            return
        if name == "wait_for":
            self.add(Deadline(name), call, at=call.end_lineno or call.lineno)
        root = self.roles.callee_root(call.func, self.scope.methods(self.qualname))
        tested = in_predicate_position(call, self.parents) or self._tested_later(call)
        if root is not None and not self.roles.is_deref(call):
            if tested:
                self.predicates.append((call, self.roles.involved_origin(call) or LOCAL))
            else:
                self._handler_call(call, root, self.results.disposition(call))
            return
        if tested and name not in NOT_PREDICATES:
            involved = self.roles.involved_origin(call)
            if involved is not None:
                self.predicates.append((call, involved))
        target = self.scope.resolve(call.func, self.qualname)
        if target is not None and target != self.qualname:
            self._follow(call, target, call.args, call.keywords)

    def _tested_later(self, call: ast.Call) -> bool:
        """``ok = when is None or when(event)`` then ``if ok:``: a condition computed ahead."""
        node: ast.AST = call
        while isinstance(self.parents.get(node), (ast.BoolOp, ast.UnaryOp, ast.Compare)):
            node = self.parents[node]
        stmt = self.parents.get(node)
        if node is call or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                                and isinstance(stmt.targets[0], ast.Name)):
            return False
        name = stmt.targets[0].id
        return any(isinstance(n, (ast.If, ast.While)) and any(
            isinstance(x, ast.Name) and x.id == name for x in ast.walk(n.test)) for n in self.nodes)

    def _classifier(self, call: ast.Call, name: str) -> None:
        root = self.roles.handler_root(call.args[0]) if name in DECLARATION and call.args else None
        if root is not None:
            parent = self.parents.get(call)
            rejects = isinstance(parent, ast.If) and parent.test is call and any(
                isinstance(s, ast.Raise) for s in parent.body)
            self.add(Classify("by_declaration", rejects), call, root=root)

    def _handed_over(self, call: ast.Call, name: str) -> bool:
        """A handler (or a helper) given to a worker thread or a task: ``run_sync(h, x)``,
        ``tg.start_soon(self._run, h, x)``, ``tg.start_soon(h, x)``."""
        index = OFFLOAD.get(name, 0)
        if len(call.args) <= index:
            return False
        first = call.args[index]
        root = self.roles.handler_root(first)
        if root is not None:
            if name in OFFLOAD:
                self.add(Offload(name), call, root=root)
            outer = self.parents.get(call)
            result = outer if isinstance(outer, ast.Await) else call
            disposition = Result("task") if name in SPAWNS else self.results.disposition(result)
            self._handler_call(call, root, disposition)
            return True
        target = self.scope.resolve(first, self.qualname) if name in SPAWNS else None
        if target is not None:
            self._follow(call, target, call.args[1:], [])
            return True
        return False

    def _handler_call(self, call: ast.Call, root: Origin, disposition: Result) -> None:
        for test, node in self.results.pending:
            self.add(Classify(test), node, root=root)
        self.results.pending.clear()
        handler_call = HandlerCall(disposition, self.roles.via_of(call) or "",
                                   self._declared_async_value(call))
        self.add(handler_call, call, at=self._mark_loops(call), root=root)
        self.lines.append(call.lineno)
        self._guards(call)

    def _declared_async_value(self, call: ast.Call) -> Result | None:
        """What becomes of the result for a call in the branch of ``if is_coro_func(h):``: there
        the awaited coroutine's result is what the handler returned, and this is what becomes
        of it (``await maybe_await(h(x))`` as a statement drops it)."""
        child: ast.AST = call
        parent = self.parents.get(call)
        while parent is not None:
            if isinstance(parent, ast.If) and _declaration_test(parent.test) is not None:
                negated = _declaration_test(parent.test)
                in_body = any(child is s for s in parent.body)
                if in_body != negated:  # the declared-async branch
                    break
                return None
            child, parent = parent, self.parents.get(parent)
        else:
            return None
        node: ast.AST = call
        wrapper = self.parents.get(node)
        if isinstance(wrapper, ast.Call) and last_name(wrapper) in AWAIT_WRAPPERS:
            node = wrapper
        awaited = self.parents.get(node)
        if not isinstance(awaited, ast.Await):
            return None
        pending = len(self.results.pending)
        value = self.results.disposition(awaited)
        del self.results.pending[pending:]  # the value's own test shows in its disposition
        return value

    def _follow(self, call: ast.Call, target: str, args: list, keywords: list) -> None:
        pos, kw = self.scope.params(target)
        given: list[tuple[str, ast.expr]] = list(zip(pos, args))
        given += [(k.arg, k.value) for k in keywords if k.arg in pos or k.arg in kw]
        passes = tuple(Passed(param, role, root) for param, value in given
                       for role, root in self.roles.roles_of(value))
        at = self._mark_loops(call) if passes else loop_line(call, self.parents)
        self.callees.add(target)
        self.add(Follow(target, passes), call, at=at, text="")  # never evidence: no text
        self._guards(call)

    def _mark_loops(self, node: ast.AST) -> int:
        """Record every loop around *node* as a dispatch loop; the innermost's line, or 0."""
        child, parent = node, self.parents.get(node)
        inner = 0
        while parent is not None:
            if (isinstance(parent, (ast.For, ast.AsyncFor)) and child is not parent.iter
                    or isinstance(parent, ast.While) and child is not parent.test
                    or isinstance(parent, COMPS) and child is not parent.generators[0].iter):
                self.loops.setdefault(parent.lineno, parent)
                inner = inner or parent.lineno
            child, parent = parent, self.parents.get(parent)
        return inner

    def _guards(self, node: ast.Call) -> None:
        """The except clauses around *node*, then what its concurrency implies: inside
        gather(...), inside a task spawned into a task group, or a detached task."""
        for try_, handler in guards(node, self.parents):
            self.add(Guard(caught(handler), clause_actions(handler), try_line=try_.lineno),
                     handler, at=node.lineno,
                     text=f"except {caught(handler)}: {short(handler.body[0], 60)}")
        spawned = last_name(node) in SPAWNS
        child: ast.AST = node
        parent = self.parents.get(node)
        while parent is not None:
            if isinstance(parent, ast.Call) and child is not parent.func:
                if self.is_gather(parent):
                    mode = "gathered" if returns_exceptions(parent) else "gather"
                    self._implied(mode, parent, node)
                spawned = spawned or last_name(parent) in SPAWNS
            elif isinstance(parent, (ast.With, ast.AsyncWith)) and spawned:
                libs = [TASK_GROUPS[n] for i in parent.items
                        if (n := last_name(i.context_expr) or "") in TASK_GROUPS]
                if libs:
                    self._implied("task_group", parent, node, libs[0])
                    return
            child, parent = parent, self.parents.get(parent)
        if spawned:
            self._implied("task", node, node)

    def _implied(self, kind: str, where: ast.AST, call: ast.Call, library: str = "") -> None:
        """A guard the concurrency around *call* implies: it catches everything."""
        self.add(Guard("BaseException", implied=kind, library=library), where, at=call.lineno)

    def _predicate(self, call: ast.Call, root: Origin) -> None:
        at = loop_line(call, self.parents)
        if at not in self.loops:
            at = self._fed_loop(call) or at
        name = last_name(call) or short(call.func, 40)
        on_entry = isinstance(call.func, ast.Attribute) and self.roles.is_entry(call.func.value)
        self.add(Predicate(name, on_entry), call, at=at, root=root)
        self._guards(call)

    def _fed_loop(self, call: ast.Call) -> int:
        """A comprehension filter whose result a dispatch loop iterates: that loop's line."""
        node: ast.AST = call
        while node in self.parents and not isinstance(node, COMPS):
            node = self.parents[node]
        stmt = self.parents.get(node)
        if not isinstance(stmt, ast.Assign):
            return 0
        names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        for line, loop in sorted(self.loops.items()):
            if {n.id for n in ast.walk(iterable(loop)) if isinstance(n, ast.Name)} & names:
                return line
        return 0

    def _drops(self) -> None:
        """Gathered results filtered to ordinary exceptions, their cancellations never read."""
        filters: list[tuple[ast.AST, set[str]]] = []
        for node in self.nodes:
            if not isinstance(node, COMPS):
                continue
            source = node.generators[0].iter
            if not (isinstance(source, ast.Name) and source.id in self.roles.results):
                continue
            classes: set[str] = set()
            for test in (t for gen in node.generators for t in gen.ifs):
                for call in (n for n in ast.walk(test) if isinstance(n, ast.Call)):
                    if last_name(call) == "isinstance" and len(call.args) == 2:
                        classes |= {last_name(n) or "" for n in ast.walk(call.args[1])
                                    if isinstance(n, (ast.Name, ast.Attribute))}
            filters.append((node, classes))
        keeps = any(c & {"BaseException", "BaseExceptionGroup"} or any("ancel" in x for x in c)
                    for _, c in filters)
        ordinary = [n for n, c in filters if "Exception" in c]
        if ordinary and not keeps:
            self.add(Drops(), ordinary[0])

    # -- raises and spans ---------------------------------------------------------------------
    def _raise(self, node: ast.Raise) -> None:
        raised, root = self.roles.raised(node)
        if raised is not None and raised.form == "one" and raised_alone(node, self.parents):
            raised = replace(raised, single=True)
        if raised is not None:
            self.add(raised, node, root=root)

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        end = node.end_lineno or node.lineno
        for item in node.items:
            name = last_name(item.context_expr) or ""
            if name in DEADLINES:
                self.add(Deadline(name), node, at=end)
            elif name in TASK_GROUPS:
                self.add(Concurrency("task_group", library=TASK_GROUPS[name]), node, at=end)

    def _gather(self, call: ast.Call) -> None:
        names = {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        stored = sorted(names & set(self.results.stored))
        gather = Concurrency("gather", returns_exceptions(call), stored[0] if stored else "")
        self.add(gather, call, at=call.end_lineno or call.lineno)


def _declaration_test(test: ast.expr) -> bool | None:
    """For ``is_coro_func(h)``: False; ``not is_coro_func(h)``: True (negated); else None."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    if isinstance(inner, ast.Call) and last_name(inner) in DECLARATION:
        return negated
    return None
