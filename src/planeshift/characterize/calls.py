"""Call expressions a generated test makes: constructor, registration, emission, payload.

Each function reads parameters from the symbol facts and the pack's forms, and returns Python
source, or raises :class:`CannotCall` with the reason the generator gives up (a required
parameter it cannot supply is the usual one). No value is ever guessed: a required parameter gets
a value only when its annotation says it may be None or is a plain builtin, or a pack hint names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..analyzer.extract.facts import FileFacts, Function, Param
from ..analyzer.extract.refs import Ref, render
from ..packs.model import ArgSpec, RegistrationForm
from .source import Found, Sources

# A required parameter named like a live resource: the constructor needs I/O the test cannot
# stand in for.
RESOURCE_NAMES = re.compile(
    r"^_*(db|database|conn|connection|engine|session|client|transport|socket|sock|cursor|pool|"
    r"store|storage|redis|url|uri|dsn|path|file|filename|directory|dir|host|port)(_.*)?$")
RESOURCE_CALLS = frozenset({
    "connect", "open", "create_engine", "create_async_engine", "Popen", "urlopen", "socket",
    "create_connection", "AsyncClient", "Client", "ClientSession", "Redis", "MongoClient",
})
PLAIN = {"str": '"x"', "int": "0", "float": "0.0", "bool": "False", "bytes": 'b""',
         "list": "[]", "dict": "{}", "tuple": "()", "set": "set()"}


class CannotCall(Exception):
    """Why a call cannot be written without guessing."""


@dataclass
class Imports:
    """The (module, name) pairs the generated expressions use, in first-use order."""

    pairs: dict[tuple[str, str], None] = field(default_factory=dict)

    def name(self, qualname: str) -> str:
        module, _, name = qualname.rpartition(".")
        self.pairs[(module, name)] = None
        return name


def params(func: Function) -> list[Param]:
    return [p for p in func.params if p.kind not in ("self", "cls")]


def plain_value(param: Param, facts: FileFacts, sources: Sources) -> str | None:
    """A value for a required parameter that does not guess: None where the annotation allows
    None, an empty value of a builtin type; else None (no value)."""
    ann = param.annotation
    if ann is None:
        return None
    if _allows_none(ann):
        return "None"
    if ann[0] == "name" and ann[1] in PLAIN:
        return PLAIN[ann[1]]
    if ann[0] == "sub" and ann[1][0] == "name" and ann[1][1] in PLAIN:
        return PLAIN[ann[1][1]]
    return None


def _allows_none(ann: Ref) -> bool:
    if ann == ("const", "None"):
        return True
    if ann[0] == "either":
        return any(_allows_none(r) for r in ann[1])
    return ann[0] == "sub" and ann[1][0] in ("name", "attr") and render(ann[1]).endswith(
        "Optional")


def constructor(found: Found, sources: Sources, hints: dict[str, str],
                budget: str | None) -> list[str]:
    """The keyword arguments the constructor needs (``name=value`` source); raises when a
    required one would need a live resource or a value the code does not give."""
    init = sources.method(found, "__init__")
    if init is None:
        outside = sources.outside_bases(found)
        if outside:
            raise CannotCall(f"its constructor comes from {outside[0]}, outside the tree")
        return [f"{k}={v}" for k, v in hints.items()]
    owner, func = init
    _check_io(func)
    out: list[str] = []
    for param in params(func):
        if param.kind in ("vararg", "kwarg") or param.name == budget:
            continue
        if param.name in hints:
            out.append(f"{param.name}={hints[param.name]}")
            continue
        if param.default is not None:
            continue
        if RESOURCE_NAMES.match(param.name):
            raise CannotCall(f"its constructor needs `{param.name}` (a database, session, "
                             "network or file handle)")
        value = plain_value(param, owner.facts, sources)
        if value is None:
            ann = render(param.annotation) if param.annotation else "no annotation"
            raise CannotCall(f"its constructor needs `{param.name}` ({ann}), which the code "
                             "gives no value for (pack key characterize.construct)")
        out.append(f"{param.name}={value}")
    return out


def _check_io(init: Function) -> None:
    for _, ref in (*init.self_stores, *init.bindings):
        for name in _calls(ref):
            if name.rsplit(".", 1)[-1] in RESOURCE_CALLS:
                raise CannotCall(f"its constructor calls {name}() (I/O)")


def _calls(ref: Ref, depth: int = 0) -> list[str]:
    """Names of the callees a ref calls, nested calls included."""
    if not isinstance(ref, tuple) or depth > 8:
        return []
    out: list[str] = []
    if ref and ref[0] == "call":
        out.append(render(ref[1]))
    for part in ref[1:]:
        if isinstance(part, tuple):
            out.extend(_calls(part, depth + 1))
    return out


def place(spec: ArgSpec, expr: str, args: dict[int, str], kwargs: dict[str, str]) -> None:
    """Put *expr* where *spec* says the call takes it (a position, else its keyword)."""
    if spec.index is not None and spec.index >= 0:
        args[spec.index] = expr
    elif spec.rest:
        args[len(args)] = expr
    elif spec.keyword:
        kwargs[spec.keyword] = expr
    else:
        raise CannotCall("the pack places the argument at a negative position only")


def call_args(func: Function, args: dict[int, str], kwargs: dict[str, str], facts: FileFacts,
              sources: Sources, what: str) -> str:
    """``a, b, k=c``: the arguments given, checked against *func*'s parameters; a required
    parameter nobody gave gets a plain value or fails the call."""
    if sorted(args) != list(range(len(args))):
        raise CannotCall(f"{what}: the pack's argument positions leave a gap")
    positional = [p for p in params(func) if p.kind == "pos"]
    takes_rest = any(p.kind == "vararg" for p in func.params)
    takes_kw = any(p.kind == "kwarg" for p in func.params)
    names = {p.name for p in params(func)}
    if len(args) > len(positional) and not takes_rest:
        raise CannotCall(f"{what} takes {len(positional)} positional arguments, not {len(args)}")
    for key in kwargs:
        if key not in names and not takes_kw:
            raise CannotCall(f"{what} has no parameter `{key}`")
    given = {p.name for p in positional[:len(args)]} | set(kwargs)
    extra: dict[str, str] = {}
    for param in params(func):
        if param.name in given or param.default is not None or param.kind in ("vararg", "kwarg"):
            continue
        value = plain_value(param, facts, sources)
        if value is None:
            raise CannotCall(f"{what} needs `{param.name}`, which the generator cannot supply")
        extra[param.name] = value
    parts = [args[i] for i in range(len(args))]
    parts += [f"{k}={v}" for k, v in {**kwargs, **extra}.items()]
    return ", ".join(parts)


def registration(form: RegistrationForm, found: Found, sources: Sources,
                 point: str | None) -> str:
    """The statement registering ``handler`` (number ``n``) on ``dispatcher``."""
    if form.kind == "method":
        method = sources.method(found, form.name)
        if method is None:
            raise CannotCall(f"{found.cls.name} has no method {form.name}")
        args: dict[int, str] = {}
        kwargs: dict[str, str] = {}
        if form.point is not None:
            if point is None:
                raise CannotCall(f"{form.name} takes a point the generator cannot choose")
            place(form.point, point, args, kwargs)
        place(form.handler or ArgSpec(index=0), "handler", args, kwargs)
        owner, func = method
        given = call_args(func, args, kwargs, owner.facts, sources, f"{found.cls.name}.{form.name}")
        return f"dispatcher.{form.name}({given})"
    if form.kind == "append" and not form.keyed:
        if form.owner and found.qualname not in form.owner:
            raise CannotCall(f"the list {form.name} belongs to {', '.join(form.owner)}")
        if not _stores(found, sources, form.name):
            raise CannotCall(f"{found.cls.name} never stores {form.name}")
        item = "handler"
        if form.item is not None:
            if point is None:
                raise CannotCall(f"{form.name} holds (point, handler) pairs")
            pair = {form.item[0]: point, form.item[1]: "handler"}
            item = f"({pair[0]}, {pair[1]})"
        return f"dispatcher.{form.name}.append({item})"
    raise CannotCall(f"a {form.kind} registration ({form.name})")


def _stores(found: Found, sources: Sources, attr: str) -> bool:
    for current in sources.mro(found):
        if any(name == attr for name, _ in current.cls.bindings):
            return True
        for func in current.methods().values():
            if any(name == attr for name, _ in func.self_stores):
                return True
    return False
