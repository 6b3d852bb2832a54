"""The one ``ast`` walk over a file: its names, imports, classes, functions and bindings.

Every file is read by this pass (``ast`` parses about five times faster than LibCST); in files
the vocabulary prefilter admits, the same walk also records candidate sites (``sites.py``).
Definitions and uses are visited here, the statements that bind names in ``symbol_bindings.py``.
"""

from __future__ import annotations

import ast
import marshal

from .declarations import decorator_name, params_of
from .facts import CallRow, Class, FileFacts, Function, Site
from .loops import dispatch_facts
from .refs import Ref, annotation_from_ast, from_ast
from .sites import Positions, Vocabulary, applied_decorator_site, call_site, decorator_sites
from .symbol_bindings import MUTATORS, BindingVisits, Frame, Scope, root_of

_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property"}


class SymbolCollector(BindingVisits):
    """Collects the module's bindings, classes and functions into plain facts (the statements
    that bind names are visited by :class:`~.symbol_bindings.BindingVisits`)."""

    def __init__(self, module: str, is_package: bool, vocab: Vocabulary | None,
                 src: Positions, mutators: frozenset[str] = frozenset()) -> None:
        self.module = module
        self.is_package = is_package
        self.vocab = vocab
        self.mutators = MUTATORS | mutators if mutators else MUTATORS
        self.src = src
        self.sites: list[Site] = []
        # local names standing for a vocabulary API: `from m import hook as on_point`,
        # `register = bus.on`; calls through them are sites too
        self.aliases: set[str] = set()
        self.nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # for dispatch_facts
        self.loop_seeds: set[str] = set()  # functions that call what they iterate
        self.stack: list[Scope] = [Scope("", "module")]
        self.module_node: ast.Module = ast.Module(body=[], type_ignores=[])  # the file's tree
        self.scope_nodes: list[ast.AST] = []  # the enclosing defs and classes, innermost last
        self.functions: list[Function] = []
        self.classes: list[Class] = []
        self.exports: list[str] = []
        self.lazy: list[tuple[str, str, str]] = []
        self.called_attrs: set[str] = set()
        self.called_funcs: set[str] = set()
        self.loaded_attrs: set[str] = set()
        self.decorator_words: set[str] = set()
        self.attr_aliases: set[tuple[str, str]] = set()
        self.frames: list[Frame] = []  # one per enclosing function, innermost last
        self.loops: list[tuple[Ref, Ref]] = []  # the `for` loops around the node being visited
        self.calls: list[CallRow] = []
        self.applied: set[ast.Call] = set()  # decorator calls applied by a call (not sites)
        self.dropped: ast.AST | None = None  # the call an expression statement drops the result of

    # -- definitions --------------------------------------------------------------------------
    def _child(self, name: str) -> str:
        return f"{self.scope.qualname}.{name}" if self.scope.qualname else name

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
        self.stack.append(Scope(qualname, "class"))
        self.scope_nodes.append(node)
        for stmt in node.body:
            self.visit(stmt)
        self.scope_nodes.pop()
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
        self.decorator_words.update(name.rpartition(".")[2] for name in dec_names)
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
        self.stack.append(Scope(qualname, "function"))
        for p in params:
            self.bind(p.name, ("param", p.kind, p.annotation, p.default))
        self.frames.append(Frame(
            handed={p.name for p in params if p.kind not in ("self", "cls")},
            packed=frozenset(p.name for p in params if p.kind in ("vararg", "kwarg"))))
        self.scope_nodes.append(node)
        loops, self.loops = self.loops, []  # a body runs when called, not in the loop around
        for stmt in node.body:
            self.visit(stmt)
        self.loops = loops
        self.scope_nodes.pop()
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
                arg_stores=tuple(frame.arg_stores),
                raises=frame.raises,
                hands_on=tuple(frame.hands_on),
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

    def _method_of(self) -> str | None:
        """The class whose method the visit is in, directly."""
        if len(self.stack) > 1 and self.stack[-1].kind == "function" and \
                self.stack[-2].kind == "class":
            return self.stack[-2].qualname
        return None

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.body)  # lambda parameters shadow nothing the linker needs

    # -- uses ---------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if self.vocab is not None:
            applied = applied_decorator_site(node, self.scope.qualname, self.vocab, self.src,
                                             self._method_of()) \
                if node.func.__class__ is ast.Call else None
            if applied is not None:  # its inner call is the decorator, not a call site
                self.applied.add(node.func)  # type: ignore[arg-type]
                self._add(applied)
            elif not (self.applied and node in self.applied):
                self._add(call_site(node, self.scope.qualname, self.vocab, self.src,
                                    self.aliases))
        func = node.func
        if func.__class__ is ast.Name or func.__class__ is ast.Attribute:
            self.calls.append((from_ast(func), self.scope.qualname, *self.src.span(node),
                               handed_names(node), handed_roots(node), node is self.dropped))
        if (
            self.frames
            and isinstance(node.func, ast.Name)
            and node.func.id in self.frames[-1].loop_names
        ):
            self.frames[-1].calls_loop_var = True
        if self.frames:
            self._handing_on(node)
        if isinstance(node.func, ast.Attribute):
            self.called_attrs.add(node.func.attr)
            self._mutator_call(node.func)
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

    def visit_Expr(self, node: ast.Expr) -> None:
        value = node.value
        self.dropped = value.value if value.__class__ is ast.Await else value  # type: ignore
        self.visit(value)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loaded_attrs.add(node.attr)
        self.visit(node.value)



def collect_symbols(
    tree: ast.Module,
    path: str,
    module: str,
    is_package: bool,
    vocab: Vocabulary | None = None,
    text: str = "",
    mutators: frozenset[str] = frozenset(),
) -> FileFacts:
    """Run the symbol pass over a parsed module (*text* is its source, for exact positions);
    with *vocab*, also record candidate sites; *mutators*: the packs' methods that change what
    they are called on."""
    collector = SymbolCollector(module, is_package, vocab, Positions(text), mutators)
    collector.module_node = tree
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
        decorator_words=frozenset(collector.decorator_words),
        attr_aliases=frozenset(collector.attr_aliases),
        sites=tuple(collector.sites),
        has_sites=vocab is not None,
        calls=marshal.dumps(tuple(collector.calls), 2),
    )


def handed_roots(call: ast.Call) -> tuple[str, ...]:
    """The names an argument of *call* is an attribute or item of (``connection`` of
    ``f(connection.connection)``, ``f(k=conf["x"])``)."""
    out: list[str] = []
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if arg.__class__ is ast.Starred:
            arg = arg.value  # type: ignore[attr-defined]
        if arg.__class__ is ast.Attribute or arg.__class__ is ast.Subscript:
            root = root_of(arg)
            if root.__class__ is ast.Name:
                out.append(root.id)  # type: ignore[attr-defined]
    return tuple(out)


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
