"""From a scanned mechanism and one of its dispatch paths to a recipe the generated tests follow,
or the reason the path is left out.

A recipe needs: the class the entry method belongs to (built with no I/O), a registration form of
the pack the generator can call, the point the tests register on and emit (a member of the
points enum, the payload's type for type-keyed points, or a name per handler), the emission's
arguments, and for a deadline the constructor parameter its budget comes from.
"""

from __future__ import annotations

import re

from ..analyzer.context import PREFIX
from ..analyzer.extract.facts import FileFacts, Function
from ..analyzer.extract.refs import Ref, render
from ..packs.model import ArgSpec, EmissionForm, Mechanism
from ..types import DispatchPath, MechanismSummary
from .calls import (
    CannotCall,
    Imports,
    call_args,
    constructor,
    params,
    place,
    registration,
)
from .model import Recipe
from .source import Found, Sources

SUBCLASS = "{name}UnderTest"


def recipe_for(summary: MechanismSummary, mech: Mechanism, path: DispatchPath,
               sources: Sources) -> Recipe:
    """The recipe of *path*; raises :class:`CannotCall` with the reason it cannot be built."""
    concurrency = next((a.value for a in path.axes if a.axis == "concurrency"), "unknown")
    if concurrency == "not_applicable":
        raise CannotCall("one handler per call, no fan-out: the Phase 0 rows (order, several "
                         "failures, sequential or concurrent) have no subject")
    if path.file.startswith(PREFIX):
        raise CannotCall("defined in a context package, outside the tree")
    if "." not in path.entry:
        raise CannotCall(f"its entry {path.entry}() is a module function: handlers reach it as "
                         "arguments, not by a registration")
    facts = sources.facts(path.file)
    class_name, method_name = path.entry.rsplit(".", 1)
    cls = next((c for c in facts.classes if c.qualname == class_name), None) if facts else None
    if facts is None or cls is None:
        raise CannotCall(f"cannot read class {class_name} in {path.file}")
    found = Found(facts.module, cls, facts)
    _check_concrete(found, sources)
    entry = sources.method(found, method_name)
    if entry is None:
        raise CannotCall(f"{class_name} has no method {method_name}")
    return _Builder(mech, found, sources, path).build(entry[1])


