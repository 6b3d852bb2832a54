"""PS111: a fact envelope whose identity is minted where it is built (ADR-0124 D5)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import DEFS, Stmt, dotted, header_nodes, lines_of, statements_on

if TYPE_CHECKING:
    from ...project import ProjectFacts

MINTERS = frozenset({
    "uuid.uuid1", "uuid.uuid4", "uuid.uuid6", "uuid.uuid7", "time.time", "time.time_ns",
    "time.monotonic", "datetime.datetime.now", "datetime.datetime.utcnow", "secrets.token_hex",
    "secrets.token_urlsafe", "os.urandom",
})
_TAILS = frozenset(m.rsplit(".", 1)[-1] for m in MINTERS)


@dataclass(frozen=True, slots=True)
class MintedArgument:
    """A keyword argument, in a function, whose value is minted: ``Outcome(event_id=uuid4())``."""

    callee: str  # dotted, as written
    keyword: str
    minter: str  # the minting call, dotted as written (or the one a local name was bound to)
    line: int
    col: int
    outer_line: int  # the call the callee's call is an argument of (an emission, maybe), or 0
    outer_col: int


@dataclass(frozen=True, slots=True)
class MintedArguments:
    """What PS111 reads of one file."""

    arguments: tuple[MintedArgument, ...]
# a "(" after a minter's name: starting at the "(" lets the engine skip ahead ten times faster
# than an alternation of names would
_MINTS = re.compile(r"\((?:" + "|".join(rf"(?<={re.escape(t)}\()" for t in sorted(_TAILS)) + ")")
IDENTITY = re.compile(r"(?:^|_)(?:id|uuid|key)$")


@register
class UnstableFactIdentity(Rule):
    """Flag a fact envelope whose identity is minted at the place it is built or emitted.

    ## What it does
    Reports an identity field (the pack's `terminal: identity:`, else a keyword named `id`,
    `*_id`, `*_uuid` or `*_key`) given a value minted on the spot (`uuid4()`, `time.time()`,
    `datetime.now()`, `secrets.token_hex()`, directly, through `str(...)` / `.hex`, or through a
    local name assigned from one in the same function) when it builds an envelope the pack
    names (`terminal: envelope:`), anywhere in the tree, or any object passed straight to a
    mechanism's emission.

    ## Why is this bad?
    ADR-0124 D5: reconciliation and delivery acknowledgement use the fact's identity,
    "independent of wire serialization or retry, so a source retry redelivers the same fact
    instead of creating a second logical callback". An identity minted at emission gives every
    retry, and every second source, a new fact: consumers cannot deduplicate, and one completion
    is delivered as two.

    ## Example
    ```python
    await TERMINAL_CALLBACKS.emit(RunTerminalEnvelope(event_id=str(uuid.uuid4()), ...))
    ```

    ## Use instead
    Carry the identity minted once with the committed transition:
    ```python
    await TERMINAL_CALLBACKS.emit(RunTerminalEnvelope(event_id=transition_id, ...))
    ```

    ## Fix safety
    Not automatic: the identity has to come from the committed record (the owner's transition
    id or a durable fact id), which the emitting code may not have yet.

    ## References
    ADR-0124 D5 (the envelope's identity is fixed: the transition id and a durable fact id),
    D6 (stable terminal-fact identity across retries).
    """

    code = "PS111"
    kind = "unstable_fact_identity"
    severity = "warning"
    message = ("{envelope}'s {field} is minted here ({minter}) instead of carried from the "
               "committed transition: a retry or a second source delivers a new fact")
    FACT_WORDS = tuple(sorted(_TAILS))
    FACTS = MintedArguments
    VALID = [
        """
        from demo.bus import OUTCOMES, Outcome

        async def finish_again(transition_id):
            await OUTCOMES.emit(Outcome(event_id=transition_id, status="completed"))
        """,
    ]
    INVALID = [
        Invalid(
            """
            import uuid

            from demo.bus import OUTCOMES, Outcome

            async def close():
                await OUTCOMES.emit(Outcome(event_id=str(uuid.uuid4()), status="completed"))
            """,
            line=6,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> MintedArguments | None:
        """Each keyword argument whose value is minted, in a function: on the lines that call a
        minter, then on those that pass a local name a minter was assigned to."""
        minted: dict[tuple[str, str], str] = {}  # (function, local name) -> minter
        out: list[MintedArgument] = []
        self._read(statements_on(tree, lines_of(_MINTS, text)), minted, out)
        if minted:
            locals_ = "|".join(sorted({re.escape(name) for _, name in minted}))
            passed = re.compile(rf"=\s*(?:{locals_})\s*[,)]")
            self._read(statements_on(tree, lines_of(passed, text)), minted, out)
        return MintedArguments(tuple(dict.fromkeys(out))) if out else None

    def _read(self, found: Iterator[Stmt], minted: dict[tuple[str, str], str],
              out: list[MintedArgument]) -> None:
        for stmt in found:
            node = stmt.node
            if not stmt.function or isinstance(node, DEFS):
                continue
            if isinstance(node, ast.Assign) and (value := _minter(node.value, {}, "")):
                minted.update(((stmt.function, t.id), value) for t in node.targets
                              if isinstance(t, ast.Name))
            for call, parent in header_nodes(node):
                if not isinstance(call, ast.Call) or not (callee := dotted(call.func)):
                    continue
                outer = parent if isinstance(parent, ast.Call) and (call in parent.args or any(
                    k.value is call for k in parent.keywords)) else None
                for kw in call.keywords:
                    value = _minter(kw.value, minted, stmt.function) if kw.arg else None
                    if value:
                        out.append(MintedArgument(
                            callee, kw.arg, value, kw.value.lineno, kw.value.col_offset,
                            outer.lineno if outer else 0, outer.col_offset if outer else 0))

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        modules = {f.path: f.module for f in project.files}
        envelopes: dict[str, tuple[str, tuple[str, ...]]] = {}
        for facts in project.mechanisms:
            if facts.model.terminal is not None:
                for cls in facts.model.terminal.envelope:
                    envelopes[names.follow(cls)] = (facts.id, facts.model.terminal.identity)
        emitted = {(e.file, e.line, e.col): e.mechanism for e in project.emissions}
        for path, found in self.facts(project):
            module = modules.get(path, "")
            for arg in found.arguments:
                minter = names.resolve(module, arg.minter)
                if minter not in MINTERS:
                    continue
                mech, identity = envelopes.get(names.resolve(module, arg.callee), ("", ()))
                if not mech and (path, arg.outer_line, arg.outer_col) in emitted:
                    mech = emitted[(path, arg.outer_line, arg.outer_col)]
                field = arg.keyword
                if mech and (field in identity if identity else IDENTITY.search(field)):
                    yield self.at(path, arg.line, arg.col, self.message.format(
                        envelope=arg.callee.rsplit(".", 1)[-1], field=field,
                        minter=f"{minter}()"), mechanism=mech)


def _minter(value: ast.AST, minted: dict[tuple[str, str], str], function: str) -> str | None:
    """The dotted minting call *value* is, wraps (``str(...)``, ``.hex``) or names."""
    while True:
        if isinstance(value, ast.Attribute) and value.attr in ("hex", "int"):
            value = value.value
        elif isinstance(value, ast.Call) and dotted(value.func) in ("str", "int") and value.args:
            value = value.args[0]
        else:
            break
    if isinstance(value, ast.Name):
        return minted.get((function, value.id))
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if name and name.rsplit(".", 1)[-1] in _TAILS:
            return name
    return None
