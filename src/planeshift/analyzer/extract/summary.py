"""Per-file summaries: the few whole-project questions the linker asks, answered file by file.

Each summary depends on its own file's facts only, so an incremental scan keeps the summaries of
unchanged files and answers the whole-project questions (which properties alias a callback
list, which error-hook fields nothing invokes) without decoding every file again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .facts import FileFacts
from .refs import last_word

# on_error, on_failure, on_exception, error_hook(s), _error_hooks, error_handler(s), ...
ERROR_HOOK = re.compile(
    r"^_*(on_(error|failure|exception)s?|(error|failure|exception)_(hooks?|handlers?|callbacks?))$"
)


@dataclass(frozen=True, slots=True)
class FileSummary:
    path: str
    module: str
    has_sites: bool
    error: str | None
    # property name -> attribute names it returns (`return self._callbacks`)
    properties: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # attribute names the file calls, loops over calling, or names in a loop it dispatches from
    invoked: frozenset[str] = frozenset()
    # (class name, attribute, line) of error-hook fields the file's classes store
    error_stores: tuple[tuple[str, str, int], ...] = ()
    # (line, event, is a shell string) of the external hook commands a settings file registers
    config_commands: tuple[tuple[int, str, bool], ...] = ()
    rule_facts: tuple[tuple[str, Any], ...] = ()  # what each rule read of the file's syntax
    defines: frozenset[str] = frozenset()  # the names of the functions and methods it defines
    calls: frozenset[str] = frozenset()  # the names it calls (`f(...)`, `x.f(...)`)
    # (name, line) of each pluggy hook it specifies with `@hookspec(firstresult=True)`
    firstresult: tuple[tuple[str, int], ...] = ()


def summarize(facts: FileFacts) -> FileSummary:
    properties = tuple(
        (func.name, attrs) for func in facts.functions if func.kind == "property"
        for attrs in [tuple(r[2] for r in func.return_values if r[0] == "attr")] if attrs
    )
    invoked = set(facts.called_attrs)
    for func in facts.functions:
        if func.loop is not None:
            for text in func.loop.iterates:
                invoked.update(re.findall(r"\w+", text))
    commands = tuple((h.line, h.event, isinstance(h.command, str)) for h in facts.config_hooks)
    return FileSummary(facts.path, facts.module, facts.has_sites, facts.error, properties,
                       frozenset(invoked), _error_stores(facts), commands, facts.rule_facts,
                       frozenset(f.name for f in facts.functions),
                       facts.called_funcs | facts.called_attrs, firstresult_specs(facts))


SPEC_MARKERS = frozenset({"hookspec", "hook_spec"})  # pluggy's conventional names for a spec
SPEC_MARKER_CLASS = "HookspecMarker"  # and what a project's own marker is an instance of


def firstresult_specs(facts: FileFacts) -> tuple[tuple[str, int], ...]:
    """The hooks a file specifies with ``@hookspec(firstresult=True)`` (a marker spelled so, or a
    name the module binds to a ``HookspecMarker(...)``): their callers stop at the first result
    that is not None. Function bodies are read only in a file that spells such a marker."""
    markers = SPEC_MARKERS | {name for name, ref in facts.bindings
                              if ref[0] == "call" and last_word(ref) == SPEC_MARKER_CLASS}
    if markers.isdisjoint(facts.decorator_words):
        return ()
    out = []
    for func in facts.functions:
        for decorator in func.decorators:
            if (decorator[0] == "call" and last_word(decorator) in markers
                    and ("firstresult", ("const", "True")) in decorator[3]):
                out.append((func.name, func.line))
    return tuple(out)



def _error_stores(facts: FileFacts) -> tuple[tuple[str, str, int], ...]:
    """Error-hook fields per class: class-level fields (not nested defs) and `self.x` stores in
    its methods, at the first line that stores each."""
    scopes = {f.qualname for f in facts.functions} | {c.qualname for c in facts.classes}
    methods: dict[str, list] = {}
    for func in facts.functions:
        if "." in func.qualname:
            methods.setdefault(func.qualname.rsplit(".", 1)[0], []).append(func)
    out: list[tuple[str, str, int]] = []
    for cls in facts.classes:
        stored: dict[str, int] = {}
        for name, _ in cls.bindings:
            if ERROR_HOOK.match(name) and f"{cls.qualname}.{name}" not in scopes:
                stored.setdefault(name, cls.line)
        for func in methods.get(cls.qualname, ()):
            for name, line in func.store_lines:
                if ERROR_HOOK.match(name):
                    stored[name] = min(line, stored.get(name, line))
        out.extend((cls.name, attr, line) for attr, line in sorted(stored.items(), key=lambda kv: kv[1]))
    return tuple(out)


def list_aliases(summaries: list[FileSummary], lists: set[str]) -> list[tuple[str, str]]:
    """(property, list attribute) pairs: a property returning a pack's callback list (or such a
    property) is another name for that list. Two passes: a property over a property."""
    names = {name: name for name in lists}  # alias -> the pack's list attribute it names
    out: list[tuple[str, str]] = []
    for _ in range(2):
        for summary in summaries:
            for prop, attrs in summary.properties:
                if prop in names:
                    continue
                for attr in attrs:
                    if attr in names:
                        out.append((prop, names[attr]))
                        names[prop] = names[attr]
    return out
