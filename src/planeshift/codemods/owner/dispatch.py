"""Codemod ``owner_dispatch``: a dispatcher's own fan-out loop becomes a call of the vendored
kernel under the policy the loop has (ADR-0120 Phase 1, "kernels behind existing façades")."""

from __future__ import annotations

import ast
import re
from typing import Any, ClassVar

import libcst as cst
from libcst.codemod.visitors import RemoveImportsVisitor

from ..base import Codemod, Example, Item, Plan, register
from ..facts import MigrateFacts
from ..model import Migrated, NotMigrated
from ..support.names import ModuleNames, module_names, package_of
from .examples import DISPATCH_EXAMPLES
from .examples_collect import COLLECT_EXAMPLES
from .examples_partition import PARTITION_EXAMPLES
from .idiom import Refused
from .local_imports import calls_in, imported
from .names import Resolver, fresh, reads_and_binds, statements
from .nested import block_method, check_outside, fan_out_block, rewritten
from .plan import Owner, owners, sync_kernel_missing
from .policy import OwnerPolicy, build, scan_reason
from .read import FanOut, MethodReader
from .stop_examples import STOP_EXAMPLES
from .sync_entry import SyncEntryReader, hands_to_migrated
from .write import MethodWriter, step_names

OWNER_INFO = "planeshift.owner"
_MODULE_NAME = re.compile(r"^(?:def )?([A-Za-z_]\w*)", re.MULTILINE)


