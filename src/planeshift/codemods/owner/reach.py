"""Who else reaches an owner's handler list (``owner_table``): the table stands for the list only
when nothing outside the class reads or mutates it.

Three places might: a registration the scan found appending to it from elsewhere; another module
of the project that names both the class and ``.attr`` (the project's files are the scan's,
``MigrateFacts.python_files``: its discovery, excludes honoured, each read once a run; one that
cannot be read might, and the scan has reported it as an error); and the owner's own module
outside the class. Each is read as code (``ast`` for the other modules, after a plain substring
test spares parsing the many that cannot name it; LibCST nodes for the owner's module), with
string literals counted as naming it (``getattr(bus, "_handlers")``).
"""

from __future__ import annotations

import ast

import libcst as cst
import libcst.matchers as m

from ..facts import MigrateFacts
from .plan import Owner


def named_outside(facts: MigrateFacts, owner: Owner, tree: cst.Module, cls: cst.ClassDef,
                  attr: str) -> str | None:
    """Where something outside the class reaches ``self.<attr>``, or None when nothing does."""
    for reg in facts.scan.registrations:
        if reg.mechanism == owner.mechanism and reg.api.startswith(f"{attr}.") and (
                reg.file != owner.file or not reg.scope.startswith(f"{owner.cls}.")):
            return f"{reg.file}:{reg.line} ({reg.scope or 'module'}: {reg.api})"
    for rel in facts.python_files:
        if rel == owner.file:
            continue
        try:
            text = facts.text(rel)
        except OSError:
            return f"{rel} (it cannot be read, so it might be)"
        if attr in text and owner.cls in text and _names_both(text, owner.cls, attr):
            return rel
    if any(_spells(stmt, attr) for stmt in tree.body if stmt is not cls):
        return f"{owner.file} outside {owner.cls}"
    return None


def _names_both(text: str, cls: str, attr: str) -> bool:
    """The module's code names the class (a name, an attribute, an import) and ``.attr``; one
    that does not parse might, so it does."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    names: set[str] = set()
    attrs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            attrs.add(node.attr)
        elif isinstance(node, ast.alias):
            names.update(filter(None, (node.name.rpartition(".")[2], node.asname)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _word_in(node.value, f".{attr}"):
                attrs.add(attr)
            if _word_in(node.value, cls):
                names.add(cls)
    return attr in attrs and (cls in names or cls in attrs)


def _spells(node: cst.CSTNode, word: str) -> bool:
    """*node* names *word*: a name, an attribute, a definition, a keyword, or a string literal
    holding it as a whole word."""
    if m.findall(node, m.Name(word)):
        return True
    for string in m.findall(node, m.SimpleString() | m.FormattedStringText()):
        value = string.evaluated_value if isinstance(string, cst.SimpleString) else \
            string.value  # type: ignore[attr-defined]
        if isinstance(value, str) and _word_in(value, word):
            return True
    return False


def _word_in(text: str, word: str) -> bool:
    """*word* occurs in *text* not as part of a longer identifier."""
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        before = start > 0 and _identifier(text[start - 1]) and _identifier(word[0])
        after = end < len(text) and _identifier(text[end])
        if not before and not after:
            return True
        start = text.find(word, start + 1)
    return False


def _identifier(char: str) -> bool:
    return char.isalnum() or char == "_"


def broadcaster(tree: cst.Module, policy: str) -> bool:
    """The module sets *policy* to ``DispatchPolicy.broadcaster()`` (or a policy built from it)
    at its top level."""
    for stmt in tree.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    m.matches(small.targets[0].target, m.Name(policy)):
                value: cst.BaseExpression | None = small.value
            elif isinstance(small, cst.AnnAssign) and m.matches(small.target, m.Name(policy)):
                value = small.value
            else:
                continue
            while isinstance(value, (cst.Call, cst.Attribute, cst.Subscript)):
                if m.matches(value, m.Call(func=m.Attribute(value=m.Name("DispatchPolicy"),
                                                            attr=m.Name("broadcaster")),
                                           args=[])):
                    return True
                value = value.func if isinstance(value, cst.Call) else value.value
    return False
