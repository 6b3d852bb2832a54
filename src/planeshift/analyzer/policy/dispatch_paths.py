"""Dispatch paths: from each entry of a mechanism (its emission methods) through the helpers they
call, the observations that decide its ADR-0120 D2 policy.

An entry is an emission API the pack names (``HookBus.emit``, a module function such as
``run_tool_pre_hooks``) defined in the scanned tree; without one, the dispatcher's methods that
call handlers. The walk follows the same-file calls the extraction recorded
(``analyzer/extract/loops.py``), passing each callee the roles its parameters receive, so an
observation about a parameter counts only where a caller passes it a handler (or a list of
errors). It stops at another mechanism's emission method (``MessageManager.add_message`` calls
``set_system``, which fires the pile-rewritten callbacks) and at another entry of the same
mechanism (its own path).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from ...packs.model import Mechanism
from ..extract.facts import Function
from ..extract.observations import Follow, Guard, Origin, Passed, Seen
from ..link.index import ProjectIndex

MAX_DEPTH = 6
HANDLER_KINDS = frozenset({"call", "offload"})
ITEM_KINDS = frozenset({"call", "offload", "predicate", "classify"})
Mro = Callable[[str], tuple[str, ...]]
D = TypeVar("D")


def catches_ordinary(caught: str) -> bool:
    """An except clause of this type text catches an ordinary exception."""
    return bool({"Exception", "BaseException"} & set(re.findall(r"\w+", caught)))


def catches_cancel(caught: str) -> bool:
    """... or a cancellation (BaseException, CancelledError, get_cancelled_exc_class())."""
    tokens = set(re.findall(r"\w+", caught))
    return "BaseException" in tokens or any("ancel" in t for t in tokens)


@dataclass(frozen=True, slots=True)
class Hit:
    """One observation on a path, with the except clauses around it (innermost first, the
    callers' included) and the calls that reached it."""

    seen: Seen
    file: str
    function: str  # qualname inside its module: "HookBus.emit"
    guards: tuple[Hit, ...] = ()  # except clauses (and synthetic ones) around it
    chain: tuple[tuple[str, int], ...] = ()  # (caller function, line of its call) from the entry
    per_item: bool = False  # reached through a call made once per handler

    def detail(self, cls: type[D]) -> D:
        """The observation's record, known to be a *cls* (``path.of(cls.kind)`` picked it)."""
        detail = self.seen.detail
        assert isinstance(detail, cls), f"a {self.seen.kind} observation is not a {cls.__name__}"
        return detail

    @property
    def guard(self) -> Guard:
        """A guard hit's except clause (or the guard its concurrency implies)."""
        return self.detail(Guard)

    def synthetic(self) -> str:
        """"gathered" / "gather" / "task_group" / "task" for a guard the dispatcher's
        concurrency implies (not an except clause), else ""."""
        return self.guard.implied

    def encloses(self, other: Hit) -> bool:
        """This span (a loop, a deadline, a task group) holds *other*, in its own function or
        around a call on *other*'s way."""
        lo, hi = self.seen.line, self.seen.at or self.seen.line
        if other.function == self.function and other.file == self.file:
            return lo <= other.seen.line <= hi
        return any(fn == self.function and lo <= line <= hi for fn, line in other.chain)


@dataclass(frozen=True, slots=True)
class Path:
    entry: str  # qualname inside its module: "MessageManager.add_message"
    file: str
    line: int
    is_async: bool
    hits: tuple[Hit, ...] = ()
    delegates: tuple[str, ...] = ()  # other entries of the mechanism this one calls
    entry_calls: tuple[int, ...] = ()  # lines of the entry's own calls to helpers

    def of(self, *kinds: str) -> list[Hit]:
        return [h for h in self.hits if h.seen.kind in kinds]


def mechanism_paths(mech: Mechanism, classes: Iterable[str], index: ProjectIndex,
                    mechanisms: Iterable[Mechanism], mro: Mro | None = None) -> list[Path]:
    """Every dispatch path of *mech* whose entry is in the scanned tree (an emission method a
    dispatcher class defines or inherits, with *mro* giving a class and its ancestors)."""
    classes = list(classes)
    entries = _entries(mech, classes, index, mro or (lambda cls: (cls,)))
    cut = _foreign_emissions(mech, classes, mechanisms)
    slots = _slots(mech)
    names = {qn.rsplit(".", 1)[-1] for qn in entries}
    return [_Walker(index, slots, cut | (names - {qn.rsplit(".", 1)[-1]})).walk(qn)
            for qn in entries]


def _entries(mech: Mechanism, classes: list[str], index: ProjectIndex, mro: Mro) -> list[str]:
    found: list[str] = []
    for em in mech.emissions:
        if em.kind == "method":
            for cls in (c for c in classes if c in index.classes):
                found += [f"{base}.{em.name}" for base in mro(cls)
                          if f"{base}.{em.name}" in index.functions][:1]
        elif em.name in index.functions:
            found.append(em.name)
    if found:
        return list(dict.fromkeys(found))
    # no emission API in view: the dispatcher's methods that call handlers, minus their helpers
    calling = [qn for cls in classes if cls in index.classes
               for qn in index.methods_of.get(cls, ()) if _calls_handlers(index.functions[qn])]
    helpers = {f"{index.function_module[qn]}.{s.detail.target}" for qn in calling
               for s in _seen(index.functions[qn]) if isinstance(s.detail, Follow)}
    return [qn for qn in calling if qn not in helpers]


def _seen(func: Function) -> tuple[Seen, ...]:
    return func.loop.seen if func.loop is not None else ()


def _calls_handlers(func: Function) -> bool:
    return func.loop is not None and any(s.kind in HANDLER_KINDS and not s.root.param
                                         for s in func.loop.seen)


def _foreign_emissions(mech: Mechanism, classes: list[str],
                       mechanisms: Iterable[Mechanism]) -> set[str]:
    """Emission method names of the other mechanisms dispatched by the same classes."""
    mine = set(mech.dispatchers) | set(classes)
    own = {e.name for e in mech.emissions}
    return {e.name for other in mechanisms if other.id != mech.id and set(other.dispatchers) & mine
            for e in other.emissions if e.kind == "method"} - own


def _slots(mech: Mechanism) -> frozenset[str]:
    """Attribute names that hold this mechanism's handlers: its keyword, assign, append and
    mapping registration names (``self.on_event(...)``, ``self._hooks.get(key)``)."""
    return frozenset(r.name.rsplit(".", 1)[-1].lstrip("_") for r in mech.registrations
                     if r.kind in ("keyword", "assign", "append", "mapping"))


class _Walker:
    def __init__(self, index: ProjectIndex, slots: frozenset[str], cut: set[str]) -> None:
        self.index, self.slots, self.cut = index, slots, cut
        self.hits: list[Hit] = []
        self.delegates: list[str] = []
        self.seen_keys: set[tuple] = set()

    def walk(self, entry: str) -> Path:
        func = self.index.functions[entry]
        module = self.index.function_module[entry]
        file = self.index.modules[module].path
        self._visit(entry, {}, (), (), False, 0)
        local = entry[len(module) + 1:]
        calls = tuple(s.line for s in (func.loop.seen if func.loop else ()) if s.kind == "follow")
        return Path(local, file, func.line, func.is_async, tuple(self.hits),
                    tuple(dict.fromkeys(self.delegates)), calls)

    def _visit(self, qn: str, roles: dict[str, set[str]], guards: tuple[Hit, ...],
               chain: tuple[tuple[str, int], ...], per_item: bool, depth: int) -> None:
        key = (qn, tuple(sorted((k, tuple(sorted(v))) for k, v in roles.items())), per_item)
        func = self.index.functions.get(qn)
        if key in self.seen_keys or depth > MAX_DEPTH or func is None or func.loop is None:
            return
        self.seen_keys.add(key)
        module = self.index.function_module[qn]
        file, local = self.index.modules[module].path, qn[len(module) + 1:]
        own: dict[int, list[Hit]] = {}
        for s in func.loop.seen:
            if s.kind == "guard":
                own.setdefault(s.at, []).append(Hit(s, file, local, (), chain, per_item))
        for s in func.loop.seen:
            around = (*own.get(s.line, ()), *guards)
            if isinstance(s.detail, Follow):
                target = s.detail.target
                if target.rsplit(".", 1)[-1] in self.cut:
                    self.delegates.append(target)
                    continue
                passed = self._instantiate(s.detail.passes, roles)
                self._visit(f"{module}.{target}", passed, around, (*chain, (local, s.line)),
                            per_item or (s.at != 0 and any("item" in r for r in passed.values())),
                            depth + 1)
            elif s.kind != "guard" and self._accepts(s, roles):
                self.hits.append(Hit(s, file, local, around, chain, per_item))

    def _accepts(self, s: Seen, roles: dict[str, set[str]]) -> bool:
        if s.root.local:
            return True
        if s.root.attr:
            return s.kind in ITEM_KINDS and self._slot(s.root)
        wanted = "errors" if s.kind == "raise" else "item"
        return wanted in roles.get(s.root.param, set())

    def _instantiate(self, passes: tuple[Passed, ...],
                     roles: dict[str, set[str]]) -> dict[str, set[str]]:
        """The roles a callee's parameters receive, of those a follow passes."""
        out: dict[str, set[str]] = {}
        for passed in passes:
            param, role, root = passed.param, passed.role, passed.root
            if (root.local or (root.param and role in roles.get(root.param, set()))
                    or (root.attr and self._slot(root))):
                out.setdefault(param, set()).add(role)
        return out

    def _slot(self, root: Origin) -> bool:
        """``self.A`` or ``self.A.b``: A (an attribute holding handlers) or b (the handler
        attribute of an entry) is one of the mechanism's registration names."""
        return any(part.lstrip("_") in self.slots for part in root.attr.split("."))
