"""Building matches: a site matched to a registration form, with its point and handler facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from ....packs.model import ArgSpec, Mechanism, RegistrationForm
from ....types import Handler
from ...extract.facts import Arg, FileFacts, Ref, Site, Span
from ...extract.pass_through import copies
from ...extract.refs import render
from ..candidate import Candidate
from ..evaluate.engine import Evaluator
from .handlers import HandlerResolver
from .points import Points, args_for

CALLABLE_KINDS = ("func", "bound", "lambda", "partial")
NOT_GIVEN = "<not given at this call>"


@dataclass
class Match:
    """A site matched to a registration form, with the syntax it came from (what deriving a
    forwarder needs); ``candidate()`` is the plain fact classification reads."""

    file: str
    module: str
    site: Site
    mechanism: Mechanism
    spec: RegistrationForm
    api: str
    point: str | None
    handler: Handler
    confidence: str = "high"
    evidence: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    point_note: str | None = None  # why the point is unknown
    handler_arg: Arg | None = None
    point_args: tuple[Arg, ...] = ()
    receiver: Ref | None = None
    at: Span | None = None  # the registering node when it is not the whole site (a keyword)

    @property
    def span(self) -> Span:
        site = self.site
        return self.at or (site.line, site.col, site.end_line, site.end_col)

    @property
    def line(self) -> int:
        return self.span[0]

    @property
    def col(self) -> int:
        return self.span[1]

    @property
    def scope(self) -> str:
        return self.site.scope

    def candidate(self) -> Candidate:
        flags = list(self.flags)
        if self.handler.returns_awaitable and not self.handler.declared_async:
            flags.append("returns_awaitable")  # a sync handler that can hand back an awaitable
        line, col, end_line, end_col = self.span
        return Candidate(
            file=self.file, line=line, col=col, end_line=end_line, end_col=end_col,
            scope=self.scope,
            mechanism=self.mechanism.id, via=self.spec.kind, api=self.api, point=self.point,
            point_note=self.point_note, handler=self.handler, confidence=self.confidence,
            evidence=tuple(e for e in self.evidence if e), flags=tuple(dict.fromkeys(flags)),
            site=(self.site.line, self.site.col),
            conditions=conditions(self.site, self.spec),
        )


def _passing(site: Site, api: str, handler: Handler, arg: Arg | None) -> str:
    """Why the site registers nothing new (``extract.pass_through``): it hands on the handler
    the slot already holds, puts back one saved from it, or a value that is not callable. A
    handler the link resolved to a function is a registration however it is spelled."""
    slot = api.rsplit(".", 1)[-1]
    resolved = handler.qualname is not None or handler.kind != "unknown"
    if arg is not None and not resolved and copies(arg.ref, slot):
        return f"copies the handler `{slot}` already holds ({arg.text}), not a new registration"
    if site.passing and not (resolved and site.passing.startswith("puts back")):
        return site.passing
    return ""


class Builder:
    """Matches from their parts: the handler an argument is, the decorated function, the
    arguments a spec designates."""

    def __init__(self, evaluator: Evaluator, points: Points) -> None:
        self.ev = evaluator
        self.points = points
        self.handlers = HandlerResolver(evaluator)

    def match(self, facts: FileFacts, site: Site, mech: Mechanism, spec: RegistrationForm,
              api: str, point: str | None, note: str | None, handler: Handler, confidence: str,
              evidence: list[str], flags: list[str], handler_arg: Arg | None = None,
              receiver: Ref | None = None, at: Span | None = None) -> Match:
        evidence = [e for e in evidence if e]
        if _reads_effects(mech):
            handler = self.handlers.with_effects(handler)
        if handler.by_name:
            evidence.append(f"handler {handler.expr}: its receiver has no type; "
                            f"{handler.qualname} is the only function of that name in view, "
                            "so the handler is taken to be it")
        if note:
            flags = [*flags, "dynamic_point"]
        evidence += [f"only with {condition}" for condition in conditions(site, spec)]
        passing = _passing(site, api, handler, handler_arg)
        if passing:
            flags = [*flags, "pass_through"]
            evidence.append(f"registers nothing new: {passing}")
        point_args = tuple(args_for(site, spec.point)) if spec.point else ()
        return Match(
            file=facts.path, module=facts.module, site=site, mechanism=mech, spec=spec, api=api,
            point=point, handler=handler, confidence=confidence, evidence=evidence, flags=flags,
            point_note=note, handler_arg=handler_arg, point_args=point_args, receiver=receiver,
            at=at,
        )

    @staticmethod
    def arg(site: Site, spec: ArgSpec | None) -> Arg | None:
        found = args_for(site, spec)
        return found[0] if found else None

    def handler(self, ref: Ref, text: str, facts: FileFacts, site: Site) -> Handler:
        return self.handlers.resolve(ref, text, facts.module, site.scope)

    @staticmethod
    def handler_items(arg: Arg | None, many: bool) -> list[tuple[Ref, str]]:
        """The handler expressions an argument holds: one, or each of a literal list."""
        if arg is None:
            return [(("const", "None"), "<missing>")]
        if many and arg.ref[0] == "seq":
            return [(item, render(item)) for item in arg.ref[2]]
        if many and arg.ref[0] == "either":
            seqs = [r for r in arg.ref[1] if r[0] == "seq"]
            if seqs:
                return [(item, render(item)) for seq in seqs for item in seq[2]]
        return [(arg.ref, arg.text)]

    def decorated(self, facts: FileFacts, site: Site) -> Handler:
        """The function or class a decorator site decorates, as a handler."""
        qn = f"{facts.module}.{site.decorated}" if facts.module else site.decorated
        named = site.decorated.isidentifier()
        # a decorator applied by a call to a name (`connect_via(app)(on_loaded)` in a function):
        # what the name is where the call is, a local def before the module's
        found = self._function_named(facts, site) if named and site.scope else None
        func = self.ev.index.functions.get(found or qn)
        if func is None and named and not site.scope:  # (a name the module imports)
            found = self._function_named(facts, site)
            func = self.ev.index.functions.get(found) if found else None
        qn = found or qn
        name = site.decorated.rsplit(".", 1)[-1]
        if func is None:
            return Handler(name, qn, site.decorated_async, None, "class")
        kind = "method" if func.kind != "function" else "function"
        returns = True if func.is_async else self.handlers.function_returns_awaitable(qn)
        return Handler(name, qn, func.is_async and not func.is_generator, returns, kind)

    def _function_named(self, facts: FileFacts, site: Site) -> str | None:
        """The function the decorated name is where the site is, if it is one."""
        return next((v[1] for v in self.ev.eval(("name", site.decorated), facts.module,
                                                site.scope) if v[0] == "func"), None)

    def looks_callable(self, arg: Arg, facts: FileFacts, site: Site) -> bool:
        values = self.ev.eval(arg.ref, facts.module, site.scope)
        return any(v[0] in CALLABLE_KINDS for v in values)


def conditions(site: Site, spec: RegistrationForm) -> tuple[str, ...]:
    """The keywords narrowing a registration that its form names, as ``keyword=text``."""
    return tuple(f"{arg.name}={arg.text}" for arg in site.args
                 if arg.name is not None and arg.name in spec.conditions)


def _reads_effects(mech: Mechanism) -> bool:
    """Whether a classify rule of the mechanism asks what a handler's body does: reading it
    follows the body's calls, which only such a rule needs."""
    return any(key == "handler_effect" for rule in mech.classify for key, _ in rule.when)
