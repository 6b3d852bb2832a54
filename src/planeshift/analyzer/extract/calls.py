"""The call sites of a few names in one file: what the helper search reads.

A helper's calls are found after the link, when its name is known. Reading the whole file's facts
again under a wider vocabulary would redo the symbol pass and the dispatch facts for every file
that calls a common name (``run``, ``copy``); this pass parses the file and walks only the
statements and expressions whose lines spell one of the names, recording each call with the scope
it sits in exactly as the symbol pass would (a decorator's own call is a decorator, not a call;
decorators, defaults and bases belong to the enclosing scope).
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings

from ...heap import collector_paused
from .facts import Site
from .file import decode_source
from .sites import Positions, Vocabulary, call_site


def _lines(text: str, words: frozenset[str]) -> list[int]:
    """The lines where a call of one of *words* may start its name (sorted, 1-based)."""
    names = "|".join(re.escape(w) for w in sorted(words))
    # `name(` and `getattr(x, "name")(`: the two ways call_site names a call; the lookahead on
    # the characters a match can start with lets the engine skip most positions at once
    firsts = {w[:1] for w in words} | {'"', "'"}
    lead = "" if "" in firsts else "(?=[" + "".join(re.escape(c) for c in sorted(firsts)) + "])"
    pattern = re.compile(rf"{lead}(?:(?<![\w])(?:{names})\s*\(|[\"'](?:{names})[\"'])")
    lines: list[int] = []
    line, seen = 1, 0
    for m in pattern.finditer(text):  # a line is one more than the newlines before it
        line += text.count("\n", seen, m.start())
        seen = m.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


class _Calls:
    def __init__(self, words: frozenset[str], src: Positions, lines: list[int]) -> None:
        self.vocab = Vocabulary(calls=words)
        self.src = src
        self.lines = lines
        self.sites: list[Site] = []

    def _spans_a_line(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:  # withitem, comprehension, match_case, arguments: look inside
            return True
        decorators = getattr(node, "decorator_list", None)
        if decorators:  # a def's line is its `def`: its decorators come before it
            start = min(start, decorators[0].lineno)
        i = bisect.bisect_left(self.lines, start)
        return i < len(self.lines) and self.lines[i] <= (getattr(node, "end_lineno", None) or start)

    def body(self, stmts: list[ast.stmt], scope: str) -> None:
        for stmt in stmts:
            self.node(stmt, scope)

    def node(self, node: ast.AST, scope: str) -> None:
        if not self._spans_a_line(node):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                self.decorator(dec, scope)
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.expr(default, scope)
            self.body(node.body, f"{scope}.{node.name}" if scope else node.name)
        elif isinstance(node, ast.ClassDef):
            for dec in node.decorator_list:
                self.decorator(dec, scope)
            for base in node.bases:
                self.expr(base, scope)
            self.body(node.body, f"{scope}.{node.name}" if scope else node.name)
        elif isinstance(node, ast.expr):
            self.expr(node, scope)
        else:  # a statement or a part of one: its expressions here, its bodies statement-wise
            for _, value in ast.iter_fields(node):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        self.node(item, scope)

    def decorator(self, dec: ast.expr, scope: str) -> None:
        if isinstance(dec, ast.Call):
            self.expr(dec.func, scope)
            for arg in [*dec.args, *(k.value for k in dec.keywords)]:
                self.expr(arg, scope)
        else:
            self.expr(dec, scope)

    def expr(self, node: ast.expr, scope: str) -> None:
        if not self._spans_a_line(node):
            return
        for sub in ast.walk(node):  # an expression holds no scope but its lambdas' (the same)
            if isinstance(sub, ast.Call):
                site = call_site(sub, scope, self.vocab, self.src)
                if site is not None:
                    self.sites.append(site)


def call_sites(data: bytes, path: str, words: frozenset[str]) -> tuple[Site, ...]:
    """Every call of *words* in the file (a file that does not decode or parse has none: the
    scan reported it already)."""
    try:
        text = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return ()
    lines = _lines(text, words) if words else []
    if not lines:
        return ()
    # a tree holds no reference cycles, and the cyclic collector would otherwise traverse the
    # linker's whole heap again and again while the parse allocates (half of this pass's time)
    try:
        with collector_paused(), warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=path)
            visitor = _Calls(words, Positions(text), lines)
            visitor.body(tree.body, "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    return tuple(visitor.sites)
