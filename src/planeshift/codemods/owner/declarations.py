"""Codemod ``owner_declarations``: an owner on the kernels reads what its call sites declare."""

from __future__ import annotations

import re
import textwrap
from typing import Any, ClassVar

import libcst as cst

from ...packs.model import RegistrationForm
from ..base import Codemod, Example, Item, Plan, register
from ..facts import MigrateFacts
from .plan import Owner, owners

PLANES = ("interceptor", "subscriber", "delivery_sink", "commit_participant")
DECLARATIONS = "Declarations"


@register
class OwnerDeclarations(Codemod):
    """Make an owner that runs on the kernels read its call sites' typed registrations.

    ## What it does
    Once `owner_dispatch` has put an owner's fan-out on the kernel, its façade is given a
    `Declarations` table (a module constant beside its policy): each registration method the
    pack names (`subscribe`, `observe`, `register`...) unwraps the handler argument with
    `accept`, which checks the declared plane, records the name and order and hands back
    the bare handler the owner stores as before; each `fan_out` call runs its entries in
    declared order (`ordered`) and names them by their declarations (`name=`).

    ## Why
    ADR-0120 D2: a registration declares its name, plane and order. A declaration no
    dispatcher reads is noise in a reviewer's diff: `migrate` rewrites a call site only
    when the owner it registers with reads declarations (this codemod's work).

    ## Example
    ```python
    def subscribe(self, callback):
        self._subscribers.append(callback)
    ...
    await fan_out(_POLICY, callbacks, lambda cb, call: call(cb, event))
    ```
    becomes
    ```python
    def subscribe(self, callback):
        callback = _BUS_DECLARATIONS.accept(callback)
        self._subscribers.append(callback)
    ...
    await fan_out(
        _POLICY,
        _BUS_DECLARATIONS.ordered(callbacks),
        lambda cb, call: call(cb, event),
        name=_BUS_DECLARATIONS.name,
    )
    ```

    ## What it leaves alone
    An owner whose fan-out is not on the kernel (`owner_dispatch` lists why), a
    registration method whose handler parameter cannot be found, and an owner whose
    module already binds the names it would add.

    ## Behaviour
    Unchanged for every caller that passes a bare handler (it is stored as before, and
    with no order declared anywhere the entries keep their registration order). A typed
    registration of another plane than the dispatcher serves raises `PolicyError`.

    ## References
    ADR-0120 D2 (InterceptorRegistration, order), D3, Phase 1; docs/kernels.md.
    """

    id = "owner_declarations"
    # it reads the fan-out owner_dispatch wrote and the table owner_table made of a list
    after = ("owner_dispatch", "owner_table")
    owner = True
    DESCRIPTION = "An owner on the kernels reads its call sites' typed registrations."
    EXAMPLES: ClassVar[list[Example]] = [Example(
        path="relay.py", pack="relay.yaml",  # with owner_dispatch first
        before='''
            import logging

            from lionagi.ln.concurrency import maybe_await

            logger = logging.getLogger(__name__)


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    \"\"\"Call *listener* with every event fired.\"\"\"
                    self._listeners.append(listener)

                async def fire(self, event):
                    for listener in list(self._listeners):
                        try:
                            await maybe_await(listener(event))
                        except Exception:
                            logger.exception("listener failed on %s", event)
            ''',
        after='''
            import logging

            from planeshift.kernels import Declarations, DispatchPolicy, fan_out

            logger = logging.getLogger(__name__)


            # planeshift: Relay.fire's dispatch policy, read from its loop (nearest ADR-0120 D2 profile:
            # broadcaster, differing in returned_value_classifier=inspect_awaitable)
            _RELAY_FIRE_POLICY = DispatchPolicy.from_axes(
                concurrency="sequential",
                failure="isolate",
                completion="await_all",
                error_surface="log_only",
                sync_handlers="inline",
                handler_classification="by_return_value",
                returned_value_classifier="inspect_awaitable",
                returned_awaitable="await_in_invocation",
                sync_entry="unavailable",
                handler_cancellation="propagate",
                predicate_failure="isolate",
            )


            # planeshift: what the call sites registering with Relay declare (name, order, plane),
            # read when it fans out
            _RELAY_DECLARATIONS = Declarations(planes=("subscriber",))


            class Relay:
                def __init__(self):
                    self._listeners = []

                def listen(self, listener):
                    \"\"\"Call *listener* with every event fired.\"\"\"
                    listener = _RELAY_DECLARATIONS.accept(listener)
                    self._listeners.append(listener)

                async def fire(self, event):
                    def _failed(listener, _error) -> None:
                        logger.exception("listener failed on %s", event)

                    await fan_out(
                        _RELAY_FIRE_POLICY,
                        _RELAY_DECLARATIONS.ordered(list(self._listeners)),
                        lambda listener, call: call(listener, event),
                        logger=logger,
                        failed=_failed,
                        name=_RELAY_DECLARATIONS.name,
                    )
            ''')]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        found, _refused = owners(facts)  # owner_dispatch lists the refused ones
        for owner in found:
            mech = facts.mechanisms.get(owner.mechanism)
            if mech is None or mech[1].migrate.declarations != "read":
                continue  # a pack whose call sites hand over the bare handler (adapters)
            forms = tuple(f for f in mech[0].registrations
                          if f.kind == "method" and f.handler is not None)
            planes = tuple(sorted({r.plane for r in facts.scan.registrations
                                   if r.mechanism == owner.mechanism and r.plane in PLANES}))
            plan.add(Item(owner.file, owner.line, data=(owner, forms, planes or ("subscriber",))))
        return plan

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        for item in self.file_items():
            owner, forms, planes = item.data
            try:
                tree = _Rewrite(self, tree, owner, forms, planes).run()
            except Exception as exc:  # noqa: BLE001 - a bug: an error entry, the others go on
                self.refuse(Item(owner.file, owner.line),
                            f"internal error: {type(exc).__name__}: {exc}", True,
                            owner=_info(owner))
        return tree


