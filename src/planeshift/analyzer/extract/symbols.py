"""The one ``ast`` walk over a file: its names, imports, classes, functions and bindings.

Every file is read by this pass (``ast`` parses about five times faster than LibCST); in files
the vocabulary prefilter admits, the same walk also records candidate sites (``sites.py``).
"""

from __future__ import annotations

import ast
import marshal
from dataclasses import dataclass, field, replace

from .declarations import decorator_name, lazy_entries, params_of, resolve_relative
from .facts import Binding, CallRow, Class, FileFacts, Function, Site
from .loops import dispatch_facts
from .refs import Ref, annotation_from_ast, from_ast
from .sites import (
    Positions,
    Vocabulary,
    assign_site,
    augassign_site,
    call_site,
    decorator_sites,
)
from .visitor import FastVisitor, name_ids

_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property"}


@dataclass
class _Frame:
    """What the pass gathers while inside one function body."""

    self_stores: list[Binding] = field(default_factory=list)  # self.<attr> = <ref>
    store_lines: dict[str, int] = field(default_factory=dict)  # self.<attr>: first store's line
    returns: list[Ref] = field(default_factory=list)
    yields: bool = False
    # names iterated by the function's active loops; a call of one marks the function for
    # dispatch-loop analysis, so the costly pass runs only where it matters
    loop_names: set[str] = field(default_factory=set)
    calls_loop_var: bool = False


@dataclass
class _Scope:
    qualname: str
    kind: str  # "module" | "class" | "function"
    bindings: list[Binding] = field(default_factory=list)


