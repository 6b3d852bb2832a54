"""The call sites of a few names in one file: what the helper search reads.

A helper's calls are found after the link, when its name is known. Reading the whole file's facts
again under a wider vocabulary would redo the symbol pass and the dispatch facts for every file
that calls a common name (``run``, ``copy``); this pass only parses and walks, recording each call
of the names with the scope it sits in, exactly as the symbol pass would record it.
"""

from __future__ import annotations

import ast
import warnings

from .facts import Site
from .file import decode_source
from .sites import Positions, Vocabulary, call_site


class _Calls(ast.NodeVisitor):
    def __init__(self, vocab: Vocabulary, src: Positions) -> None:
        self.vocab = vocab
        self.src = src
        self.scope = ""  # the symbol pass's qualname of the enclosing function or class
        self.sites: list[Site] = []

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
               outer: list[ast.AST]) -> None:
        for part in outer:  # decorators, defaults, bases: evaluated where the def is
            self.visit(part)
        saved = self.scope
        self.scope = f"{saved}.{node.name}" if saved else node.name
        for stmt in node.body:
            self.visit(stmt)
        self.scope = saved

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        self._enter(node, [*node.decorator_list, *args.defaults,
                           *(d for d in args.kw_defaults if d is not None)])

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._enter(node, [*node.decorator_list, *node.bases, *node.keywords])

    def visit_Call(self, node: ast.Call) -> None:
        site = call_site(node, self.scope, self.vocab, self.src)
        if site is not None:
            self.sites.append(site)
        self.generic_visit(node)


def call_sites(data: bytes, path: str, words: frozenset[str]) -> tuple[Site, ...]:
    """Every call of *words* in the file (a file that does not decode or parse has none: the
    scan reported it already)."""
    try:
        text = decode_source(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError,
            MemoryError):
        return ()
    visitor = _Calls(Vocabulary(calls=words), Positions(text))
    try:
        visitor.visit(tree)
    except RecursionError:
        return ()
    return tuple(visitor.sites)
