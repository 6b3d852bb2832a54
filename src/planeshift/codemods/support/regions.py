"""Only the statements a migration touches, parsed, edited and rendered by LibCST.

A module of 200,000 lines with a few thousand registrations costs LibCST seconds to parse and
render, and most of it is never edited. The scan's outline of the module (kept in its facts)
gives its top-level statements, and Python parses only those at the module's own level and the
chosen ones (``cutting``; Python's whole parse where there is no outline); the regions are the
statements holding a planned item, and the header (a docstring, the first block of imports and
the statement after it: all the import adder reads). A definition holding items is cut down
to its header and the statements of its body holding them. Their text, each region with the
blank and comment lines LibCST gives its first statement, is cut out of the module as it is
and parsed as one small module, whose statements are LibCST's statements of the whole module,
in the same order, holding the same text. The codemods locate, edit and add imports in it as
in the whole module (the locator maps the scan's positions through Python's statements of
those regions, at the module's own lines); each region's new text is then put back between
the original text around it.

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
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._nodes.whitespace import NEWLINE_RE

from ...analyzer.extract.outline import groups as outline_groups
from ..base import Source
from .cutting import (Group, body_of, cut_down, declares_at_module_level, definition_cuts,
                      header_size, indented_between, line_starts, module_level, pruned_body,
                      statement_groups)
from .locate import Locator
from .sections import import_line, top_imports_end


@dataclass
class Regions:
    """The regions of *text* (character spans, in order, the header first) and the small module
    of their text: each span is the text of the statement *marks* names (the module's first
    statement for the first span, then ``(i,)``: its *i*-th top-level statement, or ``(i, j)``:
    the *j*-th statement of that definition's body, when a definition is cut down to the
    statements of its body it holds) and of those after it up to the next span's; *counts*,
    how many top-level statements each span holds (None once a definition is cut down); *head*,
    how many the header holds."""

    text: str
    parsed: ast.Module  # Python's tree of the whole module, or of its own level (*whole*)
    spans: list[tuple[int, int]]
    counts: list[int] | None
    located: ast.Module  # Python's statements of the regions, at the module's lines
    module: cst.Module
    whole: bool = True  # *parsed* is the whole module's tree, not only its own level's
    head: int = 1
    marks: list[tuple[int, ...]] = field(default_factory=list)
    failed: str = ""  # why the result cannot be put back (then the whole module is parsed)

    def render(self, tree: cst.Module) -> tuple[str, list[tuple[int, int]]]:
        """The module's text with each region's text as *tree* (the small module, edited) has
        it, and the regions' spans in that text; ValueError when *tree*'s statements no longer
        fall into the regions."""
        added = len(tree.body) - len(self.module.body)  # lines of imports, added in the header
        if added < 0:
            raise ValueError("a codemod removed a top-level statement")
        old, new = self.module.body, tree.body
        head = self.head
        if [type(s) for s in old[head:]] != [type(s) for s in new[head + added:]] or sum(
                not import_line(s) for s in new[:head + added]) != sum(
                not import_line(s) for s in old[:head]):
            raise ValueError("a top-level statement was added outside the import block")
        cut = {mark[0] + added: len(body_of(old[mark[0]])) for mark in self.marks if len(mark) == 2}
        code, tops, bodies = _rendered(tree, cut)
        if len(tops) != len(tree.body) or any(len(bodies.get(t, ())) != n for t, n in cut.items()):
            # a top-level statement's node also stands inside one, or a body changed its length
            raise ValueError("the statements' starts in the rendering do not correspond")
        offsets = [0]
        for top, *inner in self.marks[1:]:  # each after the header, where imports were added
            offsets.append(bodies[top + added][inner[0]] if inner else tops[top + added])
        if offsets != sorted(offsets):
            raise ValueError("the statements' starts in the rendering are out of order")
        pieces = [code[a:b] for a, b in zip(offsets, [*offsets[1:], len(code)], strict=True)]
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
        if declares_at_module_level(self.parsed, self.text):
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
            if self.counts is None:
                raise ValueError("a definition was cut down to the statements it holds")
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
    """A module's rendering that marks where each top-level statement's tokens begin, and
    those of the body statements of the top-level statements *cut* names."""

    def __init__(self, module: cst.Module, cut: Iterable[int]) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.wanted = {id(stmt): (top, -1) for top, stmt in enumerate(module.body)}
        for top in cut:
            if top < len(module.body):
                self.wanted.update((id(stmt), (top, j))
                                   for j, stmt in enumerate(body_of(module.body[top])))
        self.marks: list[tuple[tuple[int, int], int]] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        found = self.wanted.get(id(node))
        if found is not None:
            self.marks.append((found, len(self.tokens)))


def _rendered(tree: cst.Module, cut: Iterable[int] = ()
              ) -> tuple[str, list[int], dict[int, list[int]]]:
    """*tree*'s code, where each of its top-level statements starts in it, and where the body
    statements of each top-level statement of *cut* start, from one rendering (the module's
    code is its header, its statements' code and its footer)."""
    state = _Starts(tree, cut)
    tree._codegen(state)
    tops: list[int] = []
    bodies: dict[int, list[int]] = {}
    at = size = 0
    for (top, inner), mark in state.marks:
        size += sum(len(token) for token in state.tokens[at:mark])
        at = mark
        if inner < 0:
            tops.append(size)
        else:
            bodies.setdefault(top, []).append(size)
    return "".join(state.tokens), tops, bodies


def regions_for(text: str, parsed: ast.Module | None, lines: Iterable[int],
                outline: tuple[int, ...] | None = None) -> Regions | str:
    """The regions of *text* holding *lines* (and the header), parsed; else why not. Its
    top-level statements are Python's *parsed*, or the scan's *outline* of them (then Python
    parses only the statements at the module's own level: see :func:`module_level`)."""
    if parsed is None and outline is not None:
        groups = [Group(first, last, [], kind) for first, last, kind in outline_groups(outline)]
    else:
        parsed = parsed if parsed is not None else ast.parse(text)
        groups = statement_groups(parsed.body, text)
    if not groups:
        return "the module has no statement"
    starts = line_starts(text)
    header = header_size(groups)
    chosen = set(range(header))
    firsts = [g.first for g in groups]
    for line in lines:
        index = bisect.bisect_right(firsts, line) - 1
        if index >= 0 and line <= groups[index].last:
            chosen.add(index)
    for index in sorted(chosen, reverse=True):
        # indented lines before a statement belong to the block that ends above it (LibCST's
        # IndentedBlock footer): the statement holding that block comes along
        while index > 0 and indented_between(text, starts, groups[index - 1].last,
                                              groups[index].first):
            index -= 1
            chosen.add(index)
    whole = parsed is not None
    if parsed is None:
        parsed = module_level(text, starts, groups, chosen)
        if parsed is None:  # the outline does not describe the text: Python's whole tree
            return regions_for(text, ast.parse(text), lines)
    pruned = {index: body for index in chosen if index >= header and (
        body := pruned_body(text, starts, groups, index, lines)) is not None}
    spans: list[tuple[int, int]] = []
    counts: list[int] = []
    marks: list[tuple[int, ...]] = []
    for top, index in enumerate(sorted(chosen)):
        start = starts[groups[index - 1].last] if index else 0
        cuts = [(start, starts[groups[index].last], (top,))]
        if index in pruned:
            cuts = definition_cuts(text, starts, groups[index], pruned[index], start, top)
        for begin, end, mark in cuts:
            if spans and spans[-1][1] == begin:
                spans[-1] = (spans[-1][0], end)
                if len(mark) == 1:
                    counts[-1] += 1
            else:
                spans.append((begin, end))
                counts.append(int(len(mark) == 1))
                marks.append(mark)
    small = "".join(text[a:b] for a, b in spans)
    try:
        module = cst.parse_module(small)
    except (cst.ParserSyntaxError, RecursionError) as exc:
        return f"LibCST cannot parse the regions: {exc}"
    if module.code != small:
        return "LibCST cannot reproduce the regions byte for byte"
    if len(module.body) != len(chosen) or any(
            len(body_of(module.body[top])) != len(pruned[index])
            for top, index in enumerate(sorted(chosen)) if index in pruned):
        return "the regions' statements do not correspond"
    head = counts[0]  # the top-level statements of the first span: the header and any after
    if top_imports_end(module) >= head and head < len(groups):
        return "the import block is not inside the header region"
    newline = NEWLINE_RE.search(text)
    if (newline.group(0) if newline else "\n") != module.default_newline:
        return "the regions' first newline is not the module's"
    if _indent(text) != module.default_indent:
        return "the regions' first indentation is not the module's"
    located = ast.Module(body=[cut_down(s, pruned.get(i)) for i in sorted(chosen)
                               for s in groups[i].stmts], type_ignores=[])
    return Regions(text, parsed, spans, None if pruned else counts, located, module, whole,
                   head=head, marks=marks)


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
    starts = line_starts(text)
    groups = statement_groups(parsed.body, text)
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
