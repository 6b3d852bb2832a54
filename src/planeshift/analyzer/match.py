"""Site matching: decide which sites register or emit on which mechanism, with the facts why.

A site matches a mechanism's registration form only when its receiver (or callee) resolves to
that mechanism's dispatcher, an alias of it, or a subclass. A receiver that resolves to anything
else is a look-alike and is dropped; one that is dynamic (a loop variable, ``getattr``) is kept
as ``needs_review`` with the reason; one that cannot be typed at all is kept only when the point
argument ties it to the mechanism's own point vocabulary.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..rules.packs import ArgSpec, Emission as EmissionSpec, Mechanism, Pack, Registration as RegSpec
from .facts import Arg, FileFacts, Ref, Site
from .handlers import HandlerResolver
from .infer import Evaluator, Values
from .refs import render
from .sites import LIST_METHODS
from ..types import Handler


@dataclass
class Candidate:
    """A registration before classification."""

    file: str
    line: int
    col: int
    scope: str
    mechanism: Mechanism
    spec: RegSpec
    api: str
    point: str | None
    handler: Handler
    confidence: str = "high"
    evidence: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    point_note: str | None = None  # why the point is unknown


@dataclass
class RawEmission:
    file: str
    line: int
    col: int
    scope: str
    mechanism: Mechanism
    api: str
    point: str | None
    dynamic: bool


class Matcher:
    def __init__(self, packs: tuple[Pack, ...], evaluator: Evaluator) -> None:
        self.ev = evaluator
        self.handlers = HandlerResolver(evaluator)
        self.mechanisms = [m for p in packs for m in p.mechanisms]
        self.excluded = {name for p in packs for name in p.not_registrations}
        self.by_method: dict[str, list[tuple[Mechanism, RegSpec]]] = defaultdict(list)
        self.by_append: dict[str, list[tuple[Mechanism, RegSpec]]] = defaultdict(list)
        self.by_assign: dict[str, list[tuple[Mechanism, RegSpec]]] = defaultdict(list)
        self.by_callee: list[tuple[Mechanism, RegSpec]] = []
        self.emit_by_method: dict[str, list[tuple[Mechanism, EmissionSpec]]] = defaultdict(list)
        self.emit_by_callee: list[tuple[Mechanism, EmissionSpec]] = []
        for mech in self.mechanisms:
            for spec in mech.registrations:
                table = {"method": self.by_method, "append": self.by_append, "assign": self.by_assign}
                if spec.kind in table:
                    table[spec.kind][spec.name].append((mech, spec))
                else:
                    self.by_callee.append((mech, spec))
            for em in mech.emissions:
                if em.kind == "method":
                    self.emit_by_method[em.name].append((mech, em))
                else:
                    self.emit_by_callee.append((mech, em))
        self._ids: dict[tuple[str, ...], frozenset[str]] = {}

    # -- identities ---------------------------------------------------------------------------
    def ids(self, names: tuple[str, ...]) -> frozenset[str]:
        """Canonical identities of qualified names: the names themselves and what they resolve to."""
        if names not in self._ids:
            out = set(names)
            for name in names:
                for value in self.ev.qualified(name):
                    if value[0] in ("cls", "func", "ext"):
                        out.add(value[1])
            self._ids[names] = frozenset(out)
        return self._ids[names]

    def dispatcher_ids(self, mech: Mechanism) -> frozenset[str]:
        return self.ids(mech.dispatchers + mech.aliases)

    def is_dispatcher(self, cls: str, mech: Mechanism) -> bool:
        ids = self.dispatcher_ids(mech)
        return any(c in ids for c in self.ev.mro(cls))

    def receiver_status(self, values: Values, mech: Mechanism) -> tuple[str, str]:
        """("match" | "dynamic" | "unknown" | "other", explanation) for a receiver's values."""
        hits = [v for v in values if v[0] in ("inst", "cls") and self.is_dispatcher(v[1], mech)]
        if hits:
            return "match", ", ".join(sorted({v[1] for v in hits}))
        dyn = [v for v in values if v[0] == "dyn"]
        if dyn:
            return "dynamic", dyn[0][1]
        if values and all(v[0] == "unknown" for v in values):
            return "unknown", sorted(values)[0][1]
        return "other", ", ".join(sorted({str(v[1]) for v in values if len(v) > 1}))

    # -- sites --------------------------------------------------------------------------------
    def registrations(self, facts: FileFacts) -> Iterator[Candidate]:
        for site in facts.sites:
            yield from self._site(facts, site)

    def _site(self, facts: FileFacts, site: Site) -> Iterator[Candidate]:
        func = site.func
        if site.kind == "assign":
            if func[0] == "attr":
                for mech, spec in self.by_assign.get(func[2], ()):
                    yield from self._on_receiver(facts, site, mech, spec, func[1], site.args[0])
            return
        if func[0] == "attr":
            method, receiver = func[2], func[1]
            for mech, spec in self.by_method.get(method, ()):
                handler_arg = None if site.kind == "decorator" else self._arg(site, spec.handler)
                yield from self._on_receiver(facts, site, mech, spec, receiver, handler_arg)
            if site.kind == "call" and method in LIST_METHODS and receiver[0] == "attr":
                for mech, spec in self.by_append.get(receiver[2], ()):
                    yield from self._append(facts, site, mech, spec, receiver[1], method)
        if self.by_callee:
            yield from self._callee(facts, site)

    def _arg(self, site: Site, spec: ArgSpec | None, taken: set[int] | None = None) -> Arg | None:
        found = self.args_for(site, spec, taken)
        return found[0] if found else None

    @staticmethod
    def args_for(site: Site, spec: ArgSpec | None, taken: set[int] | None = None) -> list[Arg]:
        if spec is None:
            return []
        positional = [a for a in site.args if a.name is None and not a.star]
        if spec.keyword is not None:
            for a in site.args:
                if a.name == spec.keyword:
                    return [a]
        if spec.rest:
            return [a for i, a in enumerate(positional) if i not in (taken or set())]
        if spec.index is not None and len(positional) >= max(spec.min_args, 1):
            index = spec.index if spec.index >= 0 else len(positional) + spec.index
            if 0 <= index < len(positional):
                return [positional[index]]
        return []

    def _on_receiver(self, facts, site, mech, spec, receiver: Ref, handler_arg) -> Iterator[Candidate]:
        values = self.ev.eval(receiver, facts.module, site.scope)
        status, why = self.receiver_status(values, mech)
        if status == "other":
            return
        point, note, point_in_enum = self.point_of(facts, site, mech, spec)
        evidence = [f"{render(receiver)} is {why}" if status == "match" else ""]
        flags: list[str] = []
        confidence = "high"
        if status == "dynamic":
            evidence = [f"receiver {render(receiver)} is dynamic ({why})"]
            flags.append("dynamic_receiver")
            confidence = "low"
        elif status == "unknown":
            if not point_in_enum:
                return
            evidence = [f"receiver {render(receiver)} is not inferable ({why}); its point argument "
                        f"is a {mech.id} point"]
            flags.append("unresolved_receiver")
            confidence = "medium"
        if site.kind == "decorator":
            handler = self._decorated(facts, site)
            evidence.append(f"decorates {site.decorated}")
        elif handler_arg is None:
            handler = Handler("<not given at this call>")
            flags.append("handler_not_given")
        else:
            handler = self.handlers.resolve(handler_arg.ref, handler_arg.text, facts.module, site.scope)
        yield self._candidate(facts, site, mech, spec, spec.name, point, note, handler,
                              confidence, evidence, flags)

    def _append(self, facts, site, mech, spec, owner: Ref, method: str) -> Iterator[Candidate]:
        values = self.ev.eval(owner, facts.module, site.scope)
        status, why = self.receiver_status(values, mech)
        if status != "match" and status != "dynamic":
            return
        positional = [a for a in site.args if a.name is None]
        arg = positional[-1] if positional else None
        flags = ["dynamic_receiver"] if status == "dynamic" else []
        evidence = [f"{render(owner)} is {why}" if status == "match" else
                    f"receiver {render(owner)} is dynamic ({why})"]
        evidence.append(f"{method} onto the {spec.name} callback list")
        for ref, text in self._handler_items(arg, many=(method == "extend")):
            handler = self.handlers.resolve(ref, text, facts.module, site.scope)
            yield self._candidate(facts, site, mech, spec, f"{spec.name}.{method}", spec.fixed_point,
                                  None, handler, "high" if not flags else "low", list(evidence),
                                  list(flags))

    def _callee(self, facts: FileFacts, site: Site) -> Iterator[Candidate]:
        callee: Values | None = None
        for mech, spec in self.by_callee:
            if spec.kind == "decorator" and site.kind != "decorator":
                continue
            if spec.kind == "keyword" and not any(a.name == spec.name for a in site.args):
                continue
            if callee is None:
                callee = self.ev.eval(site.func, facts.module, site.scope)
            targets = self.ids(spec.callables or (spec.name,))
            hit = [v for v in callee if v[0] in ("func", "cls", "ext") and (
                v[1] in targets or (v[0] == "cls" and any(c in targets for c in self.ev.mro(v[1])))
            )]
            if not hit:
                continue
            yield from self._callee_registration(facts, site, mech, spec, hit[0][1])

    def _callee_registration(self, facts, site, mech, spec, target: str) -> Iterator[Candidate]:
        evidence = [f"{site.text} resolves to {target}"]
        if spec.kind == "decorator":
            handler = self._decorated(facts, site)
            point, note, _ = self.point_of(facts, site, mech, spec)
            yield self._candidate(facts, site, mech, spec, spec.api_suffix, point, note, handler,
                                  "high", evidence + [f"decorates {site.decorated}"], [])
            return
        if spec.kind == "function" and spec.receiver is not None:
            recv = self._arg(site, spec.receiver)
            if recv is not None:
                status, why = self.receiver_status(self.ev.eval(recv.ref, facts.module, site.scope), mech)
                if status == "other":
                    return
                evidence.append(f"dispatcher argument {recv.text} is {why}")
        if spec.kind == "mapping":
            arg = self._arg(site, ArgSpec(keyword=spec.name))
            if arg is None or arg.ref[0] != "dict":
                if arg is not None:
                    yield self._candidate(facts, site, mech, spec, spec.name, None,
                                          f"hooks mapping {arg.text} is not a literal", Handler(arg.text),
                                          "low", evidence, ["dynamic_point"])
                return
            for key, value in arg.ref[1]:
                point = self.normalize_point(self.ev.eval(key, facts.module, site.scope), mech)
                handler = self.handlers.resolve(value, render(value), facts.module, site.scope)
                yield self._candidate(facts, site, mech, spec, spec.name, point[0], point[1], handler,
                                      "high", list(evidence), [])
            return
        handler_spec = spec.handler if spec.kind == "function" else ArgSpec(keyword=spec.name)
        arg = self._arg(site, handler_spec)
        if arg is None:
            return
        if arg.ref == ("const", "None"):
            return  # an explicit None registers nothing
        point, note, _ = self.point_of(facts, site, mech, spec)
        for ref, text in self._handler_items(arg, many=spec.many):
            handler = self.handlers.resolve(ref, text, facts.module, site.scope)
            yield self._candidate(facts, site, mech, spec, spec.api_suffix, point, note, handler,
                                  "high", list(evidence), [])

    # -- pieces -------------------------------------------------------------------------------
    def _handler_items(self, arg: Arg | None, many: bool) -> list[tuple[Ref, str]]:
        if arg is None:
            return [(("const", "None"), "<missing>")]
        if many and arg.ref[0] == "seq":
            return [(item, render(item)) for item in arg.ref[2]]
        if many and arg.ref[0] == "either":
            items = [r for r in arg.ref[1] if r[0] == "seq"]
            if items:
                return [(item, render(item)) for seq in items for item in seq[2]]
        return [(arg.ref, arg.text)]

    def _decorated(self, facts: FileFacts, site: Site) -> Handler:
        qn = f"{facts.module}.{site.decorated}" if facts.module else site.decorated
        func = self.ev.index.functions.get(qn)
        if func is None:
            return Handler(site.decorated.rsplit(".", 1)[-1], qn, site.decorated_async, None, "class")
        kind = "method" if func.kind != "function" else "function"
        returns = True if func.is_async else self.handlers.function_returns_awaitable(qn)
        return Handler(func.name, qn, func.is_async and not func.is_generator, returns, kind)

    def point_of(self, facts, site, mech, spec) -> tuple[str | None, str | None, bool]:
        """(normalised point, why it is unknown, whether it is a member of the mechanism's points)."""
        if spec.fixed_point:
            return spec.fixed_point, None, False
        if spec.point is None:
            return None, None, False
        taken = set()
        if spec.point.rest and spec.handler is not None and spec.handler.index is not None:
            positional = [a for a in site.args if a.name is None and not a.star]
            if len(positional) >= max(spec.handler.min_args, 1) and site.kind != "decorator":
                taken.add(spec.handler.index % len(positional))
        args = self.args_for(site, spec.point, taken)
        if not args:
            return None, "no point argument at this call", False
        names: list[str] = []
        in_enum = False
        for arg in args:
            values = self.ev.eval(arg.ref, facts.module, site.scope)
            name, note, member = self.normalize_point(values, mech, arg.text)
            if name is None:
                return None, note, False
            names.append(name)
            in_enum = in_enum or member
        return "+".join(names), None, in_enum

    def normalize_point(self, values: Values, mech: Mechanism, text: str = "") -> tuple:
        """(point name, why unknown, is a member of the mechanism's point enum)."""
        enum_ids = self.ids(mech.points) if mech.points else frozenset()
        found: set[str] = set()
        member = False
        for v in values:
            if v[0] == "member" and (not enum_ids or any(c in enum_ids for c in self.ev.mro(v[1]))):
                found.add(v[2])
                member = member or bool(enum_ids)
            elif v[0] == "ext" and "." in v[1] and v[1].rsplit(".", 1)[0] in enum_ids:
                found.add(v[1].rsplit(".", 1)[1])
                member = True
            elif v[0] == "str":
                found.add(self._enum_name_for(v[1], mech) or v[1])
            elif v[0] in ("cls", "ext", "member"):
                found.add(str(v[-1]).rsplit(".", 1)[-1])
            elif v[0] in ("dyn", "unknown"):
                return None, f"point {text or '?'} is dynamic ({v[1]})", False
            else:
                return None, f"point {text or '?'} is not a constant", False
        if len(found) != 1:
            return None, f"point {text} may be any of {', '.join(sorted(found))}", False
        return found.pop(), None, member

    def _enum_name_for(self, value: str, mech: Mechanism) -> str | None:
        for cls in self.ids(mech.points):
            facts = self.ev.index.classes.get(cls)
            if facts is None:
                continue
            for name, literal in facts.enum_members:
                if literal == value or name == value:
                    return name
        return None

    def _candidate(self, facts, site, mech, spec, api, point, note, handler, confidence,
                   evidence, flags) -> Candidate:
        evidence = [e for e in evidence if e]
        if note:
            flags = [*flags, "dynamic_point"]
        return Candidate(
            file=facts.path, line=site.line, col=site.col, scope=site.scope, mechanism=mech,
            spec=spec, api=api, point=point, handler=handler, confidence=confidence,
            evidence=evidence, flags=flags, point_note=note,
        )

    # -- emissions ----------------------------------------------------------------------------
    def emissions(self, facts: FileFacts) -> Iterator[RawEmission]:
        for site in facts.sites:
            if site.kind != "call":
                continue
            func = site.func
            specs: list[tuple[Mechanism, EmissionSpec]] = []
            if func[0] == "attr":
                recv = None
                for mech, em in self.emit_by_method.get(func[2], ()):
                    recv = recv if recv is not None else self.ev.eval(func[1], facts.module, site.scope)
                    if self.receiver_status(recv, mech)[0] == "match":
                        specs.append((mech, em))
            if self.emit_by_callee:
                callee = self.ev.eval(func, facts.module, site.scope)
                names = {v[1] for v in callee if v[0] in ("func", "ext")}
                for mech, em in self.emit_by_callee:
                    if names & self.ids((em.name,)):
                        specs.append((mech, em))
            for mech, em in specs:
                args = self.args_for(site, em.point)
                point, dynamic = None, False
                if args:
                    values = self.ev.eval(args[0].ref, facts.module, site.scope)
                    point, note, _ = self.normalize_point(values, mech, args[0].text)
                    dynamic = point is None
                yield RawEmission(facts.path, site.line, site.col, site.scope, mech, em.name,
                                  point, dynamic)
