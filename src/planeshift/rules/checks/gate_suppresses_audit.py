"""PS104: a gate evaluated before a durable persistence subscriber (ADR-0120 P3, Phase 2 arm 3)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import DEFS, Stmt, all_nodes, own_nodes, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts

DURABLE = ("delivery_sink", "commit_participant")


@dataclass(frozen=True, slots=True)
class GatedDispatch:
    """A method that returns on its gate before it dispatches."""

    cls: str
    method: str
    gate: str  # the attribute holding the gate: self.<gate>(...)
    swallowed: int  # the line of an except clause turning a raising gate into a denial, or 0
    returned: int  # the line of the early return
    loops: tuple[int, ...]  # the lines of its dispatch loops


@dataclass(frozen=True, slots=True)
class GatedMethods:
    """What PS104 reads of one file."""

    methods: tuple[GatedDispatch, ...]


@register
class GateSuppressesAudit(Rule):
    """Flag a dispatcher whose gate can empty the audit record before durable subscribers run.

    ## What it does
    Reads each emitting method of a mechanism's dispatcher (its source in the tree) for a
    stored callable called before the dispatch loop (a gate: `self._gate(payload)`, not a
    method of the class) whose result returns from the method before the loop runs. When the
    mechanism has durable registrations (classified `delivery_sink` or `commit_participant`),
    it reports:
    - **error** at an `except` around the gate that turns a raising gate into a denial
      (`except Exception: allowed = False`, or a `return` in the handler): a gate that merely
      throws silences the audit trail with no signal at all;
    - **warning** at the early `return` a denial takes before the subscribers;
    - **warning** on each durable registration it silences (flagged `gate_suppresses_audit`).

    ## Why is this bad?
    Authorization and observation cannot share a gate (ADR-0120 P3): a governance decision, or
    a bug in the gate, suppresses the durable audit observation of something that already
    happened. Fail-closed is right for authorization and wrong for audit; a test that only
    exercises an explicit denial passes while a buggy gate silently empties the record.

    ## Example
    ```python
    async def emit(self, event):
        try:
            allowed = bool(self._gate(event))
        except Exception:
            allowed = False          # a raising gate becomes a silent denial
        if not allowed:
            return []                # ... and durable persistence never sees the event
        for handler in self._subs:
            handler(event)
    ```

    ## Use instead
    Authorize the operation in its owner's interceptor plan, and deliver every observation
    (denials as their own `OperationDenied` signal) to the durable sinks, which no gate runs over:
    ```python
    async def emit(self, event):
        for sink in self._durable:   # audit first, never gated
            await sink(event)
        for handler in self._subs:
            handler(event)
    ```

    ## Fix safety
    Not automatic: separating the gate from observation changes which handlers see a denied
    event. ADR-0120 Phase 2's three gate arms (a denial persists, no gate changes nothing, a
    raising gate persists) are the tests to write first.

    ## References
    ADR-0120 P3, D3 (authorization and observation are separate registries), Phase 2 gate
    arms 1 and 3.
    """

    code = "PS104"
    kind = "gate_suppresses_audit"
    severity = "warning"
    message = "{handler} is durable persistence on {mechanism}, whose gate can suppress it"
    FACT_WORDS = ("return",)
    FACTS = GatedMethods
    VALID = [
        """
        from demo.bus import EventBus

        def log(**payload):
            pass

        EventBus().subscribe(log)  # not durable: a gated emission skipping it loses no record
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus

            def write_audit(**payload):
                pass

            EventBus().persist(write_audit)  # EventBus.emit returns when its gate denies
            """,
            line=6,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> GatedMethods | None:
        """Each method that returns on its gate before dispatching."""
        by_function: dict[str, list[Stmt]] = {}
        methods: dict[str, set[str]] = {}
        for stmt in statements(tree):
            by_function.setdefault(stmt.function, []).append(stmt)
            if isinstance(stmt.node, DEFS) and stmt.cls and stmt.scope == stmt.cls:
                methods.setdefault(stmt.cls, set()).add(stmt.node.name)
        out = []
        for cls, names in methods.items():
            for name in sorted(names):
                found = _gated_dispatch(by_function.get(f"{cls}.{name}", []), names)
                if found:
                    out.append(GatedDispatch(cls, name, *found))
        return GatedMethods(tuple(out)) if out else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        facts = {(path, m.cls, m.method): m for path, found in self.facts(project)
                 for m in found.methods}
        for mech in project.mechanisms:
            durable = tuple(r for r in project.registrations
                            if r.mechanism == mech.id and r.plane in DURABLE)
            emitters = {e.name for e in mech.model.emissions if e.kind == "method"}
            if not durable or not emitters:
                continue
            for cls in dict.fromkeys(names.follow(c) for c in (*mech.classes,
                                                                   *mech.model.dispatchers)):
                found = names.class_of(cls)
                if found is None:
                    continue
                path = names.paths[found[0]]
                for method in sorted(emitters):
                    gated = facts.get((path, found[1], method))
                    if gated is not None:
                        yield from self._report(path, f"{found[1]}.{method}", gated, durable,
                                                mech.id)

    def _report(self, path: str, where: str, gated: GatedDispatch, durable: tuple,
                mech: str) -> Iterator[Hazard]:
        gate, swallowed, returned, loops = (gated.gate, gated.swallowed, gated.returned,
                                            gated.loops)
        loop = "s " + ", ".join(map(str, loops)) if len(loops) > 1 else f" {loops[0]}"
        sinks = ", ".join(f"{r.file}:{r.line}" for r in durable[:3]) + (
            " and more" if len(durable) > 3 else "")
        if swallowed:
            yield self.at(path, swallowed, 0, f"{where} turns a gate that raises (self.{gate}) "
                          f"into a denial and returns before it dispatches (line{loop}): a "
                          f"failing gate silently drops the durable registrations at {sinks} "
                          "(ADR-0120 Phase 2 arm 3)", "error", mech, durable)
        yield self.at(path, returned, 0, f"{where} returns before it dispatches (line{loop}) "
                      f"when its gate (self.{gate}) denies: the durable registrations at {sinks} "
                      "never record a denied emission (ADR-0120 P3)", mechanism=mech)
        for reg in durable:
            yield self.on(reg, f"{reg.handler.expr} is durable persistence on {mech}, whose gate "
                          f"can suppress it before it runs ({path}:{returned})")


def _gated_dispatch(body: list[Stmt],
                    methods: set[str]) -> tuple[str, int, int, tuple[int, ...]] | None:
    """The gate, the swallowing except line, the early return line and the dispatch loop lines
    of one method (the fields of a :class:`GatedDispatch` after its class and name)."""
    loops = tuple(s.node.lineno for s in body if _dispatches(s.node))
    if not loops:
        return None
    loop = loops[0]
    gate, flag, swallowed = "", "", 0
    for stmt in body:
        node = stmt.node
        if node.lineno >= loop:
            break
        if not gate:
            gate = _gate_call(node, methods)
            if gate and isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                flag = next((t.id for t in targets if isinstance(t, ast.Name)), "")
            if gate and not isinstance(node, ast.If):
                continue
        if gate and stmt.handler is not None and _denies(node, flag):
            swallowed = swallowed or stmt.handler.lineno
        if gate and isinstance(node, ast.If) and _mentions(node.test, gate, flag) and any(
                isinstance(n, ast.Return) for n in node.body):
            returned = next(n.lineno for n in node.body if isinstance(n, ast.Return))
            return gate, swallowed, returned, loops
    return None


def _dispatches(node: ast.stmt) -> bool:
    """A loop that calls what it iterates over (a handler list)."""
    if not isinstance(node, (ast.For, ast.AsyncFor)):
        return False
    targets = {n.id for n in all_nodes(node.target) if isinstance(n, ast.Name)}
    return any(type(n) is ast.Call and type(n.func) is ast.Name and n.func.id in targets
               for stmt in node.body for n in all_nodes(stmt))


def _gate_call(node: ast.stmt, methods: set[str]) -> str:
    """The stored callable a statement calls on ``self`` (not one of the class's methods)."""
    if isinstance(node, ast.If):
        nodes: Iterator[ast.AST] = ast.walk(node.test)
    elif isinstance(node, (*DEFS, ast.ClassDef, ast.Try, ast.For, ast.AsyncFor, ast.While,
                           ast.With, ast.AsyncWith)):
        return ""
    else:
        nodes = own_nodes(node)
    for n in nodes:
        func = getattr(n, "func", None)
        if isinstance(n, ast.Call) and isinstance(func, ast.Attribute) and isinstance(
                func.value, ast.Name) and func.value.id == "self" and func.attr not in methods:
            return func.attr
    return ""


def _denies(node: ast.stmt, flag: str) -> bool:
    """``flag = False`` (or a falsy constant) or a return, inside the gate's except clause."""
    if isinstance(node, ast.Return):
        return True
    return bool(flag) and isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
        and not node.value.value and any(isinstance(t, ast.Name) and t.id == flag
                                         for t in node.targets)


def _mentions(test: ast.expr, gate: str, flag: str) -> bool:
    return any((isinstance(n, ast.Name) and n.id == flag and flag) or (
        isinstance(n, ast.Attribute) and n.attr == gate) for n in ast.walk(test))
