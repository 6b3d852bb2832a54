"""PS102: an error hook that is stored but never invoked anywhere (ADR-0120 P4, D7)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...analyzer.context import PREFIX, is_context
from ...types import Registration
from .base import Hazard, Invalid, Rule, register
from .hook_stores import Mention, StoredHook, mentions, stores
from .names import Names

if TYPE_CHECKING:
    from ...project import ProjectFacts


@dataclass(frozen=True, slots=True)
class ErrorHookFacts:
    """What PS102 reads of one file (``hook_stores.py``)."""

    stores: tuple[StoredHook, ...]
    mentions: tuple[Mention, ...]


@dataclass(frozen=True, slots=True)
class Store:
    """Where failure callbacks land: a class's attribute, or one keyed bucket of it."""

    path: str
    cls: str  # qualname inside the module
    attr: str
    word: str  # the bucket's key word ("error" for f"error:{tool}"), "" for the whole attribute
    line: int

    @property
    def label(self) -> str:
        name = f"{self.cls.rsplit('.', 1)[-1]}.{self.attr}"
        return f"{name} (its {self.word!r} keys)" if self.word else name


@register
class UnwiredErrorHook(Rule):
    """Flag error hooks that are stored but never invoked anywhere in the project.

    ## What it does
    Finds where failure callbacks land and nothing ever calls them:
    - attributes named like an error hook (`on_error`, `on_failure`, `error_hooks`,
      `_error_handlers`, ...) that a class stores (`self.x = ...` or a class-level field);
    - any attribute a class stores a failure callback in from its own parameters (a parameter
      named like one, `on_error` / `failure_hook`, or a callable, annotated `Callable` or named
      like a hook, `on_*` / `*_hook` / `*_callback`, given to a method named for failure), by
      assignment, `append`, or under a key (`self.hooks.setdefault(f"error:{tool}", [])`);

    while no code in the scanned tree calls the attribute (`obj.on_error(...)`,
    `obj._error_hooks[k](...)`), loops over it calling each entry, or fetches it by name with
    `getattr`. A keyed bucket (`"error:..."`) is wired only when some function reads that key:
    indexes the attribute with it, compares to it in a function that reads the attribute (or
    passes it to a helper that does); a comparison whose branch only hands the hooks on to
    another unwired store does not count. Each registration that feeds an unwired store (its
    registering method stores the handler there) is flagged too; where the store is a library's
    read as context (an app's hook lost in lionagi's `CodingToolkit`), the finding is at each of
    the project's registrations that feed it.

    ## Why is this bad?
    A caller who registers an error hook believes failures will reach it; they never do.
    ADR-0120 P4 names this defect ("some error-hook fields are stored but never invoked") and D7
    rules that AgentSpec / CodingToolkit error hooks are either wired into the explicit error
    stage or formally deprecated, never silently dropped.

    ## Example
    ```python
    class Toolkit:
        def __init__(self):
            self._error_hooks = {}

        def on_error(self, tool, handler):
            self._error_hooks.setdefault(tool, []).append(handler)
    ```

    ## Use instead
    Invoke the hooks from the error path (an error stage of the interceptor chain), or deprecate
    the API with a warning so callers know it does nothing.

    ## Fix safety
    Wiring a hook starts running user code on failures that never ran it before; do it as a
    reviewed behaviour change.

    ## References
    ADR-0120 P4, D7 (error hooks never silently dropped), D8 (residual errors).
    """

    code = "PS102"
    kind = "unwired_error_hook"
    severity = "warning"
    message = "{owner}.{attr} stores error hooks but nothing in the project invokes them"
    FACT_WORDS = ("error", "fail", "Error", "Fail", "exception", "Exception")
    FACTS = ErrorHookFacts
    VALID = [
        """
        class Toolkit:
            def __init__(self):
                self._error_hooks = []

            def fail(self, exc):
                for hook in self._error_hooks:
                    hook(exc)
        """,
        """
        class Spec:
            def __init__(self):
                self.hooks = {}

            def on_error(self, tool, handler):
                self.hooks.setdefault(f"error:{tool}", []).append(handler)

            def fail(self, tool, exc):
                for handler in self.hooks.get(f"error:{tool}", []):
                    handler(exc)
        """,
    ]
    INVALID = [
        Invalid(
            """
            class Toolkit:
                def __init__(self):
                    self._error_hooks = {}

                def on_error(self, tool, handler):
                    self._error_hooks.setdefault(tool, []).append(handler)
            """,
            line=3,
        ),
        Invalid(
            """
            class Uploader:
                def __init__(self, on_failure=None):
                    self._notify = on_failure
            """,
            line=3,
        ),
        Invalid(
            """
            class Spec:
                def __init__(self):
                    self.hooks = {}

                def on_error(self, tool, handler):
                    self.hooks.setdefault(f"error:{tool}", []).append(handler)

                def run(self, tool, args):
                    for handler in self.hooks.get(f"pre:{tool}", []):
                        handler(args)
            """,
            line=6,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> ErrorHookFacts | None:
        """The failure callbacks the file's classes store, and its uses of failure words."""
        found = stores(tree)
        used = mentions(tree, text, {s.line for s in found})
        return ErrorHookFacts(tuple(found), tuple(used)) if found or used else None

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        invoked: set[str] = set()
        for summary in project.files:
            invoked |= summary.invoked
        stored, fed, read = _gather(project)
        unwired = {s for s in stored if not s.word and s.attr not in invoked}
        fed_by = [(r, fed(r)) for r in project.registrations]  # (what each one feeds, once)
        feeding = {s: [r for r, feeds in fed_by if s in feeds] for s in stored}
        for _ in range(len(stored) + 1):  # a bucket read only by feeding another store
            fed_lines = {(r.file, r.line) for s in unwired for r in feeding[s]}
            more = {s for s in stored if s.word and not _read(s, read, fed_lines)} - unwired
            if not more:
                break
            unwired |= more
        for store in sorted(unwired, key=lambda s: (s.path, s.line)):
            about = tuple(feeding[store])
            if is_context(store.path):  # a library's store (an app's hooks in lionagi's): the
                for reg in about:        # app hears of it at each registration of its own
                    if not is_context(reg.file):
                        yield self.on(reg, f"{reg.handler.expr} lands in {store.label} "
                                      f"({store.path[len(PREFIX):]}:{store.line}), which stores "
                                      "error hooks that nothing in the library invokes")
                continue
            sites = ", ".join(f"{r.file}:{r.line}" for r in about[:3])
            fed_by = f"; registered at {sites}" + (" and more" if len(about) > 3 else "")
            yield self.at(store.path, store.line, 0, f"{store.label} stores error hooks but "
                          f"nothing in the project invokes them{fed_by if about else ''}",
                          mechanism=about[0].mechanism if about else "", about=about)


def _gather(project: ProjectFacts) -> tuple:
    """The stores (each attribute once, at its first store line), which stores a registration
    feeds, and the key reads by word."""
    names = Names.of(project)
    modules = {f.path: f.module for f in project.files}
    first: dict[tuple, Store] = {}
    methods: dict[tuple[str, str], set[Store]] = {}  # (module.class, method) -> stores
    read: dict[str, list[tuple[str, Mention]]] = {}  # word -> (file, its use) per use
    for summary in project.files:  # error-hook fields, at the line that first stores them
        for owner, attr, line in summary.error_stores:
            first[(summary.path, owner, attr, "")] = Store(summary.path, owner, attr, "", line)
    facts: list[tuple[str, ErrorHookFacts]] = list(UnwiredErrorHook().facts(project))
    for path, found in facts:  # stores of parameters, at their first line
        for s in sorted(found.stores, key=lambda s: s.line):
            first.setdefault((path, s.cls.rsplit(".", 1)[-1], s.attr, s.word),
                             Store(path, s.cls, s.attr, s.word, s.line))
    for path, found in facts:
        for s in found.stores:
            store = first[(path, s.cls.rsplit(".", 1)[-1], s.attr, s.word)]
            methods.setdefault((f"{modules[path]}.{s.cls}", s.method), set()).add(store)
        for used in found.mentions:
            read.setdefault(used.word, []).append((path, used))

    def fed(reg: Registration) -> set[Store]:
        api = reg.api.rsplit(".", 1)[-1]
        out: set[Store] = set()
        for cls in _dispatchers(project, reg.mechanism, names):
            for ancestor in (cls, *names.ancestors(cls)):
                out |= methods.get((ancestor, api), set())
        return out

    return set(first.values()), fed, read


def _dispatchers(project: ProjectFacts, mechanism: str, names: Names) -> list[str]:
    mech = project.mechanism(mechanism)
    return list(dict.fromkeys(names.follow(c) for c in (
        *mech.classes, *mech.model.dispatchers, *mech.model.aliases)))


def _read(store: Store, read: dict[str, list[tuple[str, Mention]]],
          fed_lines: set[tuple[str, int]]) -> bool:
    """Some function reads the store's bucket: by key, or by comparing to (or handing on) its
    key word where the attribute is read; a branch that only feeds unwired stores is no read."""
    for path, used in read.get(store.word, ()):
        if used.role == "key" and used.detail == store.attr:
            return True
        if used.role in ("compare", "arg") and store.attr in used.loads:
            if used.role == "compare" and used.guarded and all(
                    (path, g.line) in fed_lines for g in used.guarded):
                continue
            return True
    return False
