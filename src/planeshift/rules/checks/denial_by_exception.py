"""PS105: an interceptor that denies by raising instead of returning a typed decision (ADR D2)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...types import Registration
from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import dotted, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts

GENERIC = "PermissionError"


@register
class DenialByException(Rule):
    """Flag interceptors that deny (or stop) by raising an exception.

    ## What it does
    For each registration classified `interceptor` whose handler's source is in the tree, reads
    the `raise` statements of the handler's own body (not of the helpers it calls) and reports
    each that raises `PermissionError` or a subclass of it, or an exception the mechanism's pack
    names under `denials` (a stop signal such as a `StopHook`, or a project's denial error).
    The finding is at the `raise`; the registrations whose handler it is are flagged. A handler
    that may be one of several callables counts only when every one of them denies so.

    ## Why is this bad?
    ADR-0120 D2: "Handlers do not raise a generic PermissionError to express an ordinary
    denial." An interceptor returns a typed `InterceptorDecision` (CONTINUE / STOP / DENY), so
    its owner decides the public error, a denial is told apart from a broken handler, and the
    chain's exception mapping (a security stage maps an evaluator *failure* to a denial) stays
    meaningful. Raising `StopHook` is the untyped form of STOP.

    ## Example
    ```python
    async def guard(tool, action, args):
        if "rm -rf" in args.get("command", ""):
            raise PermissionError("blocked destructive command")
    ```

    ## Use instead
    ```python
    async def guard(tool, action, args):
        if "rm -rf" in args.get("command", ""):
            return InterceptorDecision(disposition=InterceptorDisposition.DENY,
                                       reason="blocked destructive command")
        return None  # CONTINUE
    ```

    ## Fix safety
    Not automatic: the dispatcher must accept a typed decision first (ADR-0120 D4 compiles the
    registration into the owner's plan); until then a returned decision is ignored and the call
    goes ahead.

    ## References
    ADR-0120 D2 (InterceptorDecision; no generic PermissionError for an ordinary denial; STOP is
    the typed StopHook), D4.
    """

    code = "PS105"
    kind = "denial_by_exception"
    severity = "warning"
    message = "{handler} denies by raising {exception} instead of returning a typed decision"
    FACT_WORDS = ("raise",)
    VALID = [
        """
        from demo.bus import EventBus, Point

        def guard(**payload):
            if payload.get("tool") == "rm":
                return {"disposition": "deny", "reason": "not allowed"}
            return None

        EventBus().on(Point.BEFORE, guard)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import EventBus, Point

            def guard(**payload):
                if payload.get("tool") == "rm":
                    raise PermissionError("not allowed")

            EventBus().on(Point.BEFORE, guard)
            """,
            line=5,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> tuple | None:
        """(function qualname, line, col, dotted exception) per ``raise X`` / ``raise X(...)``
        in a function's own body."""
        out = []
        for stmt in statements(tree):
            node = stmt.node
            if stmt.function and isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = dotted(exc)
                if name and name[:1].isupper() or name and "." in name:
                    out.append((stmt.function, node.lineno, node.col_offset, name))
        return tuple(out) or None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        raises: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
        for path, rows in project.rule_facts(self.code):
            for function, line, col, name in rows:
                raises.setdefault((path, function), []).append((line, col, name))
        sites: dict[tuple, list[Registration]] = {}
        for reg in project.registrations:
            if reg.plane != "interceptor":
                continue
            denials = {GENERIC, *(names.follow(d) for d in project.mechanism(reg.mechanism)
                                  .model.denials)}
            found = [_denying(q, raises, denials, names)
                     for q in reg.handler.candidates or (reg.handler.qualname,)]
            if found and all(found):  # one of several callables: only when each of them denies
                for site in (site for sites_of in found for site in sites_of):
                    sites.setdefault(site, []).append(reg)
        for (path, line, col, name, verb, qualname), regs in sorted(sites.items()):
            where = ", ".join(f"{r.file}:{r.line}" for r in regs[:3])
            yield self.at(path, line, col, f"{qualname.rsplit('.', 1)[-1]} {verb.split(' ')[0]} "
                          f"by raising {name}{_kind(verb)} instead of returning a typed decision "
                          f"(an interceptor on {regs[0].mechanism}, registered at {where})",
                          mechanism=regs[0].mechanism, about=tuple(regs))


def _kind(verb: str) -> str:
    """" (a PermissionError)" for a subclass, "" otherwise."""
    return f" {verb.split(' ', 1)[1]}" if " " in verb else ""


def _denying(qualname: str | None, raises: dict, denials: set[str], names: Names) -> list[tuple]:
    """(file, line, col, exception, verb, handler) per denying raise in the handler's body."""
    located = names.locate(qualname) if qualname else None
    if located is None or qualname is None:
        return []
    path = names.paths[located[0]]
    out = []
    for line, col, name in raises.get((path, located[1]), ()):
        verb = _verb(names.resolve(located[0], name), denials, names)
        if verb:
            out.append((path, line, col, name, verb, qualname))
    return out


def _verb(exception: str, denials: set[str], names: Names) -> str:
    """"denies" for a PermissionError, "stops" / "denies" for a pack-named exception, else ""."""
    lineage = [exception, *names.ancestors(exception)]
    if GENERIC in lineage:
        return "denies" if exception == GENERIC else f"denies (a {GENERIC})"
    if any(e in denials for e in lineage):
        return "stops" if "stop" in exception.rsplit(".", 1)[-1].lower() else "denies"
    return ""