class SymbolCollector(FastVisitor):
    """Collects the module's bindings, classes and functions into plain facts."""

    def __init__(self, module: str, is_package: bool, vocab: Vocabulary | None,
                 src: Positions) -> None:
        self.module = module
        self.is_package = is_package
        self.vocab = vocab
        self.src = src
        self.sites: list[Site] = []
        # local names standing for a vocabulary API: `from m import hook as on_point`,
        # `register = bus.on`; calls through them are sites too
        self.aliases: set[str] = set()
        self.nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # for dispatch_facts
        self.loop_seeds: set[str] = set()  # functions that call what they iterate
        self.stack: list[_Scope] = [_Scope("", "module")]
        self.functions: list[Function] = []
        self.classes: list[Class] = []
        self.exports: list[str] = []
        self.lazy: list[tuple[str, str, str]] = []
        self.called_attrs: set[str] = set()
        self.called_funcs: set[str] = set()
        self.loaded_attrs: set[str] = set()
        self.frames: list[_Frame] = []  # one per enclosing function, innermost last
        self.loops: list[tuple[Ref, Ref]] = []  # the `for` loops around the node being visited
        self.calls: list[CallRow] = []

    # -- scopes -------------------------------------------------------------------------------
    @property
    def scope(self) -> _Scope:
        return self.stack[-1]

    def _child(self, name: str) -> str:
        return f"{self.scope.qualname}.{name}" if self.scope.qualname else name

    def bind(self, name: str, value: Ref) -> None:
        self.scope.bindings.append((name, value))

    def _bind_target(self, target: ast.AST, value: Ref, index: int | None = None) -> None:
        wrapped = value if index is None else ("unpack", value, index)
        match target:
            case ast.Name(id=name):
                self.bind(name, wrapped)
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                for i, elt in enumerate(elts):
                    self._bind_target(elt, wrapped, i)
            case ast.Starred(value=inner):
                self._bind_target(inner, ("iter", wrapped))
            case ast.Attribute(value=ast.Name(id="self"), attr=attr) if self.frames:
                self.frames[-1].self_stores.append((attr, wrapped))
                self.frames[-1].store_lines.setdefault(attr, target.lineno)

    # -- definitions --------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = self._child(node.name)
        self.bind(node.name, ("class", qualname))
        if self.vocab is not None:
            self.sites.extend(decorator_sites(
                node, self.scope.qualname, qualname, self.vocab, self.src, self.aliases))
        for dec in node.decorator_list:
            self._visit_decorator(dec)
        for base in node.bases:
            self.visit(base)
        self.stack.append(_Scope(qualname, "class"))
        for stmt in node.body:
            self.visit(stmt)
        scope = self.stack.pop()
        members = tuple(
            (stmt.targets[0].id, stmt.value.value)
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, (str, int))
        )
        self.classes.append(
            Class(
                qualname=qualname,
                name=node.name,
                line=node.lineno,
                bases=tuple(from_ast(b) for b in node.bases),
                decorators=tuple(from_ast(d) for d in node.decorator_list),
                bindings=tuple(scope.bindings),
                enum_members=members,
            )
        )

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = self._child(node.name)
        in_class = self.scope.kind == "class"
        decorators = tuple(from_ast(d) for d in node.decorator_list)
        dec_names = {decorator_name(d) for d in node.decorator_list}
        kind = "function"
        if in_class:
            kind = "method"
            if "staticmethod" in dec_names:
                kind = "staticmethod"
            elif "classmethod" in dec_names:
                kind = "classmethod"
            elif dec_names & _PROPERTY_DECORATORS:
                kind = "property"
            elif any(n.endswith((".setter", ".deleter")) for n in dec_names):
                kind = "setter"
        if not any(n.endswith(".setter") or n.endswith(".deleter") for n in dec_names):
            self.bind(node.name, ("def", qualname))
        if self.vocab is not None:
            self.sites.extend(decorator_sites(
                node, self.scope.qualname, qualname, self.vocab, self.src, self.aliases))
        for dec in node.decorator_list:
            self._visit_decorator(dec)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        params = params_of(node.args, kind)
        self.stack.append(_Scope(qualname, "function"))
        for p in params:
            self.bind(p.name, ("param", p.kind, p.annotation, p.default))
        self.frames.append(_Frame())
        loops, self.loops = self.loops, []  # a body runs when called, not in the loop around
        for stmt in node.body:
            self.visit(stmt)
        self.loops = loops
        frame = self.frames.pop()
        if frame.calls_loop_var:
            self.loop_seeds.add(qualname)
        self.nodes[qualname] = node
        scope = self.stack.pop()
        self.functions.append(
            Function(
                qualname=qualname,
                name=node.name,
                line=node.lineno,
                is_async=isinstance(node, ast.AsyncFunctionDef),
                kind=kind,
                params=params,
                returns=annotation_from_ast(node.returns),
                return_values=tuple(frame.returns),
                decorators=decorators,
                bindings=tuple(scope.bindings),
                self_stores=tuple(frame.self_stores),
                store_lines=tuple(frame.store_lines.items()),
                is_generator=frame.yields,
            )
        )

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _visit_decorator(self, dec: ast.expr) -> None:
        """A decorator call is recorded as a decorator site, not again as a call site."""
        if isinstance(dec, ast.Call):
            self.visit(dec.func)
            for arg in [*dec.args, *dec.keywords]:
                self.visit(arg)
        else:
            self.visit(dec)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.body)  # lambda parameters shadow nothing the linker needs

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
            self.visit(target)
            if self.vocab is not None:
                self._add(assign_site(node, target, node.value, self.scope.qualname, self.vocab, self.src))
        if self.frames and self.frames[-1].loop_names and len(node.targets) == 1:
            self._derive_loop_name(node.targets[0], node.value)
        if self.scope.kind == "module":
            self._module_assign(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.visit(node.target)
        if self.vocab is not None:
            self._add(augassign_site(node, self.scope.qualname, self.vocab, self.src))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
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
            self._add(assign_site(node, node.target, node.value, self.scope.qualname, self.vocab, self.src))

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
        for stmt in node.body:
            self.visit(stmt)

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

    # -- uses ---------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if self.vocab is not None:
            self._add(call_site(node, self.scope.qualname, self.vocab, self.src, self.aliases))
        func = node.func
        if func.__class__ is ast.Name or func.__class__ is ast.Attribute:
            self.calls.append((from_ast(func), self.scope.qualname, *self.src.span(node),
                               handed_names(node)))
        if (
            self.frames
            and isinstance(node.func, ast.Name)
            and node.func.id in self.frames[-1].loop_names
        ):
            self.frames[-1].calls_loop_var = True
        if isinstance(node.func, ast.Attribute):
            self.called_attrs.add(node.func.attr)
            self.visit(node.func.value)
        elif isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                # read by name: count it as a possible call, so nothing fetched this way is
                # ever reported as stored-but-never-invoked
                self.loaded_attrs.add(name.value)
                self.called_attrs.add(name.value)
            self.visit(node.func)
        elif isinstance(node.func, ast.Subscript) and isinstance(node.func.value, ast.Attribute):
            self.called_attrs.add(node.func.value.attr)  # self._hooks[key](...) invokes _hooks
            self.visit(node.func)
        else:
            if isinstance(node.func, ast.Name):
                self.called_funcs.add(node.func.id)
            self.visit(node.func)
        for arg in [*node.args, *node.keywords]:
            self.visit(arg)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loaded_attrs.add(node.attr)
        self.visit(node.value)

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


def collect_symbols(
    tree: ast.Module,
    path: str,
    module: str,
    is_package: bool,
    vocab: Vocabulary | None = None,
    text: str = "",
) -> FileFacts:
    """Run the symbol pass over a parsed module (*text* is its source, for exact positions);
    with *vocab*, also record candidate sites."""
    collector = SymbolCollector(module, is_package, vocab, Positions(text))
    for stmt in tree.body:
        collector.visit(stmt)
    # dispatch paths start at functions calling what they iterate and at the packs' words
    seeds = collector.loop_seeds | (
        {qn for qn, node in collector.nodes.items() if node.name in vocab.calls} if vocab else set())
    defines_getattr = any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__getattr__"
        for s in tree.body
    )
    return FileFacts(
        path=path,
        module=module,
        is_package=is_package,
        bindings=tuple(collector.stack[0].bindings),
        functions=tuple(dispatch_facts(collector.functions, collector.nodes, seeds,
                                       (c.qualname for c in collector.classes))),
        classes=tuple(collector.classes),
        exports=tuple(collector.exports),
        lazy_exports=tuple(collector.lazy) if defines_getattr else (),
        called_attrs=frozenset(collector.called_attrs),
        called_funcs=frozenset(collector.called_funcs),
        loaded_attrs=frozenset(collector.loaded_attrs),
        sites=tuple(collector.sites),
        has_sites=vocab is not None,
        calls=marshal.dumps(tuple(collector.calls), 2),
    )


def handed_names(call: ast.Call) -> tuple[str, ...]:
    """The arguments of *call* that are a bare name (``f(x)``, ``f(*x)``, ``f(k=x)``, ``f(**x)``)."""
    out: list[str] = []
    for arg in call.args:
        if arg.__class__ is ast.Starred:
            arg = arg.value  # type: ignore[attr-defined]
        if arg.__class__ is ast.Name:
            out.append(arg.id)  # type: ignore[attr-defined]
    out += [k.value.id for k in call.keywords if k.value.__class__ is ast.Name]  # type: ignore[attr-defined]
    return tuple(out)