@register
class OwnerDispatch(Codemod):
    """Replace a dispatcher's hand-written fan-out with the kernel's, under the policy it has.

    ## What it does
    For each dispatcher class (an *owner*: a mechanism's dispatcher whose source is in the
    project) whose dispatch policy the scan read completely from the code, each dispatch method's
    fan-out becomes a call of the vendored kernel's `fan_out(policy, entries, step, ...)`:

    - a sequential `for` loop (per-handler `try` / `except Exception: <log>`, `except Exception:
      <record>; raise`, or no `try`), an anyio / lionagi task group (`tg.start_soon(step, entry)`),
      or `gather(*(step(e) for e in entries), return_exceptions=True)`, optionally inside one
      shared deadline (`move_on_after`, `fail_after`, `asyncio.timeout`);
    - the handler call inside (`await maybe_await(h(x))`, `if asyncio.iscoroutine(r): await r`,
      `if is_coro_func(h): ... else: <inline or offloaded>`) becomes `await call(h, x)`, which the
      kernel runs as the policy says;
    - the except clause's record (the log line, the signal recorded before a re-raise) is kept as
      the owner's `failed` hook, run inside the kernel's except clause; a gather's group and
      translated cancellation are kept as the owner's `group` and `translated` factories;
    - a first clause `except <Type>: break` (lionagi's `except StopHook: break`) is the kernel's
      stop signal, `fan_out(..., stop=<Type>)`: the handlers after it are skipped, nothing is
      logged or raised; a clause `except Exception: if <test>: raise` then `<record>` keeps the
      `if` in the `failed` hook, whose bare `raise` re-raises the failures it picks;
    - a loop that is a statement of the method's one `try` (the try's clauses and `finally`
      are the façade's and stay around the kernel call) is read as one of the method itself;
    - a loop whose `except BaseException as exc: errors.append(exc)` collects every failure,
      followed by `if errors:` raising one as itself and several as a group (inline, or through
      a module function that starts `if len(errors) == 1: raise errors[0]` and always raises),
      runs every handler under COLLECT / UNWRAP_SINGLE_ELSE_GROUP (the message-manager profiles),
      the group (or the function) kept as the owner's `group` hook;
    - a sync entry whose first statement takes its snapshot through a method of the class that
      raises for a declared-async handler (before the owner's mutation, as ADR-0120 D2 has it)
      keeps that preflight, and its loop over the snapshot (in the entry or in the one method it
      hands the snapshot to) becomes `fan_out_sync(policy, snapshot, step, ...)`;
    - a loop (loops nested, filters `if` between them) that invokes each handler inline and keeps
      what it returns in two lists, the awaitables (`inspect.isawaitable`) and the rest, then
      gathers the awaitables after the last invocation (SessionObserver.emit, ADR-0120 D2's
      GATHER_AFTER_INVOCATIONS) keeps its loops as a generator of the kernel's entries (each
      filter computed when the loop reaches it, as before), its gather as the kernel's `gather=`,
      and reads its two lists back from the report (`invocation_values`, `gathered_values`).

    The policy is the scan's, checked against the loop (a disagreement refuses the owner), and is
    written as a module-level constant: `DispatchPolicy.<profile>()` when it is one of ADR-0120
    D2's named profiles, else field by field under a comment naming the nearest profile and
    where the code differs from it (no other bus's defaults are ever taken). Everything around the
    fan-out stays the façade's: public methods, signatures, the entries it selects, counters,
    gates, records, return values and exceptions.

    ## Why
    ADR-0120 Phase 1: "Adapt HookBus, Broadcaster, SessionObserver, ... while selecting policies
    that preserve each current behavior." One kernel owns the concurrency, ordering, failure,
    deadline and cancellation mechanics that each bus re-implements today.

    ## Example
    ```python
    for callback in callbacks:
        try:
            await maybe_await(callback(event))
        except Exception:
            logger.exception("subscriber failed")
    ```
    becomes
    ```python
    def _failed(callback, _error) -> None:
        logger.exception("subscriber failed")

    await fan_out(_BUS_EMIT_POLICY, callbacks, lambda callback, call: call(callback, event),
                  logger=logger, failed=_failed)
    ```

    ## What it leaves alone
    Each refused owner is listed with the axis or behaviour the kernels cannot reproduce: an
    axis the scan could not read from the code, a sync dispatch method without that preflight, a
    loop that is not a statement of the method itself (or of its one `try`), a loop over the
    storage itself rather than a snapshot, an except clause that leaves the loop otherwise than a
    first `except <Type>: break` (`continue`, `return`, `break` with more statements, a stop
    clause after another clause, `break` on every failure or on a cancellation), re-raises some
    exceptions otherwise than `if <test>: raise`, catches one class, or collects failures that
    other code reads or raises in another form; awaitables gathered after every handler was
    invoked other than from the two lists of the shape above; `await h(x)` (which fails on a
    sync handler's result); an
    offload that waits for its thread on cancellation; an asyncio.TaskGroup; a gather without
    `return_exceptions=True`. An owner is rewritten whole or not at all.

    ## Behaviour
    Unchanged, by construction and by test: the characterization suite of lionagi's dispatchers
    passes on the migrated copy. The kernel's `fan_out` runs over the snapshot the method took,
    in its order, and reports in that order.

    ## References
    ADR-0120 D2 (DispatchPolicy, the named profiles, the sync entry), Phase 1; docs/kernels.md
    (`fan_out`, `fan_out_sync`, `isolate_base_exceptions`, `cancel_siblings_and_return`);
    `owner_table`.
    """

    id = "owner_dispatch"
    owner = True
    DESCRIPTION = "Dispatcher fan-out loops become a call of the kernel under the loop's policy."
    EXAMPLES: ClassVar[list[Example]] = [*DISPATCH_EXAMPLES, *STOP_EXAMPLES, *COLLECT_EXAMPLES,
                                         *PARTITION_EXAMPLES]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        found, refused = owners(facts)
        for r in refused:
            plan.refused.append(NotMigrated(r.file, r.line, cls.id, r.reason, owner={
                "mechanism": r.mechanism, "entry": r.entry}))
        for owner in found:
            plan.add(Item(owner.file, owner.line, data=owner))
        return plan

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        for item in self.file_items():
            try:
                tree = OwnerRewrite(self, tree, item.data).run()
            except Exception as exc:  # noqa: BLE001 - a bug: an error entry, the others go on
                for path in item.data.paths:
                    self.refuse(Item(item.file, path.line),
                                f"internal error: {type(exc).__name__}: {exc}", True,
                                owner=_info(item.data, path))
        return tree


def _info(owner: Owner, path: Any, **more: Any) -> dict[str, Any]:
    return {"mechanism": owner.mechanism, "entry": path.entry, **more}


