"""PS105: an interceptor that denies by raising instead of returning a typed decision (ADR D2)."""

from __future__ import annotations

import ast
import builtins
import marshal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...types import Registration
from .base import Hazard, Invalid, Rule, register
from .names import Names
from .syntax import dotted, statements

if TYPE_CHECKING:
    from ...project import ProjectFacts

GENERIC = "PermissionError"


@dataclass(frozen=True, slots=True)
class Raised:
    """``raise X`` / ``raise X(...)`` in a function."""

    function: str  # its qualname in the module
    line: int
    col: int
    name: str  # the exception, dotted as written
    caught: tuple[str, ...]  # what the ``try`` statements around it catch


@dataclass(frozen=True, slots=True)
class RaisesAndCalls:
    """What PS105 reads of one file: its raises, and the calls its statements make (function ->
    (line, callee, caught) rows, as marshal version-2 bytes: every scan loads every file's rule
    facts, and only a handler's file is ever asked for its calls)."""

    raises: tuple[Raised, ...]
    calls: bytes


@register
class DenialByException(Rule):
    """Flag interceptors that deny (or stop) by raising an exception.

    ## What it does
    For each registration classified `interceptor` whose handler's source is in the tree, reads
    the `raise` statements of the handler's own body, and of the functions it calls directly
    from a statement of its own (`check(args)`, `path = await self._resolve(args)`, `return
    helpers.check(args)`, one level deep), and reports each that raises `PermissionError` or a
    subclass of it, or an exception the mechanism's pack names under `denials` (a stop signal
    such as a `StopHook`, or a project's denial error). A raise that a `try` around it catches
    (in the function that raises, or around the handler's call of it) is not a denial the
    dispatcher sees. The finding is at the `raise`, naming the helper and the call when it is in
    one; the registrations whose handler it is are flagged. A handler that may be one of several
    callables counts only when every one of them denies so.

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
    FACT_WORDS = ("(",)  # a file that calls anything: a handler may call a helper that raises
    FACTS = RaisesAndCalls
    VALID = [
        """
        from demo.bus import EventBus, Point

        def guard(**payload):
            if payload.get("tool") == "rm":
                return {"disposition": "deny", "reason": "not allowed"}
            return None

        EventBus().on(Point.BEFORE, guard)
        """,
        """
        from demo.bus import EventBus, Point

        def _ensure_allowed(payload):
            if payload.get("tool") == "rm":
                raise PermissionError("not allowed")

        def guard(**payload):
            try:
                _ensure_allowed(payload)
            except PermissionError as exc:  # turned into a typed decision here
                return {"disposition": "deny", "reason": str(exc)}
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
        Invalid(
            """
            from demo.bus import EventBus, Point

            def _ensure_allowed(payload):
                if payload.get("tool") == "rm":
                    raise PermissionError("not allowed")

            def guard(**payload):
                _ensure_allowed(payload)
                return None

            EventBus().on(Point.BEFORE, guard)
            """,
            line=5,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> RaisesAndCalls | None:
        """Per function: each ``raise X`` / ``raise X(...)`` (line, col, dotted exception), and
        each call a statement makes of a name, ``self.name`` or ``a.name`` (``check(x)``,
        ``y = await self.check(x)``, ``return a.check(x)``, ``if check(x):``: line, col, dotted
        callee), each with the exceptions the ``try`` statements around it catch."""
        raises: list[Raised] = []
        calls: dict[str, list[tuple]] = {}  # function -> (line, callee, caught) per call
        known = _callable_names(tree)
        for stmt in statements(tree):
            node = stmt.node
            if not stmt.function:
                continue
            if node.__class__ is ast.Raise:
                if node.exc is not None:
                    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                    name = dotted(exc)
                    if name and name[:1].isupper() or name and "." in name:
                        raises.append(Raised(stmt.function, node.lineno, node.col_offset, name,
                                             stmt.caught))
                continue
            call = _statement_call(node)
            callee = dotted(call.func) if call is not None else None
            if callee and _may_be_a_function(callee, stmt.cls, known):
                calls.setdefault(stmt.function, []).append((call.lineno, callee, stmt.caught))
        if not (raises or calls):
            return None
        # version 2: the same bytes for the same calls
        packed = tuple((function, tuple(rows)) for function, rows in calls.items())
        return RaisesAndCalls(tuple(raises), marshal.dumps(packed, 2))

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        names = Names.of(project)
        code = _Code(names)
        for path, found in self.facts(project):
            for raised in found.raises:
                code.raises.setdefault((path, raised.function), []).append(raised)
            code.packed[path] = found.calls
        sites: dict[tuple, list[Registration]] = {}
        for reg in project.registrations:
            if reg.plane != "interceptor":
                continue
            denials = {GENERIC, *(names.follow(d) for d in project.mechanism(reg.mechanism)
                                  .model.denials)}
            found = [code.denying(q, denials)
                     for q in reg.handler.candidates or (reg.handler.qualname,)]
            if found and all(found):  # one of several callables: only when each of them denies
                for site in (site for sites_of in found for site in sites_of):
                    sites.setdefault(site, []).append(reg)
        for (path, line, col, name, verb, qualname, via), regs in sorted(sites.items()):
            where = ", ".join(f"{r.file}:{r.line}" for r in regs[:3])
            yield self.at(path, line, col, f"{qualname.rsplit('.', 1)[-1]} {verb.split(' ')[0]} "
                          f"by raising {name}{_kind(verb)}{via} instead of returning a typed "
                          f"decision (an interceptor on {regs[0].mechanism}, registered at "
                          f"{where})", mechanism=regs[0].mechanism, about=tuple(regs))


def _callable_names(tree: ast.Module) -> tuple[set[str], dict[str, set[str]]]:
    """The module's imported and top-level names, and each class's own methods: what a call
    can name a function of the project through (a parameter or a local cannot be followed)."""
    names: set[str] = set()
    methods: dict[str, set[str]] = {}
    for stmt in statements(tree):
        node = stmt.node
        kind = node.__class__  # (the parser's own classes: no subclass to test for)
        if kind is ast.Import or kind is ast.ImportFrom:
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if stmt.cls and stmt.scope == stmt.cls:
                methods.setdefault(stmt.cls, set()).add(node.name)
            elif not stmt.function and not stmt.cls:
                names.add(node.name)
    return names, methods


def _may_be_a_function(callee: str, cls: str, known: tuple[set[str], dict[str, set[str]]]
                       ) -> bool:
    """``f`` imported or defined at the top, ``mod.f`` of an imported name, ``self.f`` /
    ``cls.f`` of the enclosing class's own methods."""
    names, methods = known
    head, _, rest = callee.partition(".")
    if head in ("self", "cls"):
        return "." not in rest and bool(cls) and rest in methods.get(cls, ())
    return "." not in rest and head in names
_VALUED_KINDS = frozenset((ast.Expr, ast.Return, ast.Assign, ast.AnnAssign, ast.AugAssign))


def _statement_call(node: ast.stmt) -> ast.Call | None:
    """The call a statement makes as a whole (awaited or not): its expression, its value, its
    returned value, or an ``if`` / ``while`` test."""
    kind = node.__class__  # (the parser's own classes: no subclass to test for)
    if kind in _VALUED_KINDS:
        value = node.value  # type: ignore[attr-defined]
    elif kind is ast.If or kind is ast.While:
        value = node.test  # type: ignore[attr-defined]
    else:
        return None
    if value.__class__ is ast.Await:
        value = value.value
    return value if value.__class__ is ast.Call else None


class _Code:
    """The raises and calls of the project's functions, and which of them deny."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.raises: dict[tuple[str, str], list[Raised]] = {}  # (file, function) -> its raises
        self.packed: dict[str, bytes] = {}  # file -> its calls, decoded when a handler's are read
        self._calls: dict[str, dict[str, tuple[tuple[int, str, tuple[str, ...]], ...]]] = {}

    def denying(self, qualname: str | None, denials: set[str]) -> list[tuple]:
        """(file, line, col, exception, verb, handler, via) per denying raise: in the handler's
        own body, or in a function it calls directly (one level) outside a ``try`` that
        catches the exception."""
        located = self.names.locate(qualname) if qualname else None
        if located is None or qualname is None:
            return []
        module, function = located
        path = self.names.paths[module]
        out = [(*site, "") for site in self._raises(module, path, function, denials, ())]
        for line, callee, caught in self.calls(path).get(function, ()):
            helper = self._callee(module, function, callee)
            where = self.names.locate(helper) if helper else None
            if where is None or where == located:
                continue
            helper_path = self.names.paths[where[0]]
            via = f" in {where[1].rsplit('.', 1)[-1]} (called at {path}:{line})"
            out += [(*site, via) for site in self._raises(where[0], helper_path, where[1],
                                                           denials, caught, module)]
        return [(path_, line, col, name, verb, qualname, via)
                for path_, line, col, name, verb, via in out]

    def calls(self, path: str) -> dict[str, tuple[tuple[int, str, tuple[str, ...]], ...]]:
        """Function -> (line, callee, caught) per call it makes, in file *path*."""
        if path not in self._calls:
            packed = self.packed.get(path)
            self._calls[path] = dict(marshal.loads(packed)) if packed else {}
        return self._calls[path]

    def _raises(self, module: str, path: str, function: str, denials: set[str],
                outer: tuple[str, ...], outer_module: str = "") -> list[tuple]:
        """(file, line, col, exception, verb) per denying raise of *function* that neither its
        own ``try`` nor the caller's (*outer*, written in *outer_module*) catches."""
        out = []
        for raised in self.raises.get((path, function), ()):
            exception = self.names.resolve(module, raised.name)
            verb = _verb(exception, denials, self.names)
            lineage = _lineage(exception, self.names)
            if verb and not self._catches(module, raised.caught, lineage) and not self._catches(
                    outer_module or module, outer, lineage):
                out.append((path, raised.line, raised.col, raised.name, verb))
        return out

    def _catches(self, module: str, caught: tuple[str, ...], lineage: set[str]) -> bool:
        """Does an ``except`` of *caught* (a bare one, or one that is not a name, included)
        catch an exception of *lineage*?"""
        return any(c in ("", "?") or self.names.resolve(module, c) in lineage for c in caught)

    def _callee(self, module: str, function: str, callee: str) -> str | None:
        """The qualified function *callee* (as written in *function* of *module*) names:
        a module-level or imported function, or ``self.name`` / ``cls.name`` of its class."""
        head, _, rest = callee.partition(".")
        if head in ("self", "cls") and rest:
            classes = self.names.modules[module].classes
            parts = function.split(".")
            owner = next((".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)
                          if ".".join(parts[:i]) in classes), None)
            return f"{module}.{owner}.{rest}" if owner else None
        resolved = self.names.resolve(module, callee)
        return resolved if resolved != callee else None


def _lineage(exception: str, names: Names) -> set[str]:
    """*exception* and its ancestors, the builtin ones' own ancestors included."""
    out = {exception, *names.ancestors(exception)}
    for name in list(out):
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            out.update(k.__name__ for k in builtin.__mro__)
    return out


def _kind(verb: str) -> str:
    """" (a PermissionError)" for a subclass, "" otherwise."""
    return f" {verb.split(' ', 1)[1]}" if " " in verb else ""


def _verb(exception: str, denials: set[str], names: Names) -> str:
    """"denies" for a PermissionError, "stops" / "denies" for a pack-named exception, else ""."""
    lineage = [exception, *names.ancestors(exception)]
    if GENERIC in lineage:
        return "denies" if exception == GENERIC else f"denies (a {GENERIC})"
    if any(e in denials for e in lineage):
        return "stops" if "stop" in exception.rsplit(".", 1)[-1].lower() else "denies"
    return ""
