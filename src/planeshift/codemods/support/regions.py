"""Only the statements a migration touches, parsed, edited and rendered by LibCST.

A module of 200,000 lines with a few thousand registrations costs LibCST seconds to parse and
render, and most of it is never edited. Python's own parser (about a tenth of LibCST's cost)
finds the module's top-level statements; the regions are the statements holding a planned item,
and the header (a docstring, the first block of imports and the statement after it: all the
import adder reads). Their text, each region with the blank and comment lines LibCST gives its
first statement, is cut out of the module as it is and parsed as one small module, whose
statements are LibCST's statements of the whole module, in the same order, holding the same
text. The codemods locate, edit and add imports in it as in the whole module (the locator maps
the scan's positions through Python's statements of those regions, at the module's own lines);
each region's new text is then put back between the original text around it.

The whole module is parsed instead (:func:`regions_for` says why) where this cannot be shown to
give the same result: the regions' indentation or newline would be read differently than the
whole module's, LibCST cannot reproduce their text, or a codemod added or removed a top-level
statement outside the header.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._nodes.whitespace import NEWLINE_RE

from ...analyzer.extract.outline import DEFINITION, EXPRESSION, IMPORTS, first_line, outline
from ...analyzer.extract.outline import groups as outline_groups
from ..base import Source
from .lines import python_lines
from .locate import Locator
from .sections import import_line, top_imports_end


@dataclass
class _Group:
    """One of LibCST's top-level statements: Python's statements sharing its lines."""

    first: int  # first line (a decorator's, for a definition)
    last: int
    stmts: list[ast.stmt]
    kind: int  # ``extract.outline``'s


@dataclass
class Regions:
    """The regions of *text* (character spans, in order, the header first) and the small module
    of their text; *counts* is how many top-level statements each region holds."""

    text: str
    parsed: ast.Module  # Python's tree of the whole module, or of its own level (*whole*)
    spans: list[tuple[int, int]]
    counts: list[int]
    located: ast.Module  # Python's statements of the regions, at the module's lines
    module: cst.Module
    whole: bool = True  # *parsed* is the whole module's tree, not only its own level's
    failed: str = ""  # why the result cannot be put back (then the whole module is parsed)

    def render(self, tree: cst.Module) -> tuple[str, list[tuple[int, int]]]:
        """The module's text with each region's text as *tree* (the small module, edited) has
        it, and the regions' spans in that text; ValueError when *tree*'s statements no longer
        fall into the regions."""
        added = len(tree.body) - sum(self.counts)  # lines of imports, added in the header
        if added < 0:
            raise ValueError("a codemod removed a top-level statement")
        old, new = self.module.body, tree.body
        head = self.counts[0]
        if [type(s) for s in old[head:]] != [type(s) for s in new[head + added:]] or sum(
                not import_line(s) for s in new[:head + added]) != sum(
                not import_line(s) for s in old[:head]):
            raise ValueError("a top-level statement was added outside the import block")
        code, starts = _rendered(tree)
        if len(starts) != len(tree.body):  # a top-level statement's node also stands inside one
            raise ValueError("the statements' starts in the rendering do not correspond")
        pieces: list[str] = []
        index, last = 0, 0
        for region, count in enumerate(self.counts):
            if region == len(self.counts) - 1:
                pieces.append(code[last:])
                break
            index += count + (added if region == 0 else 0)
            pieces.append(code[last:starts[index]])
            last = starts[index]
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        before = size = 0
        for (start, end), piece in zip(self.spans, pieces, strict=True):
            size += start - before
            out += [self.text[before:start], piece]
            spans.append((size, size + len(piece)))
            size += len(piece)
            before = end
        out.append(self.text[before:])
        return "".join(out), spans

    def compiled(self, new: str, spans: list[tuple[int, int]]) -> str:
        """What must compile for *new* (:meth:`render`'s text, the regions at *spans*) to: the
        regions' text alone, the header (a docstring, the ``__future__`` imports and the rest
        of the first import block) first. Every other statement is the original text, whose
        statements Python compiles one by one: nothing of one reaches into another but a
        ``global`` or ``nonlocal`` declaration at the module's own level (``x = 1`` then
        ``global x`` does not compile), so a module holding one compiles whole."""
        if _declares_at_module_level(self.parsed, self.text):
            return new
        return "".join(new[a:b] for a, b in spans)

    def source(self, tree: cst.Module, rel: str, package: str | None, moved: bool) -> Source:
        """The file as a codemod sees it: the small module, the whole module's text and Python
        tree (names, star imports), and a locator at the module's lines; after an edit moved
        lines, the whole text as rendered so far."""
        if tree is self.module or not moved:
            source = Source(tree, self.text, rel, self.parsed, self.module, package,
                            partial=not self.whole)
            source.__dict__["locator"] = Locator(tree, self.text, self.located, self.module)
            return source
        try:
            text, spans = self.render(tree)
            parsed = ast.parse(text)
            located = _located(text, parsed, spans, self.counts)
            source = Source(tree, text, rel, parsed, None, package)
            source.__dict__["locator"] = Locator(tree, text, located)
            return source
        except (ValueError, LookupError, SyntaxError, RecursionError) as exc:
            self.failed = f"the text after an edit that moved lines cannot be mapped: {exc}"
            return Source(tree, tree.code, rel, package=package)


class _Starts(CodegenState):
    """A module's rendering that marks where each top-level statement's tokens begin."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.body = {id(stmt) for stmt in module.body}
        self.marks: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.body:
            self.marks.append(len(self.tokens))


