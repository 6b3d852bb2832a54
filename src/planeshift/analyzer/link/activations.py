"""Helper activations: where a registration made inside a helper actually happens at run time.

``def register_defaults(bus): bus.on(P, _log)`` registers a fixed handler; it runs wherever
``register_defaults(...)`` is called. Those calls are the registration's *activations*. A call
inside a wrapper that hands its own parameters on (``def setup(bus): register_defaults(bus)``)
makes the wrapper a helper too, so its callers are activations as well (followed transitively).
A helper that forwards its caller's *handler* is not a helper here: it is a derived
registration API (``forward.py``), and its callers are registrations of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ...types import Activation
from ..extract.facts import FileFacts, call_rows, call_word
from .candidate import Call
from .evaluate.engine import Evaluator
from .evaluate.values import untyped
from .match.identity import Identity

MAX_DEPTH = 3  # helper, wrapper, wrapper's wrapper


def is_helper(qualname: str, scope: str, evaluator: Evaluator) -> bool:
    """A function whose body registers (not a constructor or other dunder, not a lambda)."""
    name = scope.rsplit(".", 1)[-1]
    return bool(scope) and not name.startswith("__") and qualname in evaluator.index.functions


def helper_word(qualname: str) -> str:
    """The name a call of the helper spells."""
    return qualname.rsplit(".", 1)[-1]


def calls_any(facts: FileFacts, words: Iterable[str]) -> bool:
    """Does the file call one of *words* (as ``f(...)`` or ``x.f(...)``)?"""
    return bool(facts.error is None and facts.module
                and not (facts.called_funcs | facts.called_attrs).isdisjoint(words))


def spells_a_call(facts: FileFacts, words: set[str]) -> bool:
    """Does one of the file's calls spell one of *words*?"""
    return calls_any(facts, words) and any(call_word(row) in words for row in call_rows(facts))


class Activations:
    """Finds a file's calls of the helpers; *definers* names the modules defining each function
    name (a helper method whose name no other function has is recognised on an untyped
    receiver)."""

    def __init__(self, evaluator: Evaluator, identity: Identity) -> None:
        self.ev = evaluator
        self.identity = identity
        self.definers: dict[str, tuple[str, ...]] = {}

    def unique_methods(self, helpers: frozenset[str]) -> dict[str, str]:
        """Method name -> the helper method of that name, when no other function has it."""
        out: dict[str, str] = {}
        for helper in sorted(helpers):
            owner, _, name = helper.rpartition(".")
            if owner.rsplit(".", 1)[-1][:1].isupper() and len(self.definers.get(name, ())) == 1:
                out[name] = helper
        return out

    def calls(self, facts: FileFacts, helpers: frozenset[str]) -> Iterator[Call]:
        """The file's calls of *helpers*."""
        if not helpers or facts.error is not None or not facts.module:
            return
        methods = self.unique_methods(helpers)
        words = {helper_word(h) for h in helpers}
        for row in call_rows(facts):
            if call_word(row) not in words:
                continue
            func, scope, line, col, end_line, end_col, handed = row[:7]
            values = self.ev.eval(func, facts.module, scope)
            found = sorted(self.identity.callee_ids(values) & helpers)
            resolved = True
            if not found and func[0] == "attr" and func[2] in methods and untyped(
                    self.ev.eval(func[1], facts.module, scope)):
                # `session.observer.bind_db_persistence(...)` on an untyped `session`: the one
                # helper method of that name, said to be matched by its name alone
                found, resolved = [methods[func[2]]], False
            for helper in found:
                where = f"{facts.module}.{scope}" if scope else ""
                yield Call(helper, facts.path, line, col, end_line, end_col, where,
                           self._forwards(facts, scope, handed), resolved)

    def _forwards(self, facts: FileFacts, scope: str, handed: tuple[str, ...]) -> bool:
        """Does the call hand on a parameter of the function it is in?"""
        func = self.ev.index.functions.get(f"{facts.module}.{scope}") if scope else None
        if func is None:
            return False
        params = {p.name for p in func.params if p.kind not in ("self", "cls")}
        return not params.isdisjoint(handed)


def wrappers(calls: Iterable[Call], evaluator: Evaluator) -> set[str]:
    """The functions that wrap a helper: they call it with their own parameters."""
    return {c.scope for c in calls if c.forwards and c.scope
            and is_helper(c.scope, c.scope.rsplit(".", 1)[-1], evaluator)}


def closure(roots: Iterable[str], calls: dict[str, list[Call]], evaluator: Evaluator,
            find: Callable[[frozenset[str]], dict[str, list[Call]]] | None = None) -> frozenset[str]:
    """The helpers to search: *roots*, then every wrapper of a helper searched, up to
    ``MAX_DEPTH`` levels; *find* collects the calls of newly searched helpers (a full link),
    else *calls* must already hold them (a relink)."""
    searched: set[str] = set()
    frontier = set(roots)
    for _ in range(MAX_DEPTH + 1):
        new = frozenset(frontier - searched)
        if not new:
            break
        searched |= new
        if find is not None:
            for helper, found in find(new).items():
                calls.setdefault(helper, []).extend(found)
        frontier = searched | wrappers((c for h in new for c in calls.get(h, ())), evaluator)
    return frozenset(searched)


def activations_of(helper: str, calls: dict[str, list[Call]]) -> tuple[Activation, ...]:
    """Every call that activates *helper*, through wrappers, in tree order."""
    out: list[Activation] = []
    seen: set[str] = set()
    todo = [(helper, 0)]
    while todo:
        name, depth = todo.pop()
        if name in seen or depth > MAX_DEPTH:
            continue
        seen.add(name)
        for call in calls.get(name, ()):
            out.append(Activation(call.file, call.line, call.col, call.end_line, call.end_col,
                                  call.scope, name, call.resolved))
            if call.forwards and call.scope:
                todo.append((call.scope, depth + 1))
    return tuple(sorted(set(out), key=lambda a: (a.file, a.line, a.col, a.helper)))

