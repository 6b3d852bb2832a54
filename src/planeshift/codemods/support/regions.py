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
import copy
import itertools
import io
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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
        cut = {mark[0] + added: len(_body(old[mark[0]])) for mark in self.marks if len(mark) == 2}
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
                                   for j, stmt in enumerate(_body(module.body[top])))
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
    header = _header(groups)
    pruned = {index: body for index in chosen if index >= header and (
        body := _pruned(text, starts, groups, index, lines)) is not None}
    spans: list[tuple[int, int]] = []
    counts: list[int] = []
    marks: list[tuple[int, ...]] = []
    for top, index in enumerate(sorted(chosen)):
        start = starts[groups[index - 1].last] if index else 0
        cuts = [(start, starts[groups[index].last], (top,))]
        if index in pruned:
            cuts = _cuts(text, starts, groups[index], pruned[index], start, top)
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
            len(_body(module.body[top])) != len(pruned[index])
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
    located = ast.Module(body=[_kept(s, pruned.get(i)) for i in sorted(chosen)
                               for s in groups[i].stmts], type_ignores=[])
    return Regions(text, parsed, spans, None if pruned else counts, located, module, whole,
                   head=head, marks=marks)


def _pruned(text: str, starts: list[int], groups: list[_Group], index: int,
            lines: Iterable[int]) -> list[int] | None:
    """The statements of the definition *groups[index]*'s body holding *lines* (their
    indices), when the definition may be cut down to its header and those (the rest of its
    body is the module's text as it is, and LibCST parses a fraction of it); None when it
    must be parsed whole: not a definition with a body of lines of its own, a line in its
    header or between statements, statements sharing a line, lines of the block's footer
    (indented comments after a statement, which LibCST gives the block above them), a
    ``global`` or ``nonlocal`` statement (one statement's validity depending on another's),
    or nothing left out."""
    group = groups[index]
    if group.kind != DEFINITION or len(group.stmts) != 1:
        return None
    definition = group.stmts[0]
    body: list[ast.stmt] = definition.body  # type: ignore[attr-defined]
    if first_line(body[0]) <= definition.lineno or index + 1 < len(groups) and \
            _indented_between(text, starts, group.last, groups[index + 1].first):
        return None
    segment = text[starts[group.first - 1]:starts[group.last]]
    if "global" in segment or "nonlocal" in segment:
        return None
    firsts = [first_line(stmt) for stmt in body]
    ends = [stmt.end_lineno or stmt.lineno for stmt in body]
    if any(ends[k - 1] >= firsts[k] for k in range(1, len(body))):
        return None
    indent = body[0].col_offset
    for k in range(1, len(body)):
        if _indented_between(text, starts, ends[k - 1], firsts[k], deeper_than=indent):
            return None
    kept: set[int] = set()
    for line in lines:
        if not group.first <= line <= group.last:
            continue
        k = bisect.bisect_right(firsts, line) - 1
        if k < 0 or line > ends[k]:
            return None  # in the header, or between statements
        kept.add(k)
    return sorted(kept) if kept and len(kept) < len(body) else None


def _cuts(text: str, starts: list[int], group: _Group, kept: list[int], start: int, top: int
          ) -> list[tuple[int, int, tuple[int, ...]]]:
    """The spans of text a definition cut down to *kept* statements of its body stands for:
    its header (from *start*, its leading lines, to the end of the line its body starts after)
    and each kept statement (from the end of the statement before it, for its leading lines,
    to the end of its last line); each with the statement whose rendering starts it, as
    (*top*,) or (*top*, index among the kept)."""
    body: list[ast.stmt] = group.stmts[0].body  # type: ignore[attr-defined]
    header_end = _header_end(text, starts, group.stmts[0], body[0])
    out = [(start, starts[header_end], (top,))]
    for order, k in enumerate(kept):
        begin = starts[body[k - 1].end_lineno or body[k - 1].lineno] if k else starts[header_end]
        out.append((begin, starts[body[k].end_lineno or body[k].lineno], (top, order)))
    return out


def _header_end(text: str, starts: list[int], definition: ast.stmt, first: ast.stmt) -> int:
    """The last line of *definition*'s header (its ``:``): the blank and comment lines between
    it and the *first* statement of its body are that statement's leading lines."""
    line = first_line(first) - 1
    while line > definition.lineno and text[starts[line - 1]:starts[line]].strip(
            " \t\x0c\r\n").startswith("#") or line > definition.lineno and not text[
            starts[line - 1]:starts[line]].strip(" \t\x0c\r\n"):
        line -= 1
    return line


def _body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    """The statements of a definition's indented body (none for anything else)."""
    body = getattr(node, "body", None)
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def _kept(stmt: ast.stmt, kept: list[int] | None) -> ast.stmt:
    """*stmt*, or a copy of the definition whose body holds only its *kept* statements."""
    if kept is None:
        return stmt
    cut = copy.copy(stmt)
    cut.body = [stmt.body[k] for k in kept]  # type: ignore[attr-defined]
    return cut


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
    return list(itertools.accumulate(map(len, python_lines(text, keepends=True)), initial=0))


def _indented_between(text: str, starts: list[int], after: int, before: int,
                      deeper_than: int = 0) -> bool:
    """Is a line between line *after* and line *before* (both excluded) indented (more than
    *deeper_than* characters), with something on it (a comment)?"""
    for number in range(after + 1, before):
        line = text[starts[number - 1]:starts[number]].rstrip("\r\n")
        if len(line) - len(line.lstrip(" \t\x0c")) > deeper_than and line.strip(" \t\x0c"):
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
