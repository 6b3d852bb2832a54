"""PS116: a hook the project specifies (pluggy's ``@hookspec``) that nothing in it calls."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...analyzer.context import is_context
from ...analyzer.extract.summary import SPEC_MARKER_CLASS, SPEC_MARKERS
from .base import Hazard, Invalid, Rule, register
from .syntax import dotted

if TYPE_CHECKING:
    from ...project import ProjectFacts

# the attributes a plugin manager's hooks are read through: pluggy's `pm.hook`, pytest's
# `node.ihook` (the relays the pluggy pack's emission forms name), and a hook read through one
# by a computed name
_READ = re.compile(r"hook\s*\.\s*([A-Za-z_]\w*)")  # (a literal start: the fast search)
_DYNAMIC = re.compile(r"getattr\(\s*(?:[\w.]*\.)?i?hooks?\s*,\s*(?![\s\"'])")  # (name computed)
_SUBSET = re.compile(r"subset_hook_caller\(\s*(?:name\s*=\s*)?[\"']([A-Za-z_]\w*)")
_SPEC = re.compile(r"[Hh]ook_?[Ss]pec")


@dataclass(frozen=True, slots=True)
class HookSpec:
    name: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class HookUses:
    """What PS116 reads of one file: the hooks it specifies (the functions it marks with a spec
    marker, and its unmarked functions with an empty body named with their prefix), the hook
    names it reads
    through a relay (`pm.hook.x(...)`, `runner = item.ihook.x`), and whether it reads one by a
    computed name (`getattr(pm.hook, name)`)."""

    specs: tuple[HookSpec, ...]
    read: frozenset[str]
    dynamic: bool


@register
class UncalledHook(Rule):
    """Flag a hook the project specifies that nothing in the project calls.

    ## What it does
    For a mechanism registered by hook implementations (pluggy: `pluggy.yaml`), reads each
    module that marks a function with a spec marker (`hookspec = HookspecMarker("x")`,
    `@pytest.hookspec`): each function it marks, and each unmarked one with an empty body named
    with their prefix (`pytest_`), specifies a hook. A hook that no code in the project reads
    through the plugin manager's relay (`pm.hook.x(...)`, `config.hook.x.call_historic(...)`,
    `runner = item.ihook.x`, `pm.subset_hook_caller("x")`) or calls by its name through
    anything (`hooks.x(...)` on a local or a wrapper) is reported at its specification, as
    **info**: its implementations in the project run only if code outside it calls the hook
    (pytest specifies hooks for plugins such as xdist to call; hatch's are called by
    hatchling's plugin manager). A project that reads a hook by a computed name anywhere
    (`getattr(pm.hook, name)`) is not checked: any hook might be the one it calls.

    ## Why is this bad?
    An implementation of a hook nothing calls is dead code that looks alive: the pluggy twin
    of a dormant point (PS103) or a signal nothing sends (PS114). Before a migration moves the
    hook's implementations onto a kernel, it is worth knowing who calls it.

    ## Example
    ```python
    hookspec = HookspecMarker("shop")

    @hookspec
    def shop_order_paid(order): ...
    # ... implementations of shop_order_paid, and no pm.hook.shop_order_paid(...) anywhere
    ```

    ## Use instead
    Call it where the event happens (`pm.hook.shop_order_paid(order=order)`), or remove the
    specification and its implementations.

    ## Fix safety
    Calling the hook makes its implementations run, which is new behaviour: review them first.

    ## References
    ADR-0120 P8 (a public point with no emit site), D1 (what a registration is worth is what
    runs).
    """

    code = "PS116"
    kind = "uncalled_hook"
    severity = "info"
    message = ("{name} is a hook the project specifies ({n} implementations in it) that "
               "nothing in the project calls (a caller outside it, a library or another "
               "plugin, may)")
    FACT_WORDS = ("hook", "Hook")
    FACTS = HookUses
    VALID = [
        """
        from demo.bus import HookspecMarker, PluginManager

        spec = HookspecMarker("demo")


        @spec
        def demo_order_paid(order):
            pass


        pm = PluginManager("demo")


        def pay(order):
            pm.hook.demo_order_paid(order=order)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import HookspecMarker

            spec = HookspecMarker("demo")


            @spec
            def demo_order_paid(order):
                pass
            """,
            line=7,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> HookUses | None:
        specs: list[HookSpec] = []
        markers = _markers(tree) if _SPEC.search(text) else None
        # the module, or a class of specs beside a plugin's implementations (pytest-timeout's)
        for body in [tree.body, *(n.body for n in tree.body if isinstance(n, ast.ClassDef))
                     ] if markers is not None else []:
            functions = [n for n in body if isinstance(n, (ast.FunctionDef,
                                                           ast.AsyncFunctionDef))]
            marked = [f for f in functions if any(_marks(d, markers) for d in f.decorator_list)]
            if marked:  # and the unmarked ones named as those are (pytest's hookspec.py)
                prefixes = tuple({f.name.split("_", 1)[0] + "_" for f in marked if "_" in f.name})
                specs += [HookSpec(f.name, f.lineno, f.col_offset) for f in functions
                          if f in marked or (not f.decorator_list and _empty(f)
                                             and f.name.startswith(prefixes))]
        # (by the text: a walk of every file that says "hook" costs a cold scan 6 %)
        read = {m.group(1) for m in _READ.finditer(text) if _relay_at(text, m.start())}
        read.update(_SUBSET.findall(text))  # `pm.subset_hook_caller("x", remove_plugins=...)`
        dynamic = _DYNAMIC.search(text) is not None
        if not (specs or read or dynamic):
            return None
        return HookUses(tuple(specs), frozenset(read), dynamic)

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        hooks = {m.id for m in project.mechanisms
                 if any(f.kind == "hookimpl" for f in m.model.registrations)}
        if not hooks:
            return
        # (a library read as context neither specifies the project's hooks nor calls them)
        found = [(path, uses) for path, uses in self.facts(project) if not is_context(path)]
        if any(uses.dynamic for _, uses in found):
            return
        called = {n for _, uses in found for n in uses.read}
        called |= {e.point for e in project.emissions if e.mechanism in hooks and e.point}
        # and a call of the name through anything (`hooks = pm.hook` ... `hooks.x(...)`,
        # `self.hooks.x(...)` on a project's own wrapper): a hook's name is its own
        called |= {n for f in project.files for n in f.calls}
        implemented: dict[str, list] = {}
        for reg in project.registrations:
            if reg.mechanism in hooks and reg.point:
                implemented.setdefault(reg.point, []).append(reg)
        for path, uses in found:
            for spec in uses.specs:
                if spec.name in called:
                    continue
                impls = implemented.get(spec.name, [])
                yield self.at(path, spec.line, spec.col, self.message.format(
                    name=spec.name, n=len(impls)), mechanism=impls[0].mechanism if impls
                    else min(hooks), about=tuple(impls))


def _empty(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A spec's body: a docstring, ``pass`` or ``...`` (an unmarked function beside marked specs
    is a spec only so; with code, it is the plugin's implementation)."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr)
                                           and isinstance(s.value, ast.Constant))
               for s in func.body)


def _markers(tree: ast.Module) -> set[str]:
    """The names a module binds to a spec marker (``spec = HookspecMarker("x")``)."""
    names: set[str] = set()
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                and (dotted(stmt.value.func) or "").rsplit(".", 1)[-1] == SPEC_MARKER_CLASS):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return names


def _marks(decorator: ast.expr, markers: set[str]) -> bool:
    """``@spec``, ``@spec(firstresult=True)``, ``@pytest.hookspec(...)``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = dotted(target) or ""
    return name in markers or name.rsplit(".", 1)[-1] in SPEC_MARKERS


def _relay_at(text: str, start: int) -> bool:
    """Does the ``hook`` found at *start* stand alone (``pm.hook``, ``ihook``), not as the end of
    another name (``webhook``)?"""
    before = text[start - 1] if start else " "
    if before == "i":
        before = text[start - 2] if start > 1 else " "
    return not (before.isalnum() or before == "_")
