"""A method's own imports that its rewritten body no longer reads (lionagi's a_add_message
imports ``is_coro_func`` inside the method for the loop the kernel call replaced), what an import
statement binds, and the calls in a node."""

from __future__ import annotations

import libcst as cst

from .names import dotted, reads_and_binds


def drop_unused_local_imports(before: list[cst.BaseStatement], after: list[cst.BaseStatement]
                              ) -> list[cst.BaseStatement]:
    """*after* without the names of its top-level ``from m import a`` statements that *before*
    read and *after* no longer does (a statement left with none goes, its leading lines kept)."""
    reads_before = reads_and_binds(before, imports=False)[0]
    reads_after = reads_and_binds(after, imports=False)[0]
    out: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    for stmt in after:
        new = _without(stmt, reads_before - reads_after)
        if new is None:
            carried += list(getattr(stmt, "leading_lines", ()))
            continue
        if carried or (not out and stmt is not after[0]):  # statements before it were dropped
            lines = [*carried, *getattr(new, "leading_lines", ())]
            if not out:  # now the block's first statement: no blank line after the `def`
                while lines and lines[0].comment is None:
                    lines = lines[1:]
            new = new.with_changes(leading_lines=lines)
            carried = []
        out.append(new)
    return out


def _without(stmt: cst.BaseStatement, gone: set[str]) -> cst.BaseStatement | None:
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.ImportFrom)
            and not isinstance(stmt.body[0].names, cst.ImportStar)):
        return stmt
    node = stmt.body[0]
    assert not isinstance(node.names, cst.ImportStar)
    kept = [a for a in node.names
            if _local(a) not in gone]
    if len(kept) == len(node.names):
        return stmt
    if not kept:
        return None
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return stmt.with_changes(body=[node.with_changes(names=kept)])


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name = alias.name
    return name.value if isinstance(name, cst.Name) else ""


def imported(small: cst.BaseSmallStatement) -> list[tuple[str, str | None, str]]:
    """(module, name, local name) of each absolute import a statement makes."""
    out: list[tuple[str, str | None, str]] = []
    if isinstance(small, cst.Import):
        for alias in small.names:
            full = dotted(alias.name)
            if full and alias.asname is None:
                out.append((full, None, full.split(".")[0]))
    elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
            and not isinstance(small.names, cst.ImportStar):
        module = dotted(small.module)
        for alias in small.names:
            name = dotted(alias.name)
            if module and name and alias.asname is None:
                out.append((module, name, name))
    return out


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """Every call in *node*, nested functions included."""
    out: list[cst.Call] = []
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, cst.Call):
            out.append(current)
        todo.extend(current.children)
    return out
