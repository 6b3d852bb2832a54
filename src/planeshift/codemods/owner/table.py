"""Codemod ``owner_table``: an owner's handler list becomes the kernel's registration table."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import ClassVar, cast

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

from ... import fsio
from ...types import Registration
from ..base import Codemod, Example, Item, Plan, register
from ..facts import MigrateFacts
from ..model import Migrated, NotMigrated
from ..support.names import module_names, package_of
from .examples import TABLE_EXAMPLES
from .names import Resolver, statements
from .plan import Owner, owners

_COPY = frozenset({"list", "tuple"})


@register
class OwnerTable(Codemod):
    """Replace an owner's handler list with the kernel's registration table.

    ## What it does
    Once `owner_dispatch` has put an owner's fan-out on the kernel, an owner whose every
    dispatch method fans out over a copy of one handler list it keeps (`self._handlers = []` in
    `__init__`) gets that list replaced by a `FanoutDispatcher` under the same policy, and each
    use of the list by its counterpart on the table: `append` -> `append` (no callable check,
    as the list had none), `remove` -> `remove_handler` (`==`, `ValueError` when absent, as
    `list.remove`), `h in` / `len` / `list(...)` / `tuple(...)` / `[:]` / `.copy()` -> the same on
    `.handlers`, `clear` -> `clear`, and `await fan_out(POLICY, list(self._handlers), step, ...)`
    -> `await self._handlers.fan_out(step, ...)`.

    ## Why
    ADR-0120 Phase 1: the dispatch loop *and* its handler storage move behind the façade onto the
    kernel, so the registration table, its snapshot per emission and its report are the kernel's.

    ## Example
    ```python
    self._handlers = []
    ...
    self._handlers.append(handler)
    ...
    await fan_out(_BUS_EMIT_POLICY, list(self._handlers), lambda h, call: call(h, event))
    ```
    becomes
    ```python
    self._handlers = FanoutDispatcher(_BUS_EMIT_POLICY)
    ...
    self._handlers.append(handler)
    ...
    await self._handlers.fan_out(lambda h, call: call(h, event))
    ```

    ## What it leaves alone
    The storage stays the owner's, with the reason listed, when the fan-out runs over the owner's
    own selection rather than a copy of one list (records with names, filters, overrides or weak
    references: ADR-0120 D5 keeps those domain-owned), when two dispatch methods run it under
    different policies, when the policy depends on the instance, when the list is class-level or
    assigned anywhere but `__init__`, when the class uses it in any other way (a property that
    returns it, iteration, indexing), or when its name appears in another module or outside the
    class (something else reads or mutates it).

    ## Behaviour
    Unchanged: every public method keeps its signature, return value and exceptions (`remove`
    raises the same `ValueError`; a non-callable registers and fails when called, as before).

    ## References
    ADR-0120 Phase 1; docs/kernels.md (the registration table as a handler list);
    `owner_dispatch`.
    """

    id = "owner_table"
    order = 120
    owner = True
    DESCRIPTION = "An owner's handler list becomes the kernel's registration table."
    EXAMPLES: ClassVar[list[Example]] = TABLE_EXAMPLES

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        found, _refused = owners(facts)  # owner_dispatch lists the refused ones
        texts = _project_texts(facts)
        for owner in found:
            regs = tuple(r for r in facts.scan.registrations if r.mechanism == owner.mechanism)
            plan.add(Item(owner.file, owner.line, data=(owner, texts, regs)))
        return plan

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        for item in self.file_items():
            owner, texts, regs = item.data
            try:
                tree = TableRewrite(self, tree, owner, texts, regs).run()
            except Exception as exc:  # noqa: BLE001 - a bug: an error entry, the others go on
                self._record(NotMigrated(owner.file, owner.line, self.id,
                                         f"internal error: {type(exc).__name__}: {exc}", True,
                                         owner={"mechanism": owner.mechanism, "class": owner.cls}))
        return tree


def _project_texts(facts: MigrateFacts) -> dict[str, str | None]:
    """Every Python file of the project (to find who else names a storage attribute); None for
    one that cannot be read (a FIFO, a dangling link), which might name it."""
    out: dict[str, str | None] = {}
    for path in facts.root.rglob("*.py"):
        rel = path.relative_to(facts.root).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        try:
            out[rel] = fsio.read_text(path, errors="replace")
        except OSError:
            out[rel] = None
    return out


@dataclass
class Storage:
    attr: str
    policy: str  # the policy constant's name
    logger: str | None


class TableRewrite:
    def __init__(self, codemod: OwnerTable, tree: cst.Module, owner: Owner,
                 texts: dict[str, str | None], regs: tuple[Registration, ...]) -> None:
        self.codemod, self.tree, self.owner, self.texts = codemod, tree, owner, texts
        self.regs = regs
        text = tree.code
        package = codemod.facts.package(owner.file) if codemod.facts else package_of(owner.file)
        names = module_names(ast.parse(text), package, text)
        # owner_dispatch ran first on this tree: its imports are asked for, not yet added
        pending = codemod.context.scratch.get(AddImportsVisitor.CONTEXT_KEY, [])
        names.imports.update({i.alias or i.obj_name: f"{i.module}.{i.obj_name}"
                              for i in pending if i.obj_name})
        self.resolver = Resolver(names)
        self.code = tree.code_for_node

    def run(self) -> cst.Module:
        index, cls = next(((i, s) for i, s in enumerate(self.tree.body)
                           if isinstance(s, cst.ClassDef) and s.name.value == self.owner.cls),
                          (-1, None))
        if cls is None:
            return self.tree
        if self._already(cls):
            self.codemod.already(Item(self.owner.file, self.owner.line))
            return self.tree
        storage, reason = self._storage(cls)
        if storage is None:
            if reason is not None:
                self._refuse(reason)
            return self.tree
        if re.search(rf"^{re.escape(storage.policy)} = DispatchPolicy\.broadcaster\(\)",
                     self.tree.code, re.MULTILINE):
            self._refuse("storage kept: a table under the broadcaster profile validates the event "
                         "type in its own emit (signal_type); this façade's fan-out does not use it")
            return self.tree
        outside = self._named_outside(cls, storage.attr)
        if outside is not None:
            self._refuse(f"storage kept: `{storage.attr}` is named in {outside}, which may read or "
                         "mutate the list itself")
            return self.tree
        rewriter = _Uses(storage, self.resolver, self.owner.kernel)
        new_cls = cast(cst.ClassDef, cls.visit(rewriter))
        left = rewriter.left(cls)
        if left is not None:
            self._refuse(f"storage kept: {self.owner.cls} uses self.{storage.attr} as "
                         f"`{self.code(left).strip()}`, which the registration table does not "
                         "stand for")
            return self.tree
        if rewriter.inits != 1:
            self._refuse(f"storage kept: self.{storage.attr} is not set once, to [], in __init__")
            return self.tree
        self.codemod.add_import(f"{self.owner.kernel}.FanoutDispatcher")
        # the fan-out is the table's now: the kernel's fan_out goes unless still used
        RemoveImportsVisitor.remove_unused_import(self.codemod.context, self.owner.kernel,
                                                  "fan_out")
        body = list(self.tree.body)
        body[index] = new_cls
        self.codemod._record(Migrated(
            self.owner.file, self.owner.line, self.codemod.id,
            f"{self.owner.cls}.{storage.attr}: the kernel's registration table",
            owner={"mechanism": self.owner.mechanism, "class": self.owner.cls,
                   "storage": storage.attr, "table": "FanoutDispatcher"}))
        return self.tree.with_changes(body=body)

    def _already(self, cls: cst.ClassDef) -> bool:
        for call in m.findall(cls, m.Call(func=m.Attribute(attr=m.Name("fan_out")))):
            assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            if m.matches(call.func.value, m.Attribute(value=m.Name("self"))):
                return True
        return False

    def _storage(self, cls: cst.ClassDef) -> tuple[Storage | None, str | None]:
        """The one list every dispatch method's fan_out runs over, or why there is none."""
        found: set[tuple[str, str, str | None]] = set()
        for path in self.owner.paths:
            method = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef)
                           and s.name.value == self.owner.entry(path)), None)
            calls = [c for c in m.findall(method, m.Call()) if isinstance(c, cst.Call) and
                     self.resolver.qualified(c.func) in (f"{self.owner.kernel}.fan_out",)] \
                if method is not None else []
            if len(calls) != 1:
                return None, None  # not on the kernel (owner_dispatch says why)
            call = calls[0]
            entries = call.args[1].value
            attr = _copied_attr(entries) or _local_copy(method, entries)  # type: ignore[arg-type]
            policy = call.args[0].value
            if attr is None:
                return None, (f"storage kept: {path.entry} fans out over "
                              f"`{self.code(entries).strip()}`, the owner's own selection, not a "
                              "copy of one handler list; its records stay the owner's (ADR-0120 "
                              "D5: names, filters, overrides, weak references are domain-owned)")
            if not isinstance(policy, cst.Name):
                return None, (f"storage kept: {path.entry}'s policy "
                              f"`{self.code(policy).strip()}` depends on the call; a table has one")
            logger = next((self.code(a.value).strip() for a in call.args
                           if a.keyword and a.keyword.value == "logger"), None)
            found.add((attr, policy.value, logger))
        if len(found) != 1:
            return None, ("storage kept: the dispatch methods fan out over different lists or "
                          "under different policies; one registration table has one policy")
        attr, policy_name, logger = found.pop()
        return Storage(attr, policy_name, logger), None

    def _named_outside(self, cls: cst.ClassDef, attr: str) -> str | None:
        """Where something outside the class reaches the list: a registration the scan found
        appending to it from elsewhere, a module that names both the class and ``.attr``, or
        the owner's own module outside the class."""
        for reg in self.regs:
            if reg.api.startswith(f"{attr}.") and (
                    reg.file != self.owner.file or not reg.scope.startswith(f"{self.owner.cls}.")):
                return f"{reg.file}:{reg.line} ({reg.scope or 'module'}: {reg.api})"
        word = re.compile(rf"\b{re.escape(attr)}\b")
        dotted = re.compile(rf"\.{re.escape(attr)}\b")
        named = re.compile(rf"\b{re.escape(self.owner.cls)}\b")
        for rel, text in sorted(self.texts.items()):
            if rel == self.owner.file:
                continue
            if text is None:
                return f"{rel} (it cannot be read, so it might be)"
            if dotted.search(text) and named.search(text):
                return rel
        outside = [s for s in self.tree.body if s is not cls]
        if any(word.search(self.code(s)) for s in outside):
            return f"{self.owner.file} outside {self.owner.cls}"
        return None

    def _refuse(self, reason: str) -> None:
        self.codemod._record(NotMigrated(self.owner.file, self.owner.line, self.codemod.id, reason,
                                         owner={"mechanism": self.owner.mechanism,
                                                "class": self.owner.cls}))


