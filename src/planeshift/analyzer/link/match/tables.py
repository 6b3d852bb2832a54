"""Registrations looped over a literal table: one registration per entry of the table.

``for point, handlers in DEFAULT_HOOKS.items(): for handler in handlers: bus.on(point, handler)``
registers each handler of the table on its point. When every loop a site's arguments come from
iterates a literal the code spells out (a dict, a list of tuples, or an entry of an outer loop's
table), each combination of entries is one binding of the loop variables; the site is matched
once per binding, its arguments read with the loop variables replaced by the entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...extract.facts import Arg, Ref, Site
from ...extract.refs import render
from ..evaluate.engine import Evaluator

Binding = dict  # a loop variable's name (or a whole lookup ref) -> the entry it takes
MAX_BINDINGS = 32  # a table larger than this is reported as one dynamic site
TABLE_ENTRY = "one entry of a literal table the code iterates or looks up: "  # its evidence
# the iterable, and the (name, unpack index) pairs it binds (a lookup binds its whole ref)
Loop = tuple[Ref, Sequence[tuple[str | Ref, int | None]]]


class Tables:
    def __init__(self, evaluator: Evaluator) -> None:
        self.ev = evaluator

    def bindings(self, module: str, site: Site, args: list[Arg],
                 receiver: Ref | None = None) -> list[Binding] | None:
        """Each combination of table entries the loop variables in *args* (and *receiver*) take
    (a loop over something not literal leaves its variables unbound), or None when no loop is
    literal."""
        loops = self._loops(module, site.scope, args, site, receiver) or []
        loops += self._lookups(module, site.scope, args)
        if not loops:
            return None
        out: list[Binding] = [{}]
        for iterable, names in loops:
            grown: list[Binding] = []
            for env in out:
                entries = self._entries(_substitute(iterable, env), module, site.scope)
                if entries is None:  # not a literal: its variables stay as they are
                    grown.append(env)
                    continue
                for entry in entries:
                    bound = _unpack(entry, names)
                    if bound is None:
                        return None
                    grown.append({**env, **bound})
            out = grown
            if len(out) > MAX_BINDINGS:
                return None
        return out if any(out) else None

    @staticmethod
    def describe(env: Binding) -> str:
        """The evidence line of one binding."""
        shown = sorted((render(k) if isinstance(k, tuple) else k, render(v)) for k, v in env.items())
        return TABLE_ENTRY + ", ".join(f"{k} = {v}" for k, v in shown)

    def bound_site(self, site: Site, env: Binding) -> Site:
        """The site with its loop variables replaced by one binding's entries (in its callee's
        receiver too: `for sig in (a, b): sig.connect(h)`)."""
        args = tuple(replace(a, ref=_substitute(a.ref, env), text=render(_substitute(a.ref, env)))
                     for a in site.args)
        return replace(site, args=args, func=_substitute(site.func, env))

    def _loops(self, module: str, scope: str, args: list[Arg],
               site: Site | None = None, receiver: Ref | None = None) -> list[Loop] | None:
        """The loops around the site that bind the names in *args* and *receiver* (or the
        iterables of the loops inside them), outer first."""
        needed = set().union(*(_names(a.ref) for a in args)) if args else set()
        if receiver is not None:
            needed |= _names(receiver)
        chosen: list[Loop] = []
        for target, iterable in reversed(site.loops if site is not None else ()):
            names = _targets(target)
            if names is None or not {n for n, _ in names} & needed:
                continue
            chosen.append((iterable, names))
            needed |= _names(iterable)
        return list(reversed(chosen)) or None

    def _lookups(self, module: str, scope: str, args: list[Arg]) -> list[Loop]:
        """``table[key]`` with a key decided at run time, on a literal dict: any of its values
        (each lookup is a "loop" over the table's values, binding the lookup itself)."""
        found: list[Loop] = []
        for ref in {r for a in args for r in _subscripts(a.ref)}:
            table = self.ev.literals.literal(ref[1], module, scope, 0)
            if table is not None and table[0] == "dict" and ref[2][0] not in ("str", "const"):
                found.append((("call", ("attr", ref[1], "values"), (), ()), [(ref, None)]))
        return found

    def _entries(self, ref: Ref, module: str, scope: str) -> list[Ref] | None:
        """The entries a loop over *ref* takes: a seq's items, a dict's keys (or values, or
        (key, value) pairs for ``.items()``)."""
        if ref[0] == "call" and ref[1][0] == "attr" and ref[1][2] in ("items", "keys", "values"):
            table = self.ev.literals.literal(ref[1][1], module, scope, 0) or ref[1][1]
            if table[0] != "dict":
                return None
            view = ref[1][2]
            if view == "items":
                return [("seq", "tuple", (k, v)) for k, v in table[1]]
            return [v if view == "values" else k for k, v in table[1]]
        bound = self.ev.literals.literal(ref, module, scope, 0) if ref[0] == "name" else ref
        if bound is None:
            return None
        if bound[0] == "seq":
            return list(bound[2])
        if bound[0] == "dict":
            return [k for k, _ in bound[1]]
        return None


def _targets(target: Ref) -> list[tuple[str, int | None]] | None:
    """(name, unpack index) of a loop target: ``x`` or ``a, b`` (deeper unpacking: None)."""
    if target[0] == "name":
        return [(target[1], None)]
    if target[0] == "seq" and all(t[0] == "name" for t in target[2]):
        return [(t[1], i) for i, t in enumerate(target[2])]
    return None


def _unpack(entry: Ref, names: Sequence[tuple[str | Ref, int | None]]) -> Binding | None:
    out: Binding = {}
    for name, index in names:
        if index is None:
            out[name] = entry
        elif entry[0] == "seq" and index < len(entry[2]):
            out[name] = entry[2][index]
        else:
            return None
    return out


def _names(ref: object) -> set[str]:
    """The plain names a ref reads (refs are nested tuples; strings are leaves)."""
    if not isinstance(ref, tuple):
        return set()
    if len(ref) == 2 and ref[0] == "name" and isinstance(ref[1], str):
        return {ref[1]}
    return set().union(*(_names(part) for part in ref)) if ref else set()


def _subscripts(ref: object) -> set[Ref]:
    """The ``X[k]`` refs inside a ref."""
    if not isinstance(ref, tuple) or not ref:
        return set()
    found = {ref} if ref[0] == "sub" and len(ref) == 3 else set()
    return found.union(*(_subscripts(part) for part in ref))


def _substitute(ref: Ref, env: Binding) -> Ref:
    if not env or not isinstance(ref, tuple):
        return ref
    if ref in env:
        return env[ref]
    if len(ref) == 2 and ref[0] == "name" and isinstance(ref[1], str):
        return env.get(ref[1], ref)
    return tuple(_substitute(p, env) if isinstance(p, tuple) else p for p in ref)
