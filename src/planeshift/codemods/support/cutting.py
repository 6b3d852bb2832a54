"""A module's text cut into what LibCST must see of it and what it need not: its top-level
statements as groups of lines (from the scan's outline, or Python's tree), Python's parse of
only the statements at the module's own level, and a definition cut down to its header and the
statements of its body that a migration rewrites (``regions`` puts the pieces together)."""

from __future__ import annotations

import ast
import bisect
import copy
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from ...analyzer.extract.outline import DEFINITION, EXPRESSION, IMPORTS, first_line, outline
from ...analyzer.extract.outline import groups as outline_groups
from ...analyzer.extract.pass_through import own_nodes
from .lines import python_lines


@dataclass
class Group:
    """One of LibCST's top-level statements: Python's statements sharing its lines."""

    first: int  # first line (a decorator's, for a definition)
    last: int
    stmts: list[ast.stmt]
    kind: int  # ``extract.outline``'s


def pruned_body(text: str, starts: list[int], groups: list[Group], index: int,
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
            indented_between(text, starts, group.last, groups[index + 1].first):
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
        if indented_between(text, starts, ends[k - 1], firsts[k], deeper_than=indent):
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


def definition_cuts(text: str, starts: list[int], group: Group, kept: list[int], start: int,
                    top: int) -> list[tuple[int, int, tuple[int, ...]]]:
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
    while line > definition.lineno:
        content = text[starts[line - 1]:starts[line]].strip(" \t\x0c\r\n")
        if content and not content.startswith("#"):
            break  # the header's own last line
        line -= 1
    return line


def body_of(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    """The statements of a definition's indented body (none for anything else)."""
    body = getattr(node, "body", None)
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def cut_down(stmt: ast.stmt, kept: list[int] | None) -> ast.stmt:
    """*stmt*, or a copy of the definition whose body holds only its *kept* statements."""
    if kept is None:
        return stmt
    cut = copy.copy(stmt)
    cut.body = [stmt.body[k] for k in kept]  # type: ignore[attr-defined]
    return cut


def module_level(text: str, starts: list[int], groups: list[Group], chosen: set[int]
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


def declares_at_module_level(parsed: ast.Module, text: str) -> bool:
    """Does a ``global`` or ``nonlocal`` statement stand at the module's own level (in no
    function or class)?"""
    if "global" not in text and "nonlocal" not in text:
        return False
    return any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in own_nodes(parsed))


def statement_groups(body: list[ast.stmt], text: str) -> list[Group]:
    """The groups of a module's statements *body* (its text *text*), each with its own."""
    groups = [Group(first, last, [], kind)
              for first, last, kind in outline_groups(outline(body, text))]
    firsts = [g.first for g in groups]
    for stmt in body:
        groups[bisect.bisect_right(firsts, first_line(stmt)) - 1].stmts.append(stmt)
    return groups


def header_size(groups: list[Group]) -> int:
    """How many statements hold at least a docstring, the first import block and the statement
    after it (what the import adder and the isort placement read): checked again on LibCST's."""
    index = 1 if groups[0].kind == EXPRESSION else 0
    while index < len(groups) and groups[index].kind == IMPORTS:
        index += 1
    return min(index + 1, len(groups))


def line_starts(text: str) -> list[int]:
    """Where each line starts (index 0: line 1), and the text's end after the last."""
    return list(itertools.accumulate(map(len, python_lines(text, keepends=True)), initial=0))


def indented_between(text: str, starts: list[int], after: int, before: int,
                     deeper_than: int = 0) -> bool:
    """Is a line between line *after* and line *before* (both excluded) indented (more than
    *deeper_than* characters), with something on it (a comment)?"""
    for number in range(after + 1, before):
        line = text[starts[number - 1]:starts[number]].rstrip("\r\n")
        if len(line) - len(line.lstrip(" \t\x0c")) > deeper_than and line.strip(" \t\x0c"):
            return True
    return False