def _self_attr(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Attribute) and m.matches(node.value, m.Name("self")):
        return node.attr.value
    return None


def _copied_attr(node: cst.BaseExpression) -> str | None:
    """X for ``list(self.X)``, ``tuple(self.X)``, ``self.X[:]``, ``self.X.copy()``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            node.func.value in _COPY and len(node.args) == 1:
        return _self_attr(node.args[0].value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "copy" and not node.args:
        return _self_attr(node.func.value)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and \
            m.matches(node.slice[0].slice, m.Slice(lower=None, upper=None, step=None)):
        return _self_attr(node.value)
    return None


def _local_copy(method: cst.FunctionDef, entries: cst.BaseExpression) -> str | None:
    if not isinstance(entries, cst.Name):
        return None
    values = [a.value for a in m.findall(method, m.Assign(targets=[m.AssignTarget(
        m.Name(entries.value))])) if isinstance(a, cst.Assign)]
    return _copied_attr(values[0]) if len(values) == 1 else None


class _Uses(cst.CSTTransformer):
    """Rewrites each use of ``self.<attr>`` the table stands for; remembers the ones it took."""

    def __init__(self, storage: Storage, resolver: Resolver, kernel: str) -> None:
        self.s, self.resolver, self.kernel = storage, resolver, kernel
        self.taken: set[int] = set()
        self.inits = 0
        self.methods: list[str] = []
        self.copies: set[str] = set()  # locals the fan-outs ran over (copies of the list)

    def _mine(self, node: cst.CSTNode) -> bool:
        return _self_attr(node) == self.s.attr

    def _take(self, node: cst.CSTNode) -> None:
        self.taken.add(id(node))

    def left(self, cls: cst.ClassDef) -> cst.CSTNode | None:
        """A use of the storage no rule took."""
        for node in m.findall(cls, m.Attribute(value=m.Name("self"))):
            if self._mine(node) and id(node) not in self.taken:
                return node
        return None

    @property
    def method(self) -> str | None:
        return self.methods[0] if self.methods else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.methods.append(node.name.value)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef
                          ) -> cst.FunctionDef:
        self.methods.pop()
        if self.methods or not self.copies:
            return updated
        body: list[cst.BaseStatement] = []
        carry = None
        for stmt in statements(updated.body):  # a copy the fan-out no longer reads goes
            names = [t.target.value for t in getattr(stmt.body[0], "targets", ())
                     if isinstance(t.target, cst.Name)] \
                if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else []
            if isinstance(stmt, cst.SimpleStatementLine) and len(names) == 1 and \
                    names[0] in self.copies and \
                    sum(1 for n in m.findall(updated, m.Name(names[0]))) == 1:
                carry = stmt.leading_lines
                continue
            if carry is not None and hasattr(stmt, "leading_lines"):
                stmt = stmt.with_changes(leading_lines=carry)
                carry = None
            body.append(stmt)
        return updated.with_changes(body=updated.body.with_changes(body=body))

    def _handlers(self, node: cst.BaseExpression) -> cst.BaseExpression:
        self._take(node)
        return cst.Attribute(value=node, attr=cst.Name("handlers"))

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and self._mine(node.targets[0].target) and \
                m.matches(node.value, m.List(elements=[])) and self.method == "__init__":
            self.inits += 1
            self._take(node.targets[0].target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self._mine(node.target) and node.value is not None and \
                m.matches(node.value, m.List(elements=[])) and self.method == "__init__":
            self.inits += 1
            self._take(node.target)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        if id(original.targets[0].target) in self.taken and self._mine(original.targets[0].target):
            return updated.with_changes(value=self._table())
        return updated

    def leave_AnnAssign(self, original: cst.AnnAssign, updated: cst.AnnAssign) -> cst.AnnAssign:
        if id(original.target) in self.taken and self._mine(original.target):
            annotation = cst.Annotation(cst.Name("FanoutDispatcher"))
            return updated.with_changes(value=self._table(), annotation=annotation)
        return updated

    def _table(self) -> cst.Call:
        args = [cst.Arg(cst.Name(self.s.policy))]
        if self.s.logger:
            args.append(cst.Arg(cst.parse_expression(self.s.logger), keyword=cst.Name("logger"),
                                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                      whitespace_after=cst.SimpleWhitespace(""))))
        return cst.Call(func=cst.Name("FanoutDispatcher"), args=args)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if isinstance(func, cst.Attribute) and self._mine(func.value):
            method = func.attr.value
            renamed = {"append": "append", "remove": "remove_handler", "clear": "clear"}
            if method in renamed:
                self._take(func.value)
                return updated.with_changes(func=updated.func.with_changes(  # type: ignore[attr-defined]
                    attr=cst.Name(renamed[method])))
            if method == "copy" and not original.args:
                return cst.Call(func=cst.Name("list"), args=[cst.Arg(self._handlers(func.value))])
        if isinstance(func, cst.Name) and func.value in {"list", "tuple", "len"} and \
                len(original.args) == 1 and self._mine(original.args[0].value):
            arg = updated.args[0].with_changes(value=self._handlers(original.args[0].value))
            return updated.with_changes(args=[arg])
        if self.resolver.qualified(func) == f"{self.kernel}.fan_out" and len(original.args) >= 3:
            return self._fan_out(original, updated)
        return updated

    def _fan_out(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        entries = original.args[1].value
        if isinstance(entries, cst.Name):
            self.copies.add(entries.value)
        if _copied_attr(entries) == self.s.attr:
            for node in m.findall(entries, m.Attribute(value=m.Name("self"))):
                self._take(node)
        keep = [a for a in updated.args[2:] if not (a.keyword and a.keyword.value == "logger")]
        keep[-1] = keep[-1].with_changes(comma=updated.args[-1].comma)
        target = cst.Attribute(value=cst.Attribute(value=cst.Name("self"),
                                                   attr=cst.Name(self.s.attr)),
                               attr=cst.Name("fan_out"))
        return updated.with_changes(func=target, args=keep)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript
                        ) -> cst.BaseExpression:
        if self._mine(original.value) and _copied_attr(original) == self.s.attr:
            return cst.Call(func=cst.Name("list"), args=[cst.Arg(self._handlers(original.value))])
        return updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison
                         ) -> cst.Comparison:
        targets = []
        for old, new in zip(original.comparisons, updated.comparisons, strict=True):
            if isinstance(old.operator, (cst.In, cst.NotIn)) and self._mine(old.comparator):
                targets.append(new.with_changes(comparator=self._handlers(old.comparator)))
            else:
                targets.append(new)
        return updated.with_changes(comparisons=targets)

