"""Which dispatchers read what a call site declares, and a stage spelled one way: what the
``registration`` codemod asks before it writes a typed registration."""

from __future__ import annotations

import ast

from ..analyzer.context import PREFIX as CONTEXT
from ..types import Registration
from .facts import MigrateFacts
from .owner.declarations import constant, reads_declarations

__all__ = ["stage", "unread"]


def stage(point: str) -> str:
    """A point spelled one way as a stage: the member name of an enum point
    (``HookPoint.TOOL_PRE`` -> ``TOOL_PRE``), a mapping key naming a member, without its
    pattern (``"security_pre:*"`` -> ``SECURITY_PRE``, as the enum spells it); anything else
    as is."""
    head = point.split(":", 1)[0]
    parts = head.split(".")
    if not all(part.isidentifier() for part in parts):
        return point
    if parts[-1].isupper():  # an enum member, however it was reached
        return parts[-1]
    if ":" in point and len(parts) == 1 and head.islower():  # a key "<member>:<pattern>"
        return head.upper()
    return point


def unread(reg: Registration, facts: MigrateFacts) -> str:
    """Why *reg*'s declaration would be read by nobody, or "": the dispatcher it registers
    with must run on the kernels with a façade that reads declarations (`migrate --owners`),
    and the call must hand the handler to a method of it that does (``accept``): a list the
    handler waits in (``_pending_hook_bus_entries.append``) hands it on later, wrapped."""
    if reg.mechanism not in facts.mechanisms:
        return ""
    if facts.mechanisms[reg.mechanism][1].migrate.declarations == "always":
        return ""
    cache: dict[str, tuple[str, frozenset[str], bool, bool]] = facts.__dict__.setdefault(
        "_unread", {})
    if reg.mechanism not in cache:
        mech = facts.mechanisms[reg.mechanism][0]
        modules = {seen[1]: rel for rel, seen in facts.scanned.items() if seen[1]}
        name = (mech.dispatchers[0].rsplit(".", 1)[-1] if mech.dispatchers else reg.mechanism)
        read = [_reading(q, modules, facts) for q in mech.dispatchers]
        methods = frozenset(m for accepting, _ in read for m in accepting)
        pairs = not methods and any(gathers for _, gathers in read)
        # an owner no file of the project defines: a library's (lionagi's, for an app using it)
        elsewhere = bool(mech.dispatchers) and all(
            modules.get(q.rpartition(".")[0], CONTEXT).startswith(CONTEXT)
            for q in mech.dispatchers)
        cache[reg.mechanism] = (name, methods, pairs, elsewhere)
    name, methods, pairs, elsewhere = cache[reg.mechanism]
    if pairs:
        return (f"not rewritten: {name} runs on the kernels, but its fan-out takes each handler "
                "with a value its filter matched, computed as it runs, and reads no "
                "declaration (owner_declarations leaves such an owner as it is)")
    if not methods and elsewhere:
        mech, pack = facts.mechanisms[reg.mechanism]
        package = pack.package or mech.dispatchers[0].split(".", 1)[0]
        return (f"not rewritten: {name} is {package}'s, not this project's, and reads no "
                f"declarations: its call sites here can be rewritten once a {package} release "
                "whose owners run on the kernels is installed (`migrate --owners` on its source)")
    if not methods:
        return (f"not rewritten: {name} does not read declarations until its owner runs on the "
                "kernels (migrate --owners)")
    method = reg.api.rsplit(".", 1)[-1]
    if reg.via != "method" or method not in methods:
        return (f"not rewritten: `{reg.api}` does not hand the handler to a method of {name} "
                f"that reads its declaration ({', '.join(sorted(methods))} does), so a typed "
                "registration would reach code that calls it")
    return ""


# the handler kinds a declared name is true of: one callable the scan names (a lambda is named
# after where it is registered, which is true of every lambda that line makes)
NAMED_KINDS = frozenset({"function", "method", "class", "external", "partial", "lambda"})


def unnamed(reg: Registration, facts: MigrateFacts) -> str:
    """Why a declared ``name`` would not be true of what *reg* registers, or "": the scan knows
    no one callable behind the handler expression (a loop variable, a parameter, a value read
    from a table), so a name made from the expression would name every handler it ever holds."""
    known = facts.mechanisms.get(reg.mechanism)
    if known is None or known[1].migrate.declarations == "always":
        return ""
    if reg.handler.kind in NAMED_KINDS and (reg.handler.qualname or reg.handler.kind == "lambda"):
        return ""
    return (f"not rewritten: the handler `{reg.handler.expr}` is no one callable the scan can "
            "name (a variable, a parameter, a table's value): a declared name would name every "
            "handler it holds")


def _reading(dispatcher: str, modules: dict[str, str], facts: MigrateFacts
             ) -> tuple[set[str], bool]:
    """What *dispatcher*'s class reads, as the owner codemods wrote it: the methods that read a
    call site's declaration (``handler = _<CLS>_DECLARATIONS.accept(handler)``), and whether
    its fan-out gathers on the kernel (``fan_out(..., gather=...)``, SessionObserver.emit's
    rewrite, whose entries are no registrations)."""
    module, _, cls = dispatcher.rpartition(".")
    candidates = [modules.get(module), module.replace(".", "/") + ".py",
                  module.replace(".", "/") + "/__init__.py"]
    for rel in filter(None, candidates):
        text = "\n".join(facts.lines(rel))
        if not (text and (reads_declarations(text, cls) or "gather=" in text)):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        table = constant(cls)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls:
                accepting = {m.name for m in node.body
                             if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                             and any(_called(c, "accept", table) for c in ast.walk(m))}
                gathers = any(_called(c, "fan_out") and any(k.arg == "gather" for k in c.keywords)
                              for c in ast.walk(node))
                return accepting, gathers
    return set(), False


def _called(node: ast.AST, name: str, on: str | None = None) -> bool:
    """Is *node* a call of *name* (``name(...)``, ``x.name(...)``; with *on*, ``on.name(...)``
    only)?"""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr == name and (on is None or (
            isinstance(func.value, ast.Name) and func.value.id == on))
    return on is None and isinstance(func, ast.Name) and func.id == name
