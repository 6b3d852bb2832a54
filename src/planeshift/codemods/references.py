"""Where an interceptor handler is defined, registered and otherwise named in the project.

Returning a decision instead of raising is safe only where every caller of the handler is the
adapter that translates it back: so each registration must go through ``as_interceptor`` and no
other text of the project may name the function (a direct call, ``__all__``, an unregistration
such as ``bus.off(point, handler)``). The search is textual over every file the scan listed
(``MigrateFacts.python_files``: its discovery, excludes honoured; a file it could not read is an
error of the run and, here, a file that might name the handler), so it errs towards refusing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..packs.model import Pack
from ..pylines import python_lines
from ..types import Registration
from .facts import MigrateFacts
from .model import NotMigrated


@dataclass(frozen=True)
class Handler:
    qualname: str  # fully qualified, as the scan resolved it
    local: str  # within its module: Class.method, outer.inner
    file: str
    line: int  # of its `def`
    text: str  # its file's text
    registrations: tuple[Registration, ...]
    pack: Pack
    stop: str | None = None
    deny: str | None = None
    conflict: str = ""  # why its registrations cannot share one translation

    def not_migrated(self, codemod: str, reason: str) -> NotMigrated:
        return NotMigrated(self.file, self.line, codemod, f"{self.local}: {reason}")


def find_definition(facts: MigrateFacts, qualname: str, regs: list[Registration]
                    ) -> Handler | None:
    """The handler's definition and the legacy exceptions its registrations' mechanisms name;
    None when its file raises none of them (nothing to convert: the file is not parsed)."""
    modules = _modules(facts)
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        rel = modules.get(".".join(parts[:cut]))
        if rel is not None:
            break
    else:
        return None
    local = ".".join(parts[cut:])
    try:
        text = _text(facts, rel)
    except OSError:
        return None  # its file cannot be read: nothing to convert (the scan reports the file)
    legacy = {(m.migrate.stop, m.migrate.deny) for r in regs
              for m in [facts.mechanisms[r.mechanism][0]] if m.migrate}
    stop, deny = next(iter(legacy)) if legacy else (None, None)
    if not _raises(facts, rel, text, tuple(q.rsplit(".", 1)[-1] for q in (stop, deny) if q)):
        return None
    line = _def_lines(facts, rel).get(local)
    if line is None:
        return None
    conflict = ""
    if len(legacy) > 1:
        conflict = "its mechanisms name different legacy exceptions"
    other = next((r for r in regs if r.plane != "interceptor"), None)
    if other is not None:
        conflict = f"also registered as a {other.plane} at {other.file}:{other.line}"
    pack = facts.mechanisms[regs[0].mechanism][1]
    return Handler(qualname, local, rel, line, text, tuple(regs), pack, stop, deny, conflict)


def other_references(facts: MigrateFacts, handler: Handler) -> str | None:
    """``also named at <file:line>``: the first place naming the handler other than its `def`
    and registrations; a file that cannot be read might name it, so it is the answer then."""
    name = handler.local.rsplit(".", 1)[-1]
    allowed = {(handler.file, handler.line)}
    for reg in handler.registrations:
        allowed |= {(reg.file, n) for n in _statement_lines(facts, reg.file, reg.line)}
    word = re.compile(rf"\b{re.escape(name)}\b")
    for rel in facts.python_files:  # every file: two may share a module name
        try:
            text = _text(facts, rel)
        except OSError as exc:
            return f"{rel} cannot be read ({exc.strerror or exc}) and might name it"
        if name not in text:
            continue
        for number, line in enumerate(python_lines(text), 1):  # the ast's numbering
            if word.search(line) and (rel, number) not in allowed:
                return f"also named at {rel}:{number}"
    return None


def _raises(facts: MigrateFacts, rel: str, text: str, short: tuple[str, ...]) -> bool:
    """Does the file raise one of *short* anywhere? Searched once per file and set of names, not
    once per handler (a file of many handlers would cost handlers x its length)."""
    seen: dict[tuple[str, tuple[str, ...]], bool] = _cache(facts, "_raises")
    if (rel, short) not in seen:
        names = "|".join(map(re.escape, short))
        seen[rel, short] = "raise" in text and re.search(  # (the word first: the pattern
            rf"\braise\s+({names})\b", text) is not None  # is tried at every position)
    return seen[rel, short]


def _modules(facts: MigrateFacts) -> dict[str, str]:
    """Module name -> its file (the first in path order, as the scan links it)."""
    out: dict[str, str] = {}
    for rel in facts.python_files:
        out.setdefault(facts.module(rel), rel)
    return out


def _cache(facts: MigrateFacts, name: str) -> dict:
    """A table kept on *facts* for this run: each file is parsed once, not once per handler (or
    per registration) that needs it."""
    return facts.__dict__.setdefault(name, {})  # type: ignore[no-any-return]


def _text(facts: MigrateFacts, rel: str) -> str:
    """The file's text (OSError when it cannot be read, every time it is asked for)."""
    return facts.text(rel)


def _parsed(facts: MigrateFacts, rel: str) -> ast.Module | None:
    trees = _cache(facts, "_reference_trees")
    if rel not in trees:
        try:
            trees[rel] = ast.parse(_text(facts, rel))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            trees[rel] = None
    return trees[rel]  # type: ignore[no-any-return]


def _def_lines(facts: MigrateFacts, rel: str) -> dict[str, int]:
    """Dotted name in the module (``outer.inner``) -> the line of its first definition."""
    table = _cache(facts, "_reference_defs")
    if rel not in table:
        tree = _parsed(facts, rel)
        lines: dict[str, int] = {}
        for node, name in _defs(tree.body if tree is not None else [], ""):
            lines.setdefault(name, node.lineno)
        table[rel] = lines
    return table[rel]  # type: ignore[no-any-return]


def _defs(body: list[ast.stmt], prefix: str) -> Iterator[tuple[ast.stmt, str]]:
    """Every function and class with its dotted name inside the module (``outer.inner``)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            yield node, name
            yield from _defs(node.body, name + ".")
            continue
        for child in ast.iter_child_nodes(node):  # defs under if / try / with at this level
            if isinstance(child, ast.stmt):
                yield from _defs([child], prefix)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                yield from _defs(child.body, prefix)


def _statement_lines(facts: MigrateFacts, rel: str, line: int) -> range:
    """The lines of the innermost statement (not a def or class) holding *line*: the last in
    ast.walk's breadth-first order, from a table of every line built once per file."""
    table = _cache(facts, "_reference_lines")
    if rel not in table:
        tree = _parsed(facts, rel)
        best: dict[int, range] = {}
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
                for number in span:
                    best[number] = span
        table[rel] = best
    return table[rel].get(line, range(line, line + 1))  # type: ignore[no-any-return]