class OwnerRewrite:
    """One owner of one file: read every dispatch method, then rewrite them all or none."""

    def __init__(self, codemod: OwnerDispatch, tree: cst.Module, owner: Owner) -> None:
        self.codemod, self.tree, self.owner = codemod, tree, owner
        text = tree.code
        rel = owner.file
        self.package = codemod.facts.package(rel) if codemod.facts else package_of(rel)
        self.names = module_names(ast.parse(text), self.package, text)
        self.resolver = Resolver(self.names)
        self.code = tree.code_for_node
        self.blocks: dict[str, int | None] = {}  # entry -> the try holding its fan-out (nested.py)

    def run(self) -> cst.Module:
        owner = self.owner
        cls_index, cls = self._class()
        if cls is None:
            return self._refuse_all(f"{owner.cls} is not a class at the top of {owner.file}")
        read: list[tuple[Any, cst.FunctionDef, FanOut, OwnerPolicy]] = []
        reads, binds = reads_and_binds([self.tree])
        self.taken = reads | binds
        self.call = fresh("call", self.taken)
        already = []
        refusals: dict[str, str] = {}
        gates = dict(owner.gates)
        for path in owner.paths:
            method = self._method(cls, owner.entry(path))
            gate = gates.get(path.entry)
            if method is None:
                refusals[path.entry] = gate or f"{path.entry} is not a method defined in {owner.cls}"
                continue
            if self._migrated(method) or hands_to_migrated(cls, method, self._migrated):
                already.append(path)
                continue
            if gate is not None and gate.startswith("concurrency:"):
                refusals[path.entry] = gate  # one handler per call: nothing to read
                continue
            try:
                resolver = self._resolver_in(method)
                if method.asynchronous is None:
                    self.blocks[path.entry] = None
                    fan = SyncEntryReader(method, cls, self._resolver_in, self.code, self.call,
                                          self.tree.body).read()
                else:
                    at = self.blocks[path.entry] = fan_out_block(method)
                    fan = MethodReader(method if at is None else block_method(method, at), cls,
                                       resolver, self.code, self.call,
                                       module=self.tree.body).read()
                    if at is not None:
                        check_outside(method, at, fan, f"{owner.cls}.{method.name.value}")
                if gate is not None:
                    raise Refused(gate)
                read.append((path, fan.host or method, fan, build(path, fan)))
            except Refused as exc:
                refusals[path.entry] = self._reason(path, str(exc))
        if refusals:
            first = next(iter(refusals.items()))
            for path in owner.paths:
                reason = refusals.get(path.entry) or \
                    f"left with its owner: {first[0]} is refused ({first[1]})"
                self._record(NotMigrated(owner.file, path.line, self.codemod.id, reason,
                                         owner=_info(owner, path)))
            return self.tree
        for _path in already:
            self.codemod.already(Item(owner.file, _path.line))
        if not read:
            return self.tree
        return self._write(cls_index, cls, read)

    # -- writing ------------------------------------------------------------------------------

    def _write(self, cls_index: int, cls: cst.ClassDef,
               read: list[tuple[Any, cst.FunctionDef, FanOut, OwnerPolicy]]) -> cst.Module:
        owner, kernel = self.owner, self.owner.kernel
        taken = self.taken
        logger = self._logger()
        module_src: list[str] = []
        imports: set[str] = set()
        methods: dict[str, cst.FunctionDef] = {}
        for path, method, fan, policy in read:
            taken |= step_names(fan)
            # the names a method's hooks and steps take are its own locals (a second method's
            # hook is `_failed` again); the module-level ones stay taken for the next method
            at = self.blocks.get(path.entry)
            writer = MethodWriter(fan, policy, owner.cls, method, self.code, set(taken), logger,
                                  self.call, self.tree.config_for_parsing,
                                  entry=owner.entry(path), indent=8 if at is None else 12,
                                  line_length=self.codemod.facts.style.line_length)
            body = statements(method.body if at is None else block_method(method, at).body)
            written = writer.write(body)
            methods[method.name.value] = rewritten(method, at, written.body) if at is not None \
                else method.with_changes(body=method.body.with_changes(body=written.body))
            module_src += written.module
            taken |= {n for src in written.module for n in _MODULE_NAME.findall(src)}
            imports |= set(written.imports)
        stale = sync_kernel_missing(self.codemod.facts.root, kernel) \
            if "fan_out_sync" in imports and self.codemod.facts else None
        if stale:
            return self._refuse_all(stale)
        for name in sorted(imports):
            if not self.names.free(name, f"{kernel}.{name}"):
                return self._refuse_all(f"the module binds `{name}` already; the kernel's "
                                        f"{name} cannot be imported beside it")
        new_cls = cls.with_changes(body=cls.body.with_changes(body=[
            methods.get(s.name.value, s) if isinstance(s, cst.FunctionDef) else s
            for s in cls.body.body]))
        added = [cst.parse_statement(src, config=self.tree.config_for_parsing)
                 for src in module_src]
        body = list(self.tree.body)
        body[cls_index] = new_cls
        # before the class (defined before anything can use it; the class keeps its own leading
        # comments and blank lines)
        blank = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
        body[cls_index:cls_index] = [
            s.with_changes(leading_lines=[*blank, *s.leading_lines]) for s in added]
        new_tree = self.tree.with_changes(body=body)
        for name in sorted(imports):
            self.codemod.add_import(f"{kernel}.{name}")
        self._drop_unused_imports(new_tree)
        for path, _method, fan, policy in read:
            info = _info(owner, path, **{"class": owner.cls, "shape": fan.kind,
                                         "policy": policy.to_json(),
                                         "notes": [*policy.notes, *fan.notes]})
            stop = f" (stop signal {fan.stop.source})" if fan.stop is not None else ""
            action = (f"{path.entry}: {fan.kind} fan-out on the kernel{stop}, "
                      f"{'profile ' + policy.profile if policy.exact else 'nearest ' + policy.profile}")
            self._record(Migrated(owner.file, path.line, self.codemod.id, action, owner=info))
        return new_tree

    def _drop_unused_imports(self, new_tree: cst.Module) -> None:
        """Imports only the rewritten loops read (maybe_await, gather, anyio, ...) go, through
        RemoveImportsVisitor (which keeps any still used); a name in the module's text as a
        string (``__all__``) stays."""
        gone = reads_and_binds([self.tree], imports=False)[0] - \
            reads_and_binds([new_tree], imports=False)[0]
        text = self.tree.code
        for stmt in new_tree.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                for module, obj, local in imported(small):
                    if local in gone and f'"{local}"' not in text and f"'{local}'" not in text:
                        RemoveImportsVisitor.remove_unused_import(self.codemod.context, module, obj)

    # -- reading ------------------------------------------------------------------------------

    def _class(self) -> tuple[int, cst.ClassDef | None]:
        for index, stmt in enumerate(self.tree.body):
            if isinstance(stmt, cst.ClassDef) and stmt.name.value == self.owner.cls:
                return index, stmt
        return -1, None

    @staticmethod
    def _method(owner: cst.ClassDef, name: str) -> cst.FunctionDef | None:
        found = [s for s in owner.body.body if isinstance(s, cst.FunctionDef)
                 and s.name.value == name]
        return found[-1] if found else None

    @staticmethod
    def _reason(path: Any, reason: str) -> str:
        """The reader's reason, headed by the axis the scan read that only one loop shape
        reproduces, if that is the path's."""
        better = scan_reason(path)
        if better is None:
            return reason
        return f"{better}: {reason}"

    def _resolver_in(self, method: cst.FunctionDef) -> Resolver:
        """The module's names with the imports the method makes itself (lionagi imports
        ``is_coro_func`` inside ``a_add_message``)."""
        local = [s for s in statements(method.body) if isinstance(s, cst.SimpleStatementLine)
                 and any(isinstance(b, (cst.Import, cst.ImportFrom)) for b in s.body)]
        if not local:
            return self.resolver
        text = "".join(self.code(s).lstrip() for s in local)
        own = module_names(ast.parse(text), self.package, text)
        return Resolver(ModuleNames({**self.names.imports, **own.imports}, self.names.tree,
                                    self.names.text))

    def _migrated(self, method: cst.FunctionDef) -> bool:
        kernel = self.owner.kernel
        for node in calls_in(method):
            if self.resolver.qualified(node.func) in (
                    f"{kernel}.fan_out", f"{kernel}.entries.fan_out", f"{kernel}.fan_out_sync",
                    f"{kernel}.entries_sync.fan_out_sync"):
                return True
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "fan_out" and \
                    isinstance(func.value, cst.Attribute):
                return True  # self._handlers.fan_out(...): the owner_table form
        return False

    def _logger(self) -> str | None:
        loggers = []
        for stmt in self.tree.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
                    isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1:
                value = stmt.body[0].value
                target = stmt.body[0].targets[0].target
                if isinstance(value, cst.Call) and isinstance(target, cst.Name) and \
                        self.resolver.qualified(value.func) == "logging.getLogger":
                    loggers.append(target.value)
        return loggers[0] if len(loggers) == 1 else None

    def _refuse_all(self, reason: str) -> cst.Module:
        for path in self.owner.paths:
            self._record(NotMigrated(self.owner.file, path.line, self.codemod.id, reason,
                                     owner=_info(self.owner, path)))
        return self.tree

    def _record(self, outcome: Migrated | NotMigrated) -> None:
        item = Item(outcome.file, outcome.line)
        if isinstance(outcome, Migrated):
            self.codemod.done(item, outcome.action, owner=outcome.owner)
        else:
            self.codemod.refuse(item, outcome.reason, outcome.error, owner=outcome.owner)

