"""The statements that bind names, for the symbol pass (``symbols.py``): imports, assignments,
loops, ``with`` and ``except`` targets, and what a function body records of them (its ``self``
stores, returned values, yields, and the loop names whose call seeds a dispatch path).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from .declarations import lazy_entries, resolve_relative
from .facts import Binding, Site
from .pass_through import put_back
from .refs import Ref, annotation_from_ast, from_ast
from .sites import Positions, Vocabulary, assign_site, augassign_site
from .visitor import FastVisitor, name_ids


def root_of(node: ast.AST) -> ast.AST:
    """The object an attribute or item chain starts from: ``app`` of ``app.settings["X"]``."""
    while node.__class__ is ast.Attribute or node.__class__ is ast.Subscript:
        node = node.value  # type: ignore[attr-defined]
    return node


def _from_handed(value: ast.AST, handed: set[str]) -> bool:
    """Whether *value* is (part of) a handed name: ``param``, ``param.x[k]``, ``param.get(k)``,
    or, through calls and displays, an iteration or a collection of one
    (``chain(gen.articles, gen.drafts)``, ``[gen.articles, gen.drafts]``,
    ``[getattr(gen, a) for a in names]``)."""
    if isinstance(value, ast.Starred):
        value = value.value
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return any(_from_handed(e, handed) for e in value.elts)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return any(_from_handed(g.iter, handed) for g in value.generators) or any(
            name in handed for name in name_ids(value.elt))
    root = value
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(root, ast.Call):
            if any(_from_handed(a, handed) for a in root.args):
                return True
            root = root.func
        else:
            root = root.value
    return isinstance(root, ast.Name) and root.id in handed


# a container's own methods that change it in place
MUTATORS = frozenset({"append", "extend", "insert", "setdefault", "update", "add", "remove",
                      "sort", "reverse", "discard", "pop", "clear", "__setitem__"})


@dataclass
class Frame:
    """What the pass gathers while inside one function body."""

    self_stores: list[Binding] = field(default_factory=list)  # self.<attr> = <ref>
    store_lines: dict[str, int] = field(default_factory=dict)  # self.<attr>: first store's line
    returns: list[Ref] = field(default_factory=list)
    yields: bool = False
    # names iterated by the function's active loops; a call of one marks the function for
    # dispatch-loop analysis, so the costly pass runs only where it matters
    loop_names: set[str] = field(default_factory=set)
    calls_loop_var: bool = False
    # what the function is handed: its parameters other than self / cls, and the local names
    # bound to a part of one (`inst = kwargs["instance"]`, `for row in rows`)
    handed: set[str] = field(default_factory=set)
    arg_stores: dict[str, None] = field(default_factory=dict)  # of those, the ones stored into
    hands_on: dict[str, None] = field(default_factory=dict)  # callees given what it is handed
    packed: frozenset[str] = frozenset()  # *args / **kwargs: the call's own tuple and dict
    raises: bool = False  # raises an exception of its own (`raise X`, not in an except clause)
    handling: int = 0  # how many except clauses the visit is inside


@dataclass
class Scope:
    qualname: str
    kind: str  # "module" | "class" | "function"
    bindings: list[Binding] = field(default_factory=list)


class BindingVisits(FastVisitor):
    """The symbol pass's visits of binding statements; ``SymbolCollector`` holds the state."""

    module: str
    is_package: bool
    vocab: Vocabulary | None
    mutators: frozenset[str]  # MUTATORS and the packs' own
    src: Positions
    sites: list[Site]
    aliases: set[str]
    stack: list[Scope]
    exports: list[str]
    lazy: list[tuple[str, str, str]]
    frames: list[Frame]
    loops: list[tuple[Ref, Ref]]
    attr_aliases: set[tuple[str, str]]
    module_node: ast.Module
    scope_nodes: list[ast.AST]

    @property
    def scope(self) -> Scope:
        return self.stack[-1]

    def bind(self, name: str, value: Ref) -> None:
        self.scope.bindings.append((name, value))

    def _bind_target(self, target: ast.AST, value: Ref, index: int | None = None) -> None:
        wrapped = value if index is None else ("unpack", value, index)
        match target:
            case ast.Name(id=name):
                self.bind(name, wrapped)
                if wrapped[0] == "attr":  # `send = sig.send`
                    self.attr_aliases.add((wrapped[2], self.scope.qualname))
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                for i, elt in enumerate(elts):
                    self._bind_target(elt, wrapped, i)
            case ast.Starred(value=inner):
                self._bind_target(inner, ("iter", wrapped))
            case ast.Attribute(value=ast.Name(id="self"), attr=attr) if self.frames:
                self.frames[-1].self_stores.append((attr, wrapped))
                self.frames[-1].store_lines.setdefault(attr, target.lineno)
            case ast.Attribute() | ast.Subscript() if self.frames:
                self._arg_store(target)

    def _arg_store(self, target: ast.Attribute | ast.Subscript) -> None:
        """``param.x = ...``, ``param.x.y = ...``, ``param[k] = ...``: a handed object changed
        (what *target* is an attribute or item of; ``kwargs[k] = ...`` changes the call's own
        dict, not what it holds)."""
        root = root_of(target.value)
        frame = self.frames[-1]
        if isinstance(root, ast.Name) and root.id in frame.handed and not (
                root is target.value and root.id in frame.packed):
            frame.arg_stores[root.id] = None

    def _derive_handed(self, target: ast.AST, value: ast.AST) -> None:
        """``x = param[...]`` / ``x = param.attr`` / ``x = param.get(...)`` / ``for x in param``:
        ``x`` is (part of) what the function is handed."""
        frame = self.frames[-1]
        if not frame.handed or not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            return
        if _from_handed(value, frame.handed):
            frame.handed.update(name_ids(target))  # `for migration, backward in plan` too

    def _handing_on(self, node: ast.Call) -> None:
        """``helper(article)`` with ``article`` (part of) what the function is handed: the
        helper's own changes to its argument are the function's too (``Function.hands_on``)."""
        handed = self.frames[-1].handed
        if not handed or not (node.args or node.keywords):
            return
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            root = root_of(arg.value if arg.__class__ is ast.Starred else arg)  # type: ignore
            if root.__class__ is ast.Name and root.id in handed:  # type: ignore[attr-defined]
                func = node.func
                name = func.attr if func.__class__ is ast.Attribute else getattr(func, "id", None)
                if name:
                    self.frames[-1].hands_on[name] = None
                return

    def _mutator_call(self, func: ast.expr) -> None:
        """``param.items.append(x)``, ``inst.tags.add(t)``: a container the function is handed,
        changed in place by its own method (a store into it, as ``_arg_store`` reads one)."""
        if self.frames and isinstance(func, ast.Attribute) and func.attr in self.mutators:
            self._arg_store(func)

    # -- statements that bind -------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname, ("import", alias.name, True))
            else:
                top = alias.name.split(".")[0]
                self.bind(top, ("import", top, True))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = resolve_relative(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                self.bind("*", ("import", base, True))
                continue
            target = f"{base}.{alias.name}" if base else alias.name
            self.bind(alias.asname or alias.name, ("import", target, False))
            if self.vocab is not None and alias.asname and alias.name in self.vocab.calls:
                self.aliases.add(alias.asname)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = from_ast(node.value)
        if (
            self.vocab is not None
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in self.vocab.calls
        ):
            self.aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for target in node.targets:
            self._bind_target(target, value)
            if self.frames:
                self._derive_handed(target, node.value)
            self.visit(target)
            if self.vocab is not None:
                self._add(self._passing(assign_site(
                    node, target, node.value, self.scope.qualname, self.vocab, self.src),
                    target, node.value))
        if self.frames and self.frames[-1].loop_names and len(node.targets) == 1:
            self._derive_loop_name(node.targets[0], node.value)
        if self.scope.kind == "module":
            self._module_assign(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.visit(node.target)
        if self.frames and isinstance(node.target, (ast.Attribute, ast.Subscript)):
            self._arg_store(node.target)
        if self.vocab is not None:
            self._add(augassign_site(node, self.scope.qualname, self.vocab, self.src))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            if self.frames:
                self._derive_handed(node.target, node.value)
        annotation = annotation_from_ast(node.annotation)
        value = from_ast(node.value) if node.value is not None else None
        if isinstance(node.target, ast.Name):
            self.bind(node.target.id, ("annot", annotation, value))
        elif (
            isinstance(node.target, ast.Attribute)
            and isinstance(node.target.value, ast.Name)
            and node.target.value.id == "self"
            and self.frames
        ):
            self.frames[-1].self_stores.append((node.target.attr, ("annot", annotation, value)))
            self.frames[-1].store_lines.setdefault(node.target.attr, node.lineno)
        if self.scope.kind == "module" and node.value is not None:
            self._module_assign(ast.Assign(targets=[node.target], value=node.value))
        if self.vocab is not None and node.value is not None:
            self._add(self._passing(assign_site(
                node, node.target, node.value, self.scope.qualname, self.vocab, self.src),
                node.target, node.value))

    def _passing(self, site: Site | None, target: ast.expr, value: ast.expr) -> Site | None:
        """*site* with why it registers nothing new, when its value is a name holding the
        handler saved from the same slot, or nothing callable (``extract.pass_through``)."""
        if site is None or not isinstance(value, ast.Name) or not isinstance(target, ast.Attribute):
            return site
        scope = self.scope_nodes[-1] if self.scope_nodes else None
        why = put_back(target.attr, value, False, scope, self.module_node)
        return replace(site, passing=why) if why else site

    def _add(self, site: Site | None) -> None:
        if site is not None:
            self.sites.append(replace(site, loops=tuple(self.loops)) if self.loops else site)

    def _derive_loop_name(self, target: ast.expr, value: ast.expr) -> None:
        """``fn = entry.handler`` or ``cb = ref()`` inside a loop: calling fn is calling the entry."""
        if isinstance(target, ast.Name) and not self.frames[-1].loop_names.isdisjoint(
                name_ids(value)):
            self.frames[-1].loop_names.add(target.id)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, from_ast(node.value))
        if self.frames and self.frames[-1].loop_names:
            self._derive_loop_name(node.target, node.value)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self._bind_target(node.target, ("iter", from_ast(node.iter)))
        if self.frames:
            self._derive_handed(node.target, node.iter)
        names = self.frames[-1].loop_names if self.frames else None
        added: set[str] = set()
        if names is not None:
            added = set(name_ids(node.target)) - names
            names |= added
        self.loops.append((from_ast(node.target), from_ast(node.iter)))
        for stmt in node.body:
            self.visit(stmt)
        self.loops.pop()
        for stmt in node.orelse:
            self.visit(stmt)
        if names is not None:
            names -= added

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.visit(node.iter)
        self._bind_target(node.target, ("iter", from_ast(node.iter)))
        if self.frames:
            self.frames[-1].loop_names.update(name_ids(node.target))
        for cond in node.ifs:
            self.visit(cond)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, ("other", "with"))
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncWith = visit_With  # type: ignore[assignment]

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bind(node.name, ("other", "except"))
        if self.frames:
            self.frames[-1].handling += 1
        for stmt in node.body:
            self.visit(stmt)
        if self.frames:
            self.frames[-1].handling -= 1

    def visit_Raise(self, node: ast.Raise) -> None:
        if self.frames and node.exc is not None and not self.frames[-1].handling:
            self.frames[-1].raises = True  # (a raise in an except clause translates or re-raises)
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.visit(node.value)
            if self.frames:
                self.frames[-1].returns.append(from_ast(node.value))

    def visit_Yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        if self.frames:
            self.frames[-1].yields = True
        self.generic_visit(node)

    visit_YieldFrom = visit_Yield  # type: ignore[assignment]

    # -- module-level conventions -------------------------------------------------------------
    def _module_assign(self, node: ast.Assign) -> None:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if "__all__" in names and isinstance(node.value, (ast.List, ast.Tuple)):
            self.exports.extend(
                e.value for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
        elif names and isinstance(node.value, ast.Dict):
            self.lazy.extend(lazy_entries(node.value))
