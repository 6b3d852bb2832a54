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
from collections.abc import Sequence

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


def _statements_only(text: str, statements: Sequence[int], lines: list[int]) -> str | None:
    """*text* with only the top-level statements that hold one of *lines* (each with the lines
    between it and its neighbours: comments, or a parenthesised neighbour's bracket), every other
    line emptied: each kept line keeps its number and its columns. None when that would not pay
    or cannot be trusted (old Mac line ends, which the tokenizer and this split count apart)."""
    if text.count("\r") != text.count("\r\n") or "barry_as_FLUFL" in text:
        return None
    blocks: list[list[int]] = []  # statements sharing a line (`a; b`) are one block
    for start, end in zip(statements[0::2], statements[1::2]):
        if blocks and start <= blocks[-1][1]:
            blocks[-1][1] = max(blocks[-1][1], end)
        else:
            blocks.append([start, end])
    src = text.split("\n")
    keep: list[tuple[int, int]] = []  # 1-based line ranges, inclusive
    for k, (start, end) in enumerate(blocks):
        i = bisect.bisect_left(lines, start)
        if i < len(lines) and lines[i] <= end:
            first = blocks[k - 1][1] + 1 if k else 1
            last = blocks[k + 1][0] - 1 if k + 1 < len(blocks) else len(src)
            keep.append((first, last))
    if not keep:
        return None
    if sum(last - first + 1 for first, last in keep) * 10 > len(src) * 9:
        return None  # nearly the whole file: parse it as it is
    out = [""] * len(src)
    for first, last in keep:
        out[first - 1 : last] = src[first - 1 : last]
    return "\n".join(out)


def call_sites(data: bytes, path: str, words: frozenset[str],
               statements: Sequence[int] = ()) -> tuple[Site, ...]:
    """Every call of *words* in the file (a file that does not decode or parse has none: the
    scan reported it already). *statements* (:attr:`FileFacts.statements` of these bytes) lets
    the parse skip the top-level statements that cannot hold such a call."""
    try:
        text = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return ()
    lines = _lines(text, words) if words else []
    if not lines:
        return ()
    part = _statements_only(text, statements, lines) if statements else None
    # a tree holds no reference cycles, and the cyclic collector would otherwise traverse the
    # linker's whole heap again and again while the parse allocates (half of this pass's time)
    with collector_paused(), warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        if part is not None:
            try:
                return _walk(part, path, words, lines)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass  # a neighbour's bracket left behind, say: the whole file then
        try:
            return _walk(text, path, words, lines)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ()


def _walk(text: str, path: str, words: frozenset[str], lines: list[int]) -> tuple[Site, ...]:
    tree = ast.parse(text, filename=path)
    visitor = _Calls(words, Positions(text), lines)
    visitor.body(tree.body, "")
    return tuple(visitor.sites)
