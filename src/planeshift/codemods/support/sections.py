"""New import lines placed as the target's isort places them: its section, its sorted position.

LibCST's ``AddImportsVisitor`` merges a name into an import from the same module and otherwise
appends a new line after the last top-level import, whatever its section. Here the names
scheduled for a module the top import block does not import from yet become one line
(``from m import A, b``, names in isort's order) inserted where isort would put it: in its
section (standard library, third party, first party, local folder, from the target's
configuration), before the first line that sorts after it, with one blank line between
sections. Names already merged by the visitor are left to it.
"""

from __future__ import annotations

from collections import defaultdict

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, ImportItem
from libcst.helpers import get_full_name_for_node

from .style import TargetStyle, member_key, module_key


def place_new(context: CodemodContext, tree: cst.Module, style: TargetStyle) -> cst.Module:
    """*tree* with a line for each module of the scheduled imports that the top import block
    does not import from; those items are taken off *context*'s schedule."""
    items: list[ImportItem] = context.scratch.get(AddImportsVisitor.CONTEXT_KEY, [])
    end = top_imports_end(tree)
    block = [s for s in tree.body[:end] if isinstance(s, cst.SimpleStatementLine)
             and _is_import(s)]
    merged = {_from_module(s.body[0]) for s in block if isinstance(s.body[0], cst.ImportFrom)}
    have = {(m, a.evaluated_name, a.evaluated_alias) for s in block for m, a in _aliases(s)}
    new: dict[tuple[str, str], list[ImportItem]] = defaultdict(list)
    keep: list[ImportItem] = []
    for item in items:
        if (item.module, item.obj_name, item.alias) in have:
            continue
        if item.obj_name is None or item.relative or (item.module in merged and not item.alias):
            keep.append(item)
        else:  # isort writes each `name as alias` on a line of its own (combine-as-imports)
            new[(item.module, item.alias or "")].append(item)
    context.scratch[AddImportsVisitor.CONTEXT_KEY] = keep
    for (module, _), wanted in new.items():
        names = sorted(dict.fromkeys((i.obj_name or "", i.alias) for i in wanted),
                       key=lambda n: member_key(n[0], style))
        line = cst.parse_statement(f"from {module} import " + ", ".join(
            f"{n} as {a}" if a else n for n, a in names) + "\n")
        tree = _insert(tree, line, style)  # type: ignore[arg-type]
    return tree


def _insert(tree: cst.Module, line: cst.SimpleStatementLine, style: TargetStyle) -> cst.Module:
    body = list(tree.body)
    end = top_imports_end(tree)
    start = 1 if end and not _is_import(body[0]) else 0  # after the docstring
    key = _line_key(line, style)
    at = next((i for i in range(start, end) if _line_key(body[i], style) > key), end)
    section = key[0]
    before = _line_key(body[at - 1], style)[0] if at > start else None
    after = _line_key(body[at], style)[0] if at < end else None
    blank = (cst.EmptyLine(),)
    if at < end and after == section and before != section:
        line = line.with_changes(leading_lines=body[at].leading_lines)  # heads its section
        body[at] = body[at].with_changes(leading_lines=())
    elif before is not None and before != section or (before is None and start):
        line = line.with_changes(leading_lines=blank)
    elif before is None and at < end:  # first in the block, another section follows
        line = line.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=blank)
    if at == end and at < len(body) and not body[at].leading_lines:
        body[at] = body[at].with_changes(leading_lines=blank)  # code right after the imports
    body.insert(at, line)
    return tree.with_changes(body=body)


def import_line(stmt: cst.CSTNode) -> bool:
    """A line of imports only (``import a; from b import c`` too)."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], (cst.Import, cst.ImportFrom))


def _from_module(node: cst.ImportFrom) -> str:
    name = get_full_name_for_node(node.module) if node.module is not None else ""
    return "." * len(node.relative) + (name or "")


def _aliases(stmt: cst.SimpleStatementLine) -> list[tuple[str, cst.ImportAlias]]:
    node = stmt.body[0]
    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return []
        return [(_from_module(node), a) for a in node.names]
    return []


def _line_key(stmt: cst.CSTNode, style: TargetStyle) -> tuple:
    if not _is_import(stmt):
        return (9,)
    node = stmt.body[0]  # type: ignore[attr-defined]
    if isinstance(node, cst.Import):
        return module_key(get_full_name_for_node(node.names[0].name) or "", 0, False, style)
    module = get_full_name_for_node(node.module) if node.module is not None else ""
    key = module_key(module or "", len(node.relative), True, style)
    first = node.names[0] if not isinstance(node.names, cst.ImportStar) else None
    if first is None or first.asname is None:
        return (*key, (0,))  # a line without aliases before one with
    return (*key, (1, member_key(first.evaluated_name, style), first.evaluated_alias or ""))


def top_imports_end(module: cst.Module) -> int:
    """Where the first block of imports (after a docstring) ends: all the adder gathers."""
    body = module.body
    index = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and body[0].body and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        index = 1
    while index < len(body):
        line = body[index]
        if not isinstance(line, cst.SimpleStatementLine) or not all(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in line.body):
            break
        index += 1
    return index