def _info(owner: Owner) -> dict[str, Any]:
    return {"mechanism": owner.mechanism, "class": owner.cls}


def constant(cls: str) -> str:
    """The module constant holding *cls*'s declarations: ``_SCHEDULER_SIGNAL_BUS_DECLARATIONS``."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", cls)
    return f"_{snake.upper()}_DECLARATIONS"


def reads_declarations(text: str, cls: str) -> bool:
    """Does a module's text show *cls*'s façade reading declarations (this codemod's work)?"""
    return f"{constant(cls)} = {DECLARATIONS}(" in text


class _Rewrite:
    def __init__(self, codemod: OwnerDeclarations, tree: cst.Module, owner: Owner,
                 forms: tuple[RegistrationForm, ...], planes: tuple[str, ...]) -> None:
        self.codemod, self.tree, self.owner = codemod, tree, owner
        self.forms, self.planes = forms, planes
        self.name = constant(owner.cls)

    def run(self) -> cst.Module:
        owner = self.owner
        index = next((i for i, s in enumerate(self.tree.body)
                      if isinstance(s, cst.ClassDef) and s.name.value == owner.cls), -1)
        if index < 0:
            return self.tree
        if reads_declarations(self.tree.code, owner.cls):
            self.codemod.already(Item(owner.file, owner.line))
            return self.tree
        cls = self.tree.body[index]
        assert isinstance(cls, cst.ClassDef)
        fan_outs = [n for n in _walk(cls) if isinstance(n, cst.Call) and _is_fan_out(n)]
        if not fan_outs:
            return self.tree  # not on the kernel: owner_dispatch says why
        if any(arg.keyword is not None and arg.keyword.value == "gather"
               for call in fan_outs for arg in call.args):
            self.codemod.refuse(
                Item(owner.file, owner.line),
                f"{owner.cls}'s fan-out gathers after invoking each handler once per value its "
                "filter matches, over entries computed as it runs: an entry is a (handler, "
                "value) pair, not a registration, and a declared order could only be kept by "
                "running every filter first; its call sites' declarations would reach nothing",
                owner=_info(owner))
            return self.tree
        taken = re.findall(r"\b(" + re.escape(self.name) + "|" + DECLARATIONS + r")\b",
                           self.tree.code)
        if taken:
            self.codemod.refuse(
                Item(owner.file, owner.line),
                f"the module already binds {min(taken)}: {owner.cls} cannot be given "
                "its declarations table beside it", owner=_info(owner))
            return self.tree
        accepted: list[str] = []
        body = []
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef):
                param = self._handler_param(stmt)
                if param is not None:
                    stmt = _prepend(stmt, cst.parse_statement(
                        f"{param} = {self.name}.accept({param})"))
                    accepted.append(f"{stmt.name.value}({param})")
            body.append(stmt)
        if not accepted:
            self.codemod.refuse(
                Item(owner.file, owner.line),
                f"no registration method of {owner.cls} takes a handler parameter the pack "
                "names: its call sites' declarations would not reach it", owner=_info(owner))
            return self.tree
        new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
        new_cls = new_cls.visit(_FanOuts(self.name))
        planes = ", ".join(f'"{p}"' for p in self.planes) + ("," if len(self.planes) == 1 else "")
        table = cst.parse_statement(f"{self.name} = {DECLARATIONS}(planes=({planes}))")
        width = self.codemod.facts.style.line_length if self.codemod.facts else 88
        comment = textwrap.wrap(
            f"planeshift: what the call sites registering with {owner.cls} declare (name, "
            "order, plane), read when it fans out", width=width - 2)
        blank = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
        table = table.with_changes(leading_lines=[
            *blank, *(cst.EmptyLine(indent=False, comment=cst.Comment(f"# {line}"))
                      for line in comment)])
        new_body = list(self.tree.body)
        new_body[index:index + 1] = [table, new_cls]
        self.codemod.add_import(f"{owner.kernel}.{DECLARATIONS}")
        self.codemod.done(
            Item(owner.file, owner.line),
            f"{owner.cls} reads its call sites' declarations: {', '.join(accepted)} accept a "
            f"typed registration ({', '.join(self.planes)}); its fan-out runs them in declared "
            "order under their declared names", owner=_info(owner))
        return self.tree.with_changes(body=new_body)

    def _handler_param(self, method: cst.FunctionDef) -> str | None:
        """The parameter of *method* that receives the handler, by the pack's registration
        form of that name; None when the method is no registration method."""
        form = next((f for f in self.forms if f.name.rsplit(".", 1)[-1] == method.name.value),
                    None)
        if form is None or form.handler is None:
            return None
        params = method.params
        named = [p.name.value for p in (*params.posonly_params, *params.params,
                                         *params.kwonly_params)]
        if form.handler.keyword and form.handler.keyword in named:
            return form.handler.keyword
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                     for d in method.decorators)
        positional = positional if static else positional[1:]
        index = form.handler.index
        if index is not None and 0 <= index < len(positional):
            return positional[index]
        return None


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            out.append(n)
            return True

    node.visit(_Collect())
    return out


