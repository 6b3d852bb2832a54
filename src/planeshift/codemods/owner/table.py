"""Codemod ``owner_table``: an owner's handler list becomes the kernel's registration table.

It runs through the base steps: ``plan`` picks the owners from the scan's facts, ``prepare``
reads one owner's class in the tree ``owner_dispatch`` left and schedules the class's rewrite
(``storage.Uses``) or refuses with the reason; who else reaches the list is ``reach``."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import RemoveImportsVisitor

from ..base import Codemod, Example, Item, Plan, Source, register
from ..facts import MigrateFacts
from .examples import TABLE_EXAMPLES
from .names import Resolver
from .plan import Owner, owners
from .reach import broadcaster, named_outside
from .storage import Storage, Uses, copied_attr, local_copy


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
    after = ("owner_dispatch",)  # the table takes over the fan-out owner_dispatch wrote
    owner = True
    DESCRIPTION = "An owner's handler list becomes the kernel's registration table."
    EXAMPLES: ClassVar[list[Example]] = TABLE_EXAMPLES

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        found, _refused = owners(facts)  # owner_dispatch lists the refused ones
        for owner in found:
            plan.add(Item(owner.file, owner.line, data=owner))
        return plan

    def about(self, item: Item) -> dict[str, Any]:
        return {"mechanism": item.data.mechanism, "class": item.data.cls}

    def prepare(self, item: Item, source: Source) -> None:
        TableRewrite(self, item, source).run()


class TableRewrite:
    """One owner's class: its storage read, then the class rewritten whole, or refused."""

    def __init__(self, codemod: OwnerTable, item: Item, source: Source) -> None:
        self.codemod, self.item, self.source = codemod, item, source
        self.owner: Owner = item.data
        self.tree = source.tree
        # owner_dispatch ran first on this tree: its imports are asked for, not yet added
        self.resolver = Resolver(source.names_with(codemod.context))
        self.code = source.code

    def run(self) -> None:
        cls = next((s for s in self.tree.body
                    if isinstance(s, cst.ClassDef) and s.name.value == self.owner.cls), None)
        if cls is None:
            return
        if self._already(cls):
            self.codemod.already(self.item)
            return
        storage, reason = self._storage(cls)
        if storage is None:
            if reason is not None:
                self._refuse(reason)
            return
        if broadcaster(self.tree, storage.policy):
            self._refuse("storage kept: a table under the broadcaster profile validates the event "
                         "type in its own emit (signal_type); this façade's fan-out does not use it")
            return
        assert self.codemod.facts is not None  # file_items() gave the items and the facts
        outside = named_outside(self.codemod.facts, self.owner, self.tree, cls, storage.attr)
        if outside is not None:
            self._refuse(f"storage kept: `{storage.attr}` is named in {outside}, which may read or "
                         "mutate the list itself")
            return
        rewriter = Uses(storage, self.resolver, self.owner.kernel)
        new_cls = cast(cst.ClassDef, cls.visit(rewriter))
        left = rewriter.left(cls)
        if left is not None:
            self._refuse(f"storage kept: {self.owner.cls} uses self.{storage.attr} as "
                         f"`{self.code(left).strip()}`, which the registration table does not "
                         "stand for")
            return
        if rewriter.inits != 1:
            self._refuse(f"storage kept: self.{storage.attr} is not set once, to [], in __init__")
            return
        self.codemod.add_import(f"{self.owner.kernel}.FanoutDispatcher")
        # the fan-out is the table's now: the kernel's fan_out goes unless still used
        RemoveImportsVisitor.remove_unused_import(self.codemod.context, self.owner.kernel,
                                                  "fan_out")
        self.codemod.edit(cls, [self.tree], lambda _cls: new_cls)
        self.codemod.done(self.item, f"{self.owner.cls}.{storage.attr}: the kernel's registration "
                          "table", owner={**self.codemod.about(self.item), "storage": storage.attr,
                                          "table": "FanoutDispatcher"})

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
            attr = copied_attr(entries) or local_copy(method, entries)  # type: ignore[arg-type]
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

    def _refuse(self, reason: str) -> None:
        self.codemod.refuse(self.item, reason, owner=self.codemod.about(self.item))
