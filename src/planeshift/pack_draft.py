"""``planeshift packs init``: draft a rule pack from a dispatcher class the code holds.

A dispatcher candidate is a class with a method whose loop calls what it iterates out of one of
the class's own attributes (``for handler in self._subs: handler(event)``): the loop the policy
reader reads. Its registration methods are the ones that put a parameter into that attribute
(``self._subs.append(handler)``, ``self._hooks[point].append(handler)``,
``self._hooks.setdefault(point, []).append(handler)``); its emitting methods are the ones with the
loop. The draft names them with their argument positions, and its ``policy`` is what the scan
reads from the loop, each axis with the lines that decided it. Classification is left to the
user: the one rule says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .analyzer.extract.facts import CallRow, FileFacts, Function, Ref, call_rows

ADDERS = frozenset({"append", "appendleft", "insert", "add", "extend"})


@dataclass
class Form:
    method: str
    point: str | None  # the parameter naming the point, if any
    handler: str | None
    params: tuple[str, ...]  # the method's parameters after self, in order
    attr: str = ""  # a registration's attribute of the dispatcher

    def spec(self, name: str | None) -> str | None:
        if name is None:
            return None
        if name in self.params:
            return f"{{arg: {self.params.index(name)}, keyword: {name}}}"
        return f"{{keyword: {name}}}"


@dataclass
class Candidate:
    qualname: str  # module.Class
    attrs: tuple[str, ...]  # the attributes its loops iterate
    register: list[Form] = field(default_factory=list)
    emit: list[Form] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


def candidates(files: Iterable[FileFacts]) -> list[Candidate]:
    """Every class with a dispatch loop over one of its own attributes, with its forms."""
    out: list[Candidate] = []
    for facts in files:
        if facts.error or not facts.module:
            continue
        methods: dict[str, list[Function]] = {}
        for func in facts.functions:
            owner, _, _ = func.qualname.rpartition(".")
            if owner and func.kind == "method":
                methods.setdefault(owner, []).append(func)
        rows = call_rows(facts)
        for cls, funcs in methods.items():
            loops = {f.name: _iterated(f) for f in funcs if f.loop is not None}
            attrs = tuple(sorted({a for found in loops.values() for a, _ in found}))
            if not attrs:
                continue
            found = Candidate(f"{facts.module}.{cls}", attrs)
            for func in funcs:
                params = tuple(p.name for p in func.params if p.kind not in ("self", "cls"))
                form = _registration(func, params, attrs, rows, f"{cls}.{func.name}")
                if form is not None:
                    found.register.append(form)
                if func.name in loops and loops[func.name]:
                    point = next((p for _, p in loops[func.name] if p in params), None)
                    found.emit.append(Form(func.name, point, None, params))
            if found.register:
                out.append(found)
    return sorted(out, key=lambda c: c.qualname)


_ITERATES = re.compile(r"\bself\.(\w+)(?:\[(\w+)\]|\.get\((\w+)[,)])?")


def _iterated(func: Function) -> list[tuple[str, str | None]]:
    """(attribute, the parameter that keys it) of each ``self.<attr>`` a dispatch loop
    iterates: ``self._subs``, ``self._hooks[point]``, ``self._hooks.get(point, [])``, each of
    ``[*self._hooks.get(point, []), *self._all]``."""
    out = []
    for text in func.loop.iterates if func.loop is not None else ():
        for match in _ITERATES.finditer(text):
            out.append((match.group(1), match.group(2) or match.group(3)))
    return out


def _registration(func: Function, params: tuple[str, ...], attrs: tuple[str, ...],
                  rows: Sequence[CallRow], scope: str) -> Form | None:
    """The form of a method that adds a parameter to an iterated attribute, if it does."""
    if func.name.startswith("__") or not params:
        return None
    for row in rows:
        callee, handed = row[0], row[6]
        if row[1] != scope or callee[0] != "attr" or callee[2] not in ADDERS:
            continue
        attr, point = _target(callee[1], params)
        handler = next((name for name in handed if name in params and name != point), None)
        if attr in attrs and handler is not None:
            return Form(func.name, point, handler, params, attr)
    return None


def _target(ref: Ref, params: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(attribute of self, keying parameter) of ``self.a``, ``self.a[p]``,
    ``self.a.setdefault(p, [])``, ``self.a[p]`` through ``defaultdict``."""
    key = None
    if ref[0] == "sub":
        index = ref[2]
        key = index[1] if index[0] == "name" and index[1] in params else None
        ref = ref[1]
    elif ref[0] == "call" and ref[1][0] == "attr" and ref[1][2] in ("setdefault", "get"):
        args = ref[2]
        key = args[0][1] if args and args[0][0] == "name" and args[0][1] in params else None
        ref = ref[1][1]
    if ref[0] == "attr" and ref[1] == ("name", "self"):
        return ref[2], key
    return None, None


def render(found: Candidate, package: str, policy: Sequence[tuple[str, str, str]]) -> str:
    """The draft's YAML. *policy*: (axis, value, the evidence line) of each axis the code
    decides."""
    mech = re.sub(r"(?<!^)(?=[A-Z])", "_", found.name).lower()
    lines = [
        f"# planeshift rule pack drafted by `planeshift packs init` from {found.qualname}.",
        "# Review every line: the registration and emission forms and the policy were read from",
        "# the code; the planes are yours to decide (the one classify rule says needs_review).",
        f"pack: {package or mech}",
    ]
    if package:
        lines.append(f"package: {package}")
    lines += [
        "mechanisms:",
        f"  - id: {mech}",
        f"    title: {found.name}",
        f"    dispatcher: {found.qualname}",
        "    register:",
    ]
    for form in found.register:
        lines.append(f"      - method: {_quoted(form.method)}")
        if form.point:
            lines.append(f"        point: {form.spec(form.point)}")
        lines.append(f"        handler: {form.spec(form.handler)}")
    filled = {form.attr for form in found.register}
    for attr in found.attrs:
        if attr not in filled:  # iterated, filled from outside: `bus._subs.append(h)`
            lines.append(f"      - append: {attr}")
    if found.emit:
        lines.append("    emit:")
        for form in found.emit:
            lines.append(f"      - method: {_quoted(form.method)}")
            if form.point:
                lines.append(f"        point: {form.spec(form.point)}")
    if policy:
        lines.append(f"    policy:                 # read from {found.name}'s dispatch loop")
        for axis, value, _ in policy:
            lines.append(f"      {axis}: {value}")
        lines.append("      evidence: >")
        for axis, _, why in policy:
            lines.append(f"        {axis}: {why}")
    lines += [
        "    classify:",
        f"      - id: {mech}.review",
        "        plane: needs_review",
        "        because: >",
        "          Drafted: say which registrations shape the operation (interceptor), are told of",
        "          it (subscriber), write with it (commit_participant) or deliver after it",
        "          (delivery_sink), with `when:` conditions (point, handler_effect, ...).",
    ]
    return "\n".join(lines) + "\n"


def _quoted(name: str) -> str:
    """A method name as YAML reads it back as a string (`on`, `off`, `yes` are booleans)."""
    return f'"{name}"' if name.lower() in ("on", "off", "yes", "no", "true", "false", "y", "n") \
        else name