def _is_fan_out(call: cst.Call) -> bool:
    func = call.func
    return (isinstance(func, cst.Name) and func.value == "fan_out") or (
        isinstance(func, cst.Attribute) and func.attr.value == "fan_out")


def _prepend(method: cst.FunctionDef, stmt: cst.BaseStatement) -> cst.FunctionDef:
    """*stmt* first in *method*'s body, after its docstring."""
    body = list(method.body.body)  # type: ignore[arg-type]
    at = 1 if body and _is_docstring(body[0]) else 0
    body.insert(at, stmt)
    return method.with_changes(body=method.body.with_changes(body=body))


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], cst.Expr) and isinstance(
            stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


class _FanOuts(cst.CSTTransformer):
    """Each kernel ``fan_out(POLICY, entries, step, ...)``: entries in declared order, named
    by their declarations; a table's ``x.fan_out(step, ...)``: named."""

    def __init__(self, table: str) -> None:
        super().__init__()
        self.table = table

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not _is_fan_out(updated) or any(
                a.keyword is not None and a.keyword.value == "name" for a in updated.args):
            return updated
        args = list(updated.args)
        added = ["name"]
        if isinstance(updated.func, cst.Name) and len(args) >= 2 and args[1].keyword is None:
            ordered = cst.parse_expression(f"{self.table}.ordered(x)")
            assert isinstance(ordered, cst.Call)
            args[1] = args[1].with_changes(value=ordered.with_changes(
                args=[cst.Arg(value=args[1].value)]))
        elif isinstance(updated.func, cst.Attribute):  # a table: FanoutDispatcher.fan_out
            added.insert(0, "ordered")
        for keyword in added:
            args = _append_keyword(args, keyword, f"{self.table}.{keyword}")
        return updated.with_changes(args=args)


def _append_keyword(args: list[cst.Arg], keyword: str, value: str) -> list[cst.Arg]:
    """*args* and ``keyword=value`` after them, laid out as the last argument was."""
    args = list(args)
    last = args[-1]
    named = last.with_changes(
        keyword=cst.Name(keyword), value=cst.parse_expression(value),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                              whitespace_after=cst.SimpleWhitespace("")),
        star="")
    if len(args) >= 2:
        args[-1] = last.with_changes(comma=args[-2].comma)
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return [*args, named]
