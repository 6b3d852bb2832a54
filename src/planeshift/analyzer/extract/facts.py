"""Per-file facts: plain, frozen, picklable data extracted from one module and nothing else.

Expressions are kept as *refs*: small nested tuples that the linker evaluates project-wide
(see ``refs.py`` for the grammar). Nothing here holds a CST or AST node, so facts travel through
the forked helpers and the marshal cache (``store/codec.py``) unchanged.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any

from .observations import LoopFacts

Ref = tuple  # see planeshift.analyzer.refs for the grammar
Binding = tuple[str, Ref]  # local name -> what it is bound to (a ref or a binding form)


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: str  # "self" | "cls" | "pos" | "kwonly" | "vararg" | "kwarg"
    annotation: Ref | None = None
    default: Ref | None = None


@dataclass(frozen=True, slots=True)
class Function:
    qualname: str  # dotted scope path inside the module: "Class.method", "outer.inner"
    name: str
    line: int
    is_async: bool
    kind: str  # "function" | "method" | "classmethod" | "staticmethod" | "property" | "setter"
    params: tuple[Param, ...] = ()
    returns: Ref | None = None  # return annotation
    return_values: tuple[Ref, ...] = ()  # expressions of `return X` in this body
    decorators: tuple[Ref, ...] = ()
    bindings: tuple[Binding, ...] = ()  # local names
    self_stores: tuple[Binding, ...] = ()  # self.<attr> = <ref>
    store_lines: tuple[tuple[str, int], ...] = ()  # self.<attr>: line of its first store
    is_generator: bool = False
    loop: LoopFacts | None = None
    # named parameters (not self / cls, not *args / **kwargs: those are the call's own) whose
    # attributes or items the body assigns (`instance.slug = ...`, `request.state["x"] = ...`):
    # a handler that changes what it is handed
    arg_stores: tuple[str, ...] = ()
    raises: bool = False  # raises an exception of its own, outside any except clause
    hands_on: tuple[str, ...] = ()  # names of the callees it hands (part of) what it is handed


@dataclass(frozen=True, slots=True)
class Class:
    qualname: str
    name: str
    line: int
    bases: tuple[Ref, ...] = ()
    decorators: tuple[Ref, ...] = ()
    bindings: tuple[Binding, ...] = ()  # class-body names: annotations, assignments, methods
    enum_members: tuple[tuple[str, Any], ...] = ()  # NAME -> literal value, for enum-like classes


Span = tuple[int, int, int, int]  # line, col, end line, end col (1-based lines, 0-based chars)


@dataclass(frozen=True, slots=True)
class Arg:
    name: str | None  # keyword name, or None for a positional argument
    ref: Ref
    text: str
    star: str = ""  # "" | "*" | "**"
    span: Span | None = None  # the whole argument (`name=value` for a keyword)
    entries: tuple[Span, ...] = ()  # a dict literal: each entry, from its key to its value


@dataclass(frozen=True, slots=True)
class Site:
    """A syntactic place that may register, emit or store a handler; the linker decides which."""

    kind: str  # "call" | "decorator" | "assign"
    line: int
    col: int
    scope: str  # qualname of the enclosing function ("" at module level)
    func: Ref  # the callee (call / decorator) or the assignment target (assign)
    args: tuple[Arg, ...] = ()
    text: str = ""  # source of the callee or target, for messages
    decorated: str = ""  # decorator: qualname of the decorated function or class
    decorated_async: bool | None = None
    has_call: bool = True  # decorator: `@x(...)` rather than `@x`
    end_line: int = 0  # where the site's node ends (a call's closing parenthesis)
    end_col: int = 0
    loops: tuple[tuple[Ref, Ref], ...] = ()  # enclosing `for` loops: (target, iterable), outer first
    passing: str = ""  # assign: why it registers nothing new (a saved handler put back...)


@dataclass(frozen=True, slots=True)
class ConfigHook:
    """An external-hook command found in a settings file (YAML or JSON)."""

    line: int
    event: str
    command: Any  # str (shell string) or list (argv) as written
    key_path: str
    span: Span | None = None  # the command's value in the file


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str  # posix, relative to the scan root
    module: str  # dotted module name ("" when the file is not importable by name)
    is_package: bool = False
    bindings: tuple[Binding, ...] = ()  # module-level names
    functions: tuple[Function, ...] = ()
    classes: tuple[Class, ...] = ()
    exports: tuple[str, ...] = ()  # __all__
    lazy_exports: tuple[tuple[str, str, str], ...] = ()  # (name, module spec, attribute)
    called_attrs: frozenset[str] = field(default_factory=frozenset)  # names called as x.name(...)
    called_funcs: frozenset[str] = field(default_factory=frozenset)  # names called as name(...)
    loaded_attrs: frozenset[str] = field(default_factory=frozenset)
    # the last name of every decorator (`hookimpl` of `@hookimpl`, `@pytest.hookimpl(...)`), and
    # (attribute, scope) of every attribute bound to a name (`("send", "pay")` of `send_paid =
    # order_paid.send` in `pay`): what a link asks of every file without reading (and, from the
    # cache, decoding) its functions' bodies
    decorator_words: frozenset[str] = field(default_factory=frozenset)
    attr_aliases: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    sites: tuple[Site, ...] = ()
    config_hooks: tuple[ConfigHook, ...] = ()
    # packaging metadata: (group, name, target, line) of each plugin entry point it declares
    entry_points: tuple[tuple[str, str, str, int], ...] = ()
    has_sites: bool = False  # the prefilter admitted this file to site collection
    error: str | None = None
    rule_facts: tuple[tuple[str, Any], ...] = ()  # (rule code, what the rule read of the file)
    # every call of a name or an attribute (``f(...)``, ``x.f(...)``) as CallRow tuples, in
    # marshal's version-2 bytes (a function of the value, for the facts' digest): the helper
    # search reads them, in the few files that call a helper's name (see :func:`call_rows`)
    calls: bytes = b""
    # the module's top-level statements as (first line, last line, kind) triples, flattened
    # (see ``outline``): where a migration cuts out the statements it rewrites
    outline: tuple[int, ...] = ()


# (callee ref, scope, line, col, end line, end col, the bare names handed to it: the arguments
# that are a name, a *name or a **name, positional or keyword; the names the other arguments are
# an attribute or item of; whether its result is dropped: the call, or its await, is a statement
# of its own). The scope is the symbol pass's:
# a decorator's own call is a decorator, not a call; defaults, decorators and bases belong to the
# enclosing scope.
CallRow = tuple[Ref, str, int, int, int, int, tuple[str, ...], tuple[str, ...], bool]


def call_rows(facts: FileFacts) -> tuple[CallRow, ...]:
    """The file's calls (decoded each time: a scan reads them from a few files, once or twice)."""
    return marshal.loads(facts.calls) if facts.calls else ()


def call_word(row: CallRow) -> str:
    """The name a call spells: ``f`` for ``f(...)`` and ``x.f(...)``."""
    func = row[0]
    return func[2] if func[0] == "attr" else func[1]
