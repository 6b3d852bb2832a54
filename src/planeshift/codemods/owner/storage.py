"""An owner's handler list and each of its uses, rewritten onto the kernel's registration table
(``owner_table``): which list the fan-outs copy (``copied_attr``), and the transformer that turns
``self._handlers = []`` into a ``FanoutDispatcher`` and every use the table stands for into its
counterpart, remembering the uses it took so that one it did not take keeps the list."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from .names import Resolver, statements

_COPY = frozenset({"list", "tuple"})


@dataclass
class Storage:
    attr: str
    policy: str  # the policy constant's name
    logger: str | None


def self_attr(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Attribute) and m.matches(node.value, m.Name("self")):
        return node.attr.value
    return None


def copied_attr(node: cst.BaseExpression) -> str | None:
    """X for ``list(self.X)``, ``tuple(self.X)``, ``self.X[:]``, ``self.X.copy()``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            node.func.value in _COPY and len(node.args) == 1:
        return self_attr(node.args[0].value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "copy" and not node.args:
        return self_attr(node.func.value)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and \
            m.matches(node.slice[0].slice, m.Slice(lower=None, upper=None, step=None)):
        return self_attr(node.value)
    return None


def local_copy(method: cst.FunctionDef, entries: cst.BaseExpression) -> str | None:
    if not isinstance(entries, cst.Name):
        return None
    values = [a.value for a in m.findall(method, m.Assign(targets=[m.AssignTarget(
        m.Name(entries.value))])) if isinstance(a, cst.Assign)]
    return copied_attr(values[0]) if len(values) == 1 else None


class Uses(cst.CSTTransformer):
    """Rewrites each use of ``self.<attr>`` the table stands for; remembers the ones it took."""

    def __init__(self, storage: Storage, resolver: Resolver, kernel: str) -> None:
        self.s, self.resolver, self.kernel = storage, resolver, kernel
        self.taken: set[int] = set()
        self.inits = 0
        self.methods: list[str] = []
        self.copies: set[str] = set()  # locals the fan-outs ran over (copies of the list)

    def _mine(self, node: cst.CSTNode) -> bool:
        return self_attr(node) == self.s.attr

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
        if copied_attr(entries) == self.s.attr:
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
        if self._mine(original.value) and copied_attr(original) == self.s.attr:
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