def _rendered(tree: cst.Module) -> tuple[str, list[int]]:
    """*tree*'s code and where each of its top-level statements starts in it, from one
    rendering (the module's code is its header, its statements' code and its footer)."""
    state = _Starts(tree)
    tree._codegen(state)
    offsets, at, size = [], 0, 0
    for mark in state.marks:
        size += sum(len(token) for token in state.tokens[at:mark])
        offsets.append(size)
        at = mark
    return "".join(state.tokens), offsets


def regions_for(text: str, parsed: ast.Module | None, lines: Iterable[int],
                outline: tuple[int, ...] | None = None) -> Regions | str:
    """The regions of *text* holding *lines* (and the header), parsed; else why not. Its
    top-level statements are Python's *parsed*, or the scan's *outline* of them (then Python
    parses only the statements at the module's own level: see :func:`_module_level`)."""
    if parsed is None and outline is not None:
        groups = [_Group(first, last, [], kind) for first, last, kind in outline_groups(outline)]
    else:
        parsed = parsed if parsed is not None else ast.parse(text)
        groups = _groups(parsed.body, text)
    if not groups:
        return "the module has no statement"
    starts = _line_starts(text)
    chosen = set(range(_header(groups)))
    firsts = [g.first for g in groups]
    for line in lines:
        index = bisect.bisect_right(firsts, line) - 1
        if index >= 0 and line <= groups[index].last:
            chosen.add(index)
    for index in sorted(chosen, reverse=True):
        # indented lines before a statement belong to the block that ends above it (LibCST's
        # IndentedBlock footer): the statement holding that block comes along
        while index > 0 and _indented_between(text, starts, groups[index - 1].last,
                                              groups[index].first):
            index -= 1
            chosen.add(index)
    whole = parsed is not None
    if parsed is None:
        parsed = _module_level(text, starts, groups, chosen)
        if parsed is None:  # the outline does not describe the text: Python's whole tree
            return regions_for(text, ast.parse(text), lines)
    spans: list[tuple[int, int]] = []
    counts: list[int] = []
    for index in sorted(chosen):
        start = starts[groups[index - 1].last] if index else 0
        end = starts[groups[index].last]
        if spans and spans[-1][1] == start:
            spans[-1] = (spans[-1][0], end)
            counts[-1] += 1
        else:
            spans.append((start, end))
            counts.append(1)
    small = "".join(text[a:b] for a, b in spans)
    try:
        module = cst.parse_module(small)
    except (cst.ParserSyntaxError, RecursionError) as exc:
        return f"LibCST cannot parse the regions: {exc}"
    if module.code != small:
        return "LibCST cannot reproduce the regions byte for byte"
    if len(module.body) != sum(counts):
        return "the regions' statements do not correspond"
    if top_imports_end(module) >= counts[0] and counts[0] < len(groups):
        return "the import block is not inside the header region"
    newline = NEWLINE_RE.search(text)
    if (newline.group(0) if newline else "\n") != module.default_newline:
        return "the regions' first newline is not the module's"
    if _indent(text) != module.default_indent:
        return "the regions' first indentation is not the module's"
    located = ast.Module(body=[s for i in sorted(chosen) for s in groups[i].stmts],
                         type_ignores=[])
    return Regions(text, parsed, spans, counts, located, module, whole)