class _Builder:
    def __init__(self, mech: Mechanism, found: Found, sources: Sources,
                 path: DispatchPath) -> None:
        self.mech, self.found, self.sources, self.path = mech, found, sources, path
        self.imports = Imports()
        self.notes: list[str] = []
        self.hints = mech.characterize

    def build(self, entry: Function) -> Recipe:
        cls_name = self.imports.name(self.found.qualname)
        form = next((e for e in self.mech.emissions
                     if e.kind == "method" and e.name == entry.name), None)
        budget, budget_note = self._budget()
        hints = dict(self.hints.construct) if self.hints else {}
        args = constructor(self.found, self.sources, hints, budget)
        enum_point = self._enum_point()
        payload_param, fire = self._fire(entry, form, enum_point)
        payload = self._payload(payload_param)
        point = enum_point or ("type(payload)" if form is not None and form.point is not None
                               else 'f"handler_{n}"')
        register, reg_kind = self._register(point)
        class_level = reg_kind == "classmethod" and entry.kind == "classmethod"
        attrs = self._class_attrs(payload)
        if class_level or attrs:
            base = (f'type("{SUBCLASS.format(name=cls_name)}", ({cls_name},), '
                    f'{{{", ".join(f"{chr(34)}{k}{chr(34)}: {v}" for k, v in attrs)}}})')
            self.notes.append(f"each test builds a fresh subclass of {cls_name}"
                              + (": its handlers live at class level" if class_level else
                                 f" that sets {', '.join(k for k, _ in attrs)}"))
        else:
            base = cls_name
        call = "" if class_level else f"({', '.join(args)})"
        with_budget = "" if class_level else f"({', '.join([*args, f'{budget}=budget'])})"
        return Recipe(
            mechanism=self.mech.id, dispatcher=self.found.qualname, entry=self.path.entry,
            file=self.path.file, line=self.path.line, method=entry.name,
            is_async=entry.is_async, imports=tuple(self.imports.pairs), construct=base + call,
            construct_budget=base + with_budget if budget else "",
            register=register, fire=fire, payload=payload, budget=budget,
            budget_note=budget_note, notes=tuple(self.notes),
        )

    # -- points and payload -------------------------------------------------------------------
    def _enum_point(self) -> str | None:
        for qualname in self.mech.points:
            found = self.sources.find_class(qualname)
            if found is None or not found.cls.enum_members:
                continue
            members = [name for name, _ in found.cls.enum_members]
            name = self.imports.name(found.qualname)
            wanted = self.hints.point if self.hints else None
            if wanted is not None:
                if wanted not in members:
                    raise CannotCall(f"the pack's characterize.point {wanted} is not a member "
                                     f"of {found.qualname}")
                self.notes.append(f"point {name}.{wanted}: named by the pack")
                return f"{name}.{wanted}"
            special = {v for rule in self.mech.classify for key, values in rule.when
                       if key == "point" for v in values} | set(self.mech.dormant_points)
            chosen = next((m for m in members if m not in special), members[0])
            self.notes.append(f"point {name}.{chosen}: the first member of {found.cls.name} no "
                              "classify rule singles out and not dormant")
            return f"{name}.{chosen}"
        return None

    def _fire(self, entry: Function, form: EmissionForm | None,
              enum_point: str | None) -> tuple[str | None, str]:
        """The emission expression, and the parameter that receives the payload (if any)."""
        args: dict[int, str] = {}
        kwargs: dict[str, str] = {}
        payload_param: str | None = None
        entry_params = params(entry)
        if form is not None and form.point is not None:
            place(form.point, enum_point or "payload", args, kwargs)
            if enum_point is None:
                payload_param = _param_at(entry_params, form.point)
        if payload_param is None:
            given = {p.name for p in entry_params[:len(args)]} | set(kwargs)
            need = next((p for p in entry_params if p.name not in given and p.default is None
                         and p.kind in ("pos", "kwonly")), None)
            if need is not None:
                payload_param = need.name
                if need.kind == "pos" and entry_params.index(need) == len(args):
                    args[len(args)] = "payload"
                else:
                    kwargs[need.name] = "payload"
        facts = self._owner_facts(entry)
        call = call_args(entry, args, kwargs, facts, self.sources, self.path.entry)
        return payload_param, f"dispatcher.{entry.name}({call})"

    def _owner_facts(self, func: Function) -> FileFacts:
        for current in self.sources.mro(self.found):
            if func in current.facts.functions:
                return current.facts
        return self.found.facts

    def _payload(self, name: str | None) -> str:
        if name is None:
            return "None"
        entry = self.sources.method(self.found, self.path.entry.rsplit(".", 1)[1])
        assert entry is not None
        owner, func = entry
        param = next(p for p in func.params if p.name == name)
        target = _non_none(param.annotation)
        qualname = self.sources.resolve(owner.facts, target) if target else None
        if target and qualname and self.sources.find_class(qualname) is not None:
            self.notes.append(f"payload: {render(target)} built with its required fields "
                              "given plain values")
            return f"build({self.imports.name(qualname)})"
        return "Payload()"

    # -- registration ---------------------------------------------------------------------------
    def _register(self, point: str) -> tuple[str, str]:
        reasons: list[str] = []
        for form in self.mech.registrations:
            try:
                statement = registration(form, self.found, self.sources, point)
            except CannotCall as exc:
                reasons.append(str(exc))
                continue
            method = self.sources.method(self.found, form.name) if form.kind == "method" else None
            return statement, method[1].kind if method else "append"
        raise CannotCall("no registration form the generator can call ("
                         + "; ".join(dict.fromkeys(reasons)) + ")")

    def _class_attrs(self, payload: str) -> list[tuple[str, str]]:
        """Class attributes declared ``type[...]`` and never given a value: the payload's class."""
        out: list[tuple[str, str]] = []
        for current in self.sources.mro(self.found):
            for name, value in current.cls.bindings:
                if value[0] == "annot" and value[2] is None and _is_type(value[1]):
                    kind = payload.removesuffix("()") if payload.endswith("()") else None
                    built = re.fullmatch(r"build\((\w+)\)", payload)
                    cls = kind or (built.group(1) if built else None)
                    if cls is None:
                        raise CannotCall(f"{current.cls.name}.{name} has no value and the "
                                         "emission takes no payload to set it to")
                    out.append((name, cls))
        return list(dict.fromkeys(out))

    # -- deadline --------------------------------------------------------------------------------
    def _budget(self) -> tuple[str | None, str]:
        """The constructor keyword the path's deadline reads its budget from."""
        deadline = next((a for a in self.path.axes if a.axis == "deadline"), None)
        if deadline is None or deadline.value not in ("shared", "per_handler"):
            return None, ""
        init = self.sources.method(self.found, "__init__")
        stores = {attr: ref for attr, ref in init[1].self_stores} if init else {}
        names = {p.name for p in init[1].params} if init else set()
        for ev in deadline.evidence:
            text = self._deadline_text(ev.file, ev.line)
            for attr in re.findall(r"self\.(\w+)", text):
                ref = stores.get(attr)
                if ref is not None and ref[0] == "name" and ref[1] in names:
                    self.notes.append(f"deadline budget: constructor parameter {ref[1]} "
                                      f"(self.{attr}, read at {ev.file}:{ev.line})")
                    return ref[1], ""
        return None, ("its budget is not a constructor parameter the test can shorten (read at "
                      + ", ".join(f"{e.file}:{e.line}" for e in deadline.evidence) + ")")

    def _deadline_text(self, file: str | None, line: int | None) -> str:
        facts = self.sources.facts(file) if file else None
        for func in facts.functions if facts else ():
            for seen in func.loop.seen if func.loop else ():
                if seen.kind == "deadline" and seen.line == line:
                    return seen.text
        return ""


def _param_at(entry_params: list, spec: ArgSpec) -> str | None:
    positional = [p for p in entry_params if p.kind == "pos"]
    if spec.index is not None and 0 <= spec.index < len(positional):
        return positional[spec.index].name
    return spec.keyword


def _non_none(ann: Ref | None) -> Ref | None:
    if ann is not None and ann[0] == "either":
        rest = [r for r in ann[1] if r != ("const", "None")]
        return rest[0] if len(rest) == 1 else None
    return ann


def _is_type(ann: Ref | None) -> bool:
    """``type[...]`` or ``ClassVar[type[...]]``."""
    if ann is None or ann[0] != "sub":
        return False
    head = render(ann[1]).rsplit(".", 1)[-1]
    return head == "type" or (head == "ClassVar" and _is_type(ann[2]))


def _check_concrete(found: Found, sources: Sources) -> None:
    """Fails for an abstract class: an abstract method no class on the way overrides, or a
    Protocol."""
    seen: set[str] = set()
    for current in sources.mro(found):
        for base in current.cls.bases:
            if render(base).rsplit(".", 1)[-1] == "Protocol":
                raise CannotCall(f"{current.cls.name} is a Protocol")
        for name, func in current.methods().items():
            if name in seen:
                continue
            seen.add(name)
            if any(render(d).endswith("abstractmethod") for d in func.decorators):
                raise CannotCall(f"abstract: {current.cls.name}.{name} is abstract")
