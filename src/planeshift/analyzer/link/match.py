"""Site matching: decide which sites register or emit on which mechanism, with the facts why.

A site matches a registration form only when its receiver (or callee) resolves to that
mechanism's dispatcher, an alias of it, or a subclass. A receiver that resolves to anything else
is a look-alike and is dropped. One that is dynamic (a loop variable, ``getattr``) is kept as
``needs_review`` with the reason. One that cannot be typed at all is kept with its normal plane
when its point argument is one of the mechanism's own points, as ``needs_review`` when it is
handed a callable, and dropped otherwise (``sqlite3.connect``-style look-alikes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...rules.forms import ArgSpec, EmissionForm, Mechanism, Pack, RegistrationForm
from ...types import Handler
from .candidate import Candidate
from ..extract.facts import Arg, ConfigHook, FileFacts, Ref, Site
from .emissions import EmissionMatcher
from .handlers import HandlerResolver
from .evaluate import Evaluator, Values
from .points import PointResolver, args_for
from ..extract.refs import render
from ..extract.sites import LIST_METHODS

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

    @property
    def line(self) -> int:
        return self.site.line

    @property
    def col(self) -> int:
        return self.site.col

    @property
    def scope(self) -> str:
        return self.site.scope

    def candidate(self) -> Candidate:
        flags = list(self.flags)
        if self.handler.returns_awaitable and not self.handler.declared_async:
            flags.append("returns_awaitable")  # a sync handler that can hand back an awaitable
        return Candidate(
            file=self.file, line=self.line, col=self.col, scope=self.scope,
            mechanism=self.mechanism.id, via=self.spec.kind, api=self.api, point=self.point,
            point_note=self.point_note, handler=self.handler, confidence=self.confidence,
            evidence=tuple(e for e in self.evidence if e), flags=tuple(dict.fromkeys(flags)),
        )


class Matcher(PointResolver, EmissionMatcher):
    def __init__(self, packs: tuple[Pack, ...], evaluator: Evaluator) -> None:
        self.ev = evaluator
        self.handlers = HandlerResolver(evaluator)
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.excluded = frozenset(name for p in packs for name in p.not_registrations)
        self.by_method: dict[str, list[tuple[Mechanism, RegistrationForm]]] = defaultdict(list)
        self.by_list: dict[str, list[tuple[Mechanism, RegistrationForm]]] = defaultdict(list)
        self.by_assign: dict[str, list[tuple[Mechanism, RegistrationForm]]] = defaultdict(list)
        self.by_callee: list[tuple[Mechanism, RegistrationForm]] = []
        self.emit_by_method: dict[str, list[tuple[Mechanism, EmissionForm]]] = defaultdict(list)
        self.emit_by_callee: list[tuple[Mechanism, EmissionForm]] = []
        for mech in self.mechanisms:
            for spec in mech.registrations:
                self.add(mech, spec)
            for em in mech.emissions:
                if em.kind == "method":
                    self.emit_by_method[em.name].append((mech, em))
                else:
                    self.emit_by_callee.append((mech, em))
        self._ids: dict[tuple[str, ...], tuple[frozenset[str], frozenset]] = {}  # with reads
        self._bodies: tuple[frozenset[str], frozenset] | None = None  # with reads

    def add(self, mech: Mechanism, spec: RegistrationForm, list_alias: str | None = None) -> None:
        """Index a registration form (pack-given, or derived by the linker)."""
        if list_alias is not None:
            self.by_list[list_alias].append((mech, spec))
        elif spec.kind == "method":
            self.by_method[spec.name].append((mech, spec))
        elif spec.kind == "append":
            self.by_list[spec.name].append((mech, spec))
        elif spec.kind == "assign":
            self.by_assign[spec.name].append((mech, spec))
        else:
            self.by_callee.append((mech, spec))

    # -- identities ---------------------------------------------------------------------------
    def ids(self, names: tuple[str, ...]) -> frozenset[str]:
        """Canonical identities of qualified names: the names themselves and what they resolve to."""
        deps = self.ev.index.deps
        if names not in self._ids:
            deps.push()
            out = set(names)
            try:
                for name in names:
                    for value in self.ev.qualified(name):
                        if value[0] in ("cls", "func", "ext"):
                            out.add(value[1])
            finally:
                read = deps.pop()
            self._ids[names] = (frozenset(out), read)
            return self._ids[names][0]
        ids, read = self._ids[names]
        deps.add(read)
        return ids

    def dispatcher_ids(self, mech: Mechanism) -> frozenset[str]:
        return self.ids(mech.dispatchers + mech.aliases)

    def status(self, values: Values, ids: frozenset[str]) -> tuple[str, str]:
        """("match" | "dynamic" | "unknown" | "other", explanation) for a receiver's values."""
        hits = [
            v for v in values
            if v[0] in ("inst", "cls") and any(c in ids for c in self.ev.mro(v[1]))
        ]
        if hits:
            return "match", ", ".join(sorted({_short(v) for v in hits}))
        dyn = [v for v in values if v[0] == "dyn"]
        if dyn:
            return "dynamic", dyn[0][1]
        if values and all(v[0] == "unknown" for v in values):
            return "unknown", sorted(values)[0][1]
        return "other", ", ".join(sorted({str(v[1]) for v in values if len(v) > 1}))

    def callee_ids(self, values: Values) -> set[str]:
        out: set[str] = set()
        for v in values:
            if v[0] in ("func", "ext"):
                out.add(v[1])
            elif v[0] == "bound":
                out.add(self.ev.method(v[1], v[2]) or f"{v[1]}.{v[2]}")
                if v[2] == "__init__":  # super().__init__(...) constructs the base class
                    out.update(self.ev.mro(v[1]))
            elif v[0] == "cls":
                out.update(self.ev.mro(v[1]))
                init = self.ev.method(v[1], "__init__")
                if init is not None:  # constructing X calls X.__init__ (a derived forwarder)
                    out.add(init)
        return out

    # -- sites --------------------------------------------------------------------------------
    def api_bodies(self) -> frozenset[str]:
        """Qualnames of pack-declared registration functions and decorators: sites inside their
        own bodies are the API's plumbing (``def hook(p): def wrap(fn): bus.on(p, fn)``)."""
        deps = self.ev.index.deps
        if self._bodies is None:
            names = tuple(
                spec.name for _, spec in self.by_callee
                if spec.kind in ("function", "decorator") and not spec.forwards
            )
            deps.push()
            try:
                found = frozenset(n for n in self.ids(names) if n in self.ev.index.functions)
            finally:
                self._bodies = (found, deps.pop())
            return found
        deps.add(self._bodies[1])
        return self._bodies[0]

    def registrations(self, facts: FileFacts) -> Iterator[Match]:
        bodies = self.api_bodies()
        for site in facts.sites:
            scope = f"{facts.module}.{site.scope}"
            if bodies and any(scope == b or scope.startswith(b + ".") for b in bodies):
                continue
            yield from self._site(facts, site)
        for hook in facts.config_hooks:
            yield from self._config(facts, hook)

    def _config(self, facts: FileFacts, hook: ConfigHook) -> Iterator[Match]:
        """An external hook command in a settings file (ADR-0120 D6)."""
        for mech in self.mechanisms:
            if not any(c.key == hook.key_path for c in mech.config):
                continue
            shell = isinstance(hook.command, str)
            text = hook.command if shell else " ".join(map(str, hook.command))
            site = Site(kind="config", line=hook.line, col=0, scope="", func=("other", "config"),
                        text=hook.key_path)
            spec = RegistrationForm(kind="config", name=hook.key_path)
            evidence = [f"{hook.key_path}.{hook.event} command in {facts.path}",
                        "a shell string: the runtime requires argv (ADR-0120 D6)" if shell
                        else "argv, never reaches a shell"]
            yield self._candidate(facts, site, mech, spec, f"{hook.key_path}.{hook.event}",
                                  hook.event, None, Handler(text, None, None, None, "process"),
                                  "high", evidence, [])
            return

    def _site(self, facts: FileFacts, site: Site) -> Iterator[Match]:
        func = site.func
        if site.kind == "assign":
            if func[0] == "attr":
                for mech, spec in self.by_assign.get(func[2], ()):
                    yield from self._slot(facts, site, mech, spec, func[1])
            return
        if func[0] == "attr":
            method, receiver = func[2], func[1]
            if self.excluded and self._excluded(facts, site, receiver, method):
                return
            if method in self.by_method:
                yield from self._methods(facts, site, method, receiver)
            if site.kind == "call" and method in LIST_METHODS and receiver[0] == "attr":
                for mech, spec in self.by_list.get(receiver[2], ()):
                    yield from self._append(facts, site, mech, spec, receiver, method)
        elif func[0] in ("name", "call") and self.by_method:
            # `register = bus.on; register(...)` or `getattr(bus, "on")(...)`: a bound method
            for value in self.ev.eval(func, facts.module, site.scope):
                if value[0] == "bound" and value[2] in self.by_method:
                    yield from self._methods(facts, site, value[2], func,
                                             frozenset({("inst", value[1])}))
        if self.by_callee:
            yield from self._callee(facts, site)

    def _excluded(self, facts: FileFacts, site: Site, receiver: Ref, method: str) -> bool:
        """A call the packs list as never a registration (``atexit.register``, ...)."""
        for value in self.ev.eval(receiver, facts.module, site.scope):
            if value[0] in ("mod", "ext", "inst", "cls", "extcall"):
                if f"{value[1]}.{method}" in self.excluded:
                    return True
        return False

    def _methods(self, facts, site, method: str, receiver: Ref,
                 values: Values | None = None) -> Iterator[Match]:
        if values is None:
            values = self.ev.eval(receiver, facts.module, site.scope)
        unknown: list[tuple[Mechanism, RegistrationForm, str]] = []
        for mech, spec in self.by_method[method]:
            status, why = self.status(values, self.dispatcher_ids(mech))
            if status == "match":
                yield self._method_candidate(facts, site, mech, spec, receiver,
                                             [f"{render(receiver)} is {why}"], [], "high")
            elif status == "dynamic":
                yield self._method_candidate(facts, site, mech, spec, receiver,
                                             [f"receiver {render(receiver)} is dynamic ({why})"],
                                             ["dynamic_receiver"], "low")
            elif status == "unknown":
                unknown.append((mech, spec, why))
        if unknown and self._forwards_params(facts, site, receiver):
            # a helper handed its dispatcher, point and handler by its caller: the linker turns
            # it into a derived registration API and resolves the dispatcher at each call site
            mech, spec, why = unknown[0]
            yield self._method_candidate(
                facts, site, mech, spec, receiver,
                [f"receiver {render(receiver)} is a parameter ({why})"], ["unresolved_receiver"],
                "medium")
            return
        corroborated = False
        for mech, spec, why in unknown:
            _, _, in_enum = self.point_of(facts, site, mech, spec)
            if in_enum:
                corroborated = True
                yield self._method_candidate(
                    facts, site, mech, spec, receiver,
                    [f"receiver {render(receiver)} is not inferable ({why}); its point argument is "
                     f"a {mech.id} point"], ["unresolved_receiver"], "medium")
        if unknown and not corroborated:
            mech, spec, why = unknown[0]
            cand = self._method_candidate(facts, site, mech, spec, receiver, [], [], "low")
            if cand.handler_arg is not None and self._looks_callable(cand.handler_arg, facts, site):
                names = ", ".join(m.id for m, _, _ in unknown)
                cand.evidence = [f"receiver {render(receiver)} is not inferable ({why}); "
                                 f".{method}() is a registration API of {names}"]
                cand.flags = ["receiver_unknown"]
                yield cand

    def _forwards_params(self, facts: FileFacts, site: Site, receiver: Ref) -> bool:
        """Is the receiver, and some other argument, a parameter of the enclosing function?"""
        func = self.ev.index.functions.get(f"{facts.module}.{site.scope}")
        if func is None or receiver[0] != "name":
            return False
        names = {p.name for p in func.params if p.kind not in ("self", "cls")}
        others = {a.ref[1] for a in site.args if a.ref[0] == "name"}
        return receiver[1] in names and bool(others & names)

    def _looks_callable(self, arg: Arg, facts: FileFacts, site: Site) -> bool:
        values = self.ev.eval(arg.ref, facts.module, site.scope)
        return any(v[0] in CALLABLE_KINDS for v in values)

    def _method_candidate(self, facts, site, mech, spec, receiver, evidence, flags, confidence):
        point, note, _ = self.point_of(facts, site, mech, spec)
        handler_arg = None
        if site.kind == "decorator":
            handler = self.decorated(facts, site)
            evidence = [*evidence, f"decorates {site.decorated}"]
        else:
            handler_arg = self._arg(site, spec.handler)
            if handler_arg is None:
                handler = Handler(NOT_GIVEN)
                flags = [*flags, "handler_not_given"]
            else:
                handler = self.handlers.resolve(handler_arg.ref, handler_arg.text, facts.module,
                                                site.scope)
        return self._candidate(facts, site, mech, spec, spec.name, point, note, handler, confidence,
                               evidence, flags, handler_arg=handler_arg, receiver=receiver)

    def _slot(self, facts, site, mech, spec, owner: Ref) -> Iterator[Match]:
        """``owner.<attr> = handler``: a single-slot setter such as a gate or a processor."""
        ids = self.ids(spec.owner) if spec.owner else self.dispatcher_ids(mech)
        status, why = self.status(self.ev.eval(owner, facts.module, site.scope), ids)
        arg = site.args[0]
        if arg.ref == ("const", "None"):
            return  # clearing a slot registers nothing
        if status == "unknown" and self._looks_callable(arg, facts, site):
            status, why = "unresolved", f"not inferable ({why}); a callable is stored in .{spec.name}"
        elif status not in ("match", "dynamic"):
            return
        flags = {"dynamic": ["dynamic_receiver"], "unresolved": ["receiver_unknown"]}.get(status, [])
        handler = self.handlers.resolve(arg.ref, arg.text, facts.module, site.scope)
        yield self._candidate(facts, site, mech, spec, spec.name, spec.fixed_point, None, handler,
                              "high" if not flags else "low",
                              [f"{render(owner)} is {why}", f"assigns the {spec.name} slot"], flags,
                              handler_arg=arg, receiver=owner)

    def list_status(self, list_ref: Ref, spec: RegistrationForm, mech: Mechanism, module: str, scope: str,
                    depth: int = 0) -> tuple[str, str]:
        """Is *list_ref* the callback list of the spec, directly or through a property?"""
        if list_ref[0] != "attr" or depth > 3:
            return "other", ""
        owner, name = list_ref[1], list_ref[2]
        values = self.ev.eval(owner, module, scope)
        if name == spec.name:
            ids = self.ids(spec.owner) if spec.owner else self.dispatcher_ids(mech)
            status, why = self.status(values, ids)
            return status, f"{render(owner)} is {why}"
        for value in values:
            if value[0] != "inst":
                continue
            qn = self.ev.method(value[1], name)
            func = self.ev.index.functions.get(qn) if qn else None
            if func is None or func.kind != "property":
                continue
            fmodule, fscope = self.ev.index.function_scope(qn)
            for ref in func.return_values:
                status, why = self.list_status(ref, spec, mech, fmodule, fscope, depth + 1)
                if status == "match":
                    return status, f"{why}, reached through property {_short(value)}.{name}"
        return "other", ""

    def _append(self, facts, site, mech, spec, list_ref: Ref, method: str) -> Iterator[Match]:
        status, why = self.list_status(list_ref, spec, mech, facts.module, site.scope)
        if status == "other" and self._owner_unknown(list_ref, facts, site):
            # the list's own name is the pack's callback list (or a property over it), but its
            # owner cannot be typed: keep the site for review rather than drop it
            status, why = "unresolved", f"{render(list_ref[1])} is not inferable"
        if status not in ("match", "dynamic", "unresolved"):
            return
        positional = [a for a in site.args if a.name is None]
        arg = positional[-1] if positional else None
        flags = {"dynamic": ["dynamic_receiver"], "unresolved": ["receiver_unknown"]}.get(status, [])
        evidence = [why, f"{method} onto the {spec.name} callback list"]
        api = f"{spec.name}.{method}"
        confidence = "high" if not flags else "low"
        if spec.item is not None:
            yield self._tuple_item(facts, site, mech, spec, arg, api, evidence, flags, confidence)
            return
        for ref, text in self._handler_items(arg, many=(method == "extend")):
            handler = self.handlers.resolve(ref, text, facts.module, site.scope)
            yield self._candidate(facts, site, mech, spec, api, spec.fixed_point, None, handler,
                                  confidence, list(evidence), list(flags), handler_arg=arg,
                                  receiver=list_ref)

    def _owner_unknown(self, list_ref: Ref, facts: FileFacts, site: Site) -> bool:
        values = self.ev.eval(list_ref[1], facts.module, site.scope)
        return bool(values) and all(v[0] == "unknown" for v in values)

    def _tuple_item(self, facts, site, mech, spec, arg, api, evidence, flags, confidence):
        """``entries.append((point, handler))``: a queue of registrations flushed later."""
        point_pos, handler_pos = spec.item
        if arg is None or arg.ref[0] != "seq" or len(arg.ref[2]) <= max(point_pos, handler_pos):
            text = arg.text if arg is not None else "<missing>"
            return self._candidate(facts, site, mech, spec, api, None,
                                   f"queued entry {text} is not a literal tuple", Handler(text),
                                   "low", evidence, flags, handler_arg=arg)
        items = arg.ref[2]
        values = self.ev.eval(items[point_pos], facts.module, site.scope)
        point, note, _ = self.normalize_point(values, mech, render(items[point_pos]))
        handler_ref = items[handler_pos]
        handler = self.handlers.resolve(handler_ref, render(handler_ref), facts.module, site.scope)
        return self._candidate(facts, site, mech, spec, api, point, note, handler, confidence,
                               evidence, flags, handler_arg=Arg(None, handler_ref, render(handler_ref)))

    def _callee(self, facts: FileFacts, site: Site) -> Iterator[Match]:
        callee: set[str] | None = None
        for mech, spec in self.by_callee:
            if (spec.kind == "decorator") != (site.kind == "decorator"):
                continue
            if spec.kind == "keyword" and not any(a.name == spec.name for a in site.args):
                continue
            if callee is None:
                callee = self.callee_ids(self.ev.eval(site.func, facts.module, site.scope))
            targets = self.ids(spec.callables or (spec.name,))
            hit = callee & targets
            if hit:
                yield from self._callee_registration(facts, site, mech, spec, sorted(hit)[0])

    def _callee_registration(self, facts, site, mech, spec, target: str) -> Iterator[Match]:
        evidence = [f"{site.text} resolves to {target}"]
        if spec.forwards:
            evidence.append(f"{spec.name} forwards its parameters to a registration")
        if spec.kind == "decorator":
            handler = self.decorated(facts, site)
            point, note, _ = self.point_of(facts, site, mech, spec)
            yield self._candidate(facts, site, mech, spec, spec.api_suffix, point, note, handler,
                                  "high", evidence + [f"decorates {site.decorated}"], [])
            return
        flags: list[str] = []
        confidence = "high"
        if spec.receiver is not None:
            recv = self._arg(site, spec.receiver)
            if recv is not None:
                values = self.ev.eval(recv.ref, facts.module, site.scope)
                status, why = self.status(values, self.dispatcher_ids(mech))
                if status == "other":
                    return
                if status != "match":
                    flags.append("dynamic_receiver" if status == "dynamic" else "unresolved_receiver")
                    confidence = "low" if status == "dynamic" else "medium"
                evidence.append(f"dispatcher argument {recv.text} is {why}")
        if spec.kind == "mapping":
            yield from self._mapping(facts, site, mech, spec, evidence)
            return
        point, note, _ = self.point_of(facts, site, mech, spec)
        if spec.fixed_handler is not None:
            yield self._candidate(facts, site, mech, spec, spec.api_suffix, point, note,
                                  spec.fixed_handler, confidence, evidence, flags)
            return
        handler_spec = spec.handler if spec.kind == "function" else ArgSpec(keyword=spec.name)
        arg = self._arg(site, handler_spec)
        if arg is None or arg.ref == ("const", "None"):
            return  # nothing (or an explicit None) handed to this slot
        for ref, text in self._handler_items(arg, many=spec.many):
            handler = self.handlers.resolve(ref, text, facts.module, site.scope)
            yield self._candidate(facts, site, mech, spec, spec.api_suffix, point, note, handler,
                                  confidence, list(evidence), list(flags), handler_arg=arg)

    def _mapping(self, facts, site, mech, spec, evidence) -> Iterator[Match]:
        """``Registry(hooks={point: handler, ...})``: one registration per literal entry."""
        arg = self._arg(site, spec.handler or ArgSpec(keyword=spec.name))
        spread = [a for a in site.args if a.star == "**"]
        if arg is None and spread:
            yield self._candidate(facts, site, mech, spec, spec.name, None,
                                  f"{spec.name} may arrive through **{spread[0].text}",
                                  Handler(f"**{spread[0].text}"), "low", evidence, [],
                                  handler_arg=spread[0])
            return
        if arg is None or arg.ref == ("const", "None"):
            return
        if arg.ref[0] != "dict":
            yield self._candidate(facts, site, mech, spec, spec.name, None,
                                  f"hooks mapping {arg.text} is not a literal", Handler(arg.text),
                                  "low", evidence, [], handler_arg=arg)
            return
        for key, value in arg.ref[1]:
            values = self.ev.eval(key, facts.module, site.scope)
            point, note, _ = self.normalize_point(values, mech, render(key))
            handler = self.handlers.resolve(value, render(value), facts.module, site.scope)
            yield self._candidate(facts, site, mech, spec, spec.name, point, note, handler, "high",
                                  list(evidence), [], handler_arg=Arg(None, value, render(value)))

    # -- pieces -------------------------------------------------------------------------------
    def _arg(self, site: Site, spec: ArgSpec | None) -> Arg | None:
        found = args_for(site, spec)
        return found[0] if found else None

    @staticmethod
    def _handler_items(arg: Arg | None, many: bool) -> list[tuple[Ref, str]]:
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
        qn = f"{facts.module}.{site.decorated}" if facts.module else site.decorated
        func = self.ev.index.functions.get(qn)
        name = site.decorated.rsplit(".", 1)[-1]
        if func is None:
            return Handler(name, qn, site.decorated_async, None, "class")
        kind = "method" if func.kind != "function" else "function"
        returns = True if func.is_async else self.handlers.function_returns_awaitable(qn)
        return Handler(name, qn, func.is_async and not func.is_generator, returns, kind)

    def _candidate(self, facts, site, mech, spec, api, point, note, handler, confidence,
                   evidence, flags, handler_arg=None, receiver=None) -> Match:
        evidence = [e for e in evidence if e]
        if note:
            flags = [*flags, "dynamic_point"]
        point_args = tuple(args_for(site, spec.point)) if spec.point else ()
        return Match(
            file=facts.path, module=facts.module, site=site, mechanism=mech, spec=spec, api=api,
            point=point, handler=handler, confidence=confidence, evidence=evidence, flags=flags,
            point_note=note, handler_arg=handler_arg, point_args=point_args, receiver=receiver,
        )

def _short(value: tuple) -> str:
    name = value[1].rsplit(".", 1)[-1]
    return f"an instance of {name}" if value[0] == "inst" else f"the class {name}"