def _module_level(text: str, starts: list[int], groups: list[_Group], chosen: set[int]
                  ) -> ast.Module | None:
    """Python's tree of the module with the definitions outside *chosen* left out (their lines
    blank): every statement at the module's own level (its imports, the names it binds, a
    ``global``) and the chosen ones, at their lines and columns, for a fraction of parsing the
    whole module; each group gets its statements. None when the groups do not fit the text."""
    pieces: list[str] = []
    at = 0
    for index, group in enumerate(groups):
        if group.kind == DEFINITION and index not in chosen:
            pieces += [text[at:starts[group.first - 1]], "\n" * (group.last - group.first + 1)]
            at = starts[group.last]
    pieces.append(text[at:])
    try:
        tree = ast.parse("".join(pieces))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    firsts = [g.first for g in groups]
    for stmt in tree.body:
        index = bisect.bisect_right(firsts, first_line(stmt)) - 1
        if index < 0 or (stmt.end_lineno or stmt.lineno) > groups[index].last:
            return None
        groups[index].stmts.append(stmt)
    kept = (g for i, g in enumerate(groups) if g.kind != DEFINITION or i in chosen)
    if any(not g.stmts or first_line(g.stmts[0]) != g.first for g in kept):
        return None
    return tree


def _declares_at_module_level(parsed: ast.Module, text: str) -> bool:
    """Does a ``global`` or ``nonlocal`` statement stand at the module's own level (in no
    function or class)?"""
    if "global" not in text and "nonlocal" not in text:
        return False
    stack: list[ast.AST] = list(parsed.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _groups(body: list[ast.stmt], text: str) -> list[_Group]:
    groups = [_Group(first, last, [], kind)
              for first, last, kind in outline_groups(outline(body, text))]
    firsts = [g.first for g in groups]
    for stmt in body:
        groups[bisect.bisect_right(firsts, first_line(stmt)) - 1].stmts.append(stmt)
    return groups


def _header(groups: list[_Group]) -> int:
    """How many statements hold at least a docstring, the first import block and the statement
    after it (what the import adder and the isort placement read): checked again on LibCST's."""
    index = 1 if groups[0].kind == EXPRESSION else 0
    while index < len(groups) and groups[index].kind == IMPORTS:
        index += 1
    return min(index + 1, len(groups))


def _line_starts(text: str) -> list[int]:
    """Where each line starts (index 0: line 1), and the text's end after the last."""
    starts = [0]
    for line in python_lines(text, keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _indented_between(text: str, starts: list[int], after: int, before: int) -> bool:
    """Is a line between line *after* and line *before* (both excluded) indented, with
    something on it (a comment)?"""
    for number in range(after + 1, before):
        line = text[starts[number - 1]:starts[number]].rstrip("\r\n")
        if line[:1] in (" ", "\t", "\x0c") and line.strip(" \t\x0c"):
            return True
    return False


def _indent(text: str) -> str:
    """The module's first indentation, as LibCST's default_indent: its first INDENT token's
    (Python's tokenizer, stopped there)."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    try:
        for token in tokens:
            if token.type == tokenize.INDENT:
                return token.string
    except (tokenize.TokenError, SyntaxError):
        return ""
    return "    "


def _located(text: str, parsed: ast.Module, spans: list[tuple[int, int]], counts: list[int]
             ) -> ast.Module:
    """Python's statements of the regions, now at *spans* of *text*."""
    starts = _line_starts(text)
    groups = _groups(parsed.body, text)
    firsts = [g.first for g in groups]
    chosen: list[ast.stmt] = []
    for (start, _), count in zip(spans, counts, strict=True):
        begin = bisect.bisect_right(starts, start)  # the line holding the region's start
        index = bisect.bisect_left(firsts, begin)
        taken = groups[index:index + count]
        if len(taken) != count:
            raise ValueError("a region's statements were not found again")
        chosen += [s for g in taken for s in g.stmts]
    return ast.Module(body=chosen, type_ignores=[])
