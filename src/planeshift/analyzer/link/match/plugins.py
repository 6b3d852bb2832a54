"""Plugins registered whole: ``pm.register(module)``, ``pm.register(Plugin())``, a loop over a
literal list of them, an entry point in the project's packaging metadata (which
``pm.load_setuptools_entrypoints(group)`` loads). pluggy reads a plugin's hook implementations
when it is registered, so such a call is where each of its implementations is activated
(``Candidate.plugin`` names the plugin an implementation belongs to: its module, or its class).
A module or class of specs added whole (``pm.add_hookspecs(hooks)``) is found the same way:
its unmarked functions named like hooks are specs, not implementations.

The call is a site of one of the methods a ``hookimpl`` form lists as ``plugins``, on the
mechanism's dispatcher (resolved), or on a receiver whose type is not known (said to be
matched by the method's name alone, as a helper method on an untyped receiver is). A receiver
known to be something else registers nothing here.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Iterator
from dataclasses import replace

from ....packs.model import Mechanism
from ...extract.facts import FileFacts, Ref, Site
from ...extract.refs import last_word
from ..candidate import Call
from ..evaluate.engine import Evaluator
from .forms import FormIndex
from .identity import Identity
from .tables import Tables


def plugin_of(module: str, scope: str) -> str:
    """The plugin a hook implementation defined in *scope* of *module* belongs to: the module
    for a function at its top level, else the class (or function) it is defined in."""
    return f"{module}.{scope}" if scope else module


def _module_spelled(ref: Ref, here: str, package: str) -> str:
    """The module a plugin argument names by its spelling: ``sys.modules[__name__]`` (*here*,
    the module itself), ``importlib.import_module("pkg.mod")`` with a literal name (or one a
    loop over a literal table binds; a relative one with a literal ``package=``, or
    ``__package__`` / ``__name__``), ``__import__("pkg.mod")`` (the top package ``pkg``, unless
    a ``fromlist`` asks for the module itself); "" for anything else."""
    if ref == ("sub", ("attr", ("name", "sys"), "modules"), ("name", "__name__")):
        return here
    if ref[0] != "call" or not _imports(ref) or not ref[2] or ref[2][0][0] != "str":
        return ""
    name, keywords = ref[2][0][1], dict(ref[3])
    if last_word(ref) == "__import__":
        if name.startswith("."):
            return ""
        fromlist = keywords.get("fromlist", ref[2][3] if len(ref[2]) > 3 else None)
        empty = (None, ("const", "None"), ("seq", "list", ()), ("seq", "tuple", ()))
        return name if fromlist not in empty else name.partition(".")[0]
    if not name.startswith("."):
        return name
    anchor = keywords.get("package", ref[2][1] if len(ref[2]) > 1 else None)
    base = {("name", "__name__"): here, ("name", "__package__"): package}.get(anchor) if (
        anchor is not None and anchor[0] == "name") else (anchor[1] if anchor is not None
                                                          and anchor[0] == "str" else "")
    if not base:
        return ""
    try:
        return importlib.util.resolve_name(name, base)
    except (ImportError, ValueError):
        return ""


def _imports(call: Ref) -> bool:
    """Is *call* ``importlib.import_module(...)`` / ``import_module(...)`` / ``__import__(...)``?"""
    return last_word(call) in ("import_module", "__import__")


SPECS = "specs:"  # a Call's `helper` for a module or class of specs added whole


def spec_plugins(calls: Iterable[Call]) -> frozenset[str]:
    """The modules and classes the project adds as specs (``pm.add_hookspecs(hooks)``)."""
    return frozenset(c.helper[len(SPECS):] for c in calls if c.helper.startswith(SPECS))


class Plugins:
    def __init__(self, evaluator: Evaluator, identity: Identity, tables: Tables,
                 forms: FormIndex) -> None:
        self.ev, self.identity, self.tables = evaluator, identity, tables
        self.methods: dict[str, list[Mechanism]] = {}
        self.adds_specs: set[str] = set()
        for mech, form in forms.definitions:
            for name in (*form.plugins, *form.adds_specs):
                self.methods.setdefault(name, []).append(mech)
            self.adds_specs.update(form.adds_specs)

    def calls(self, facts: FileFacts) -> Iterator[Call]:
        """The file's calls registering a plugin whole, one per plugin each registers (its
        ``helper`` is the plugin); in packaging metadata, each entry point naming a plugin."""
        if not self.methods or facts.error is not None:
            return
        for _group, _name, target, line in facts.entry_points:
            for plugin in sorted(self._entry_point(target)):
                yield Call(plugin, facts.path, line, 0, line, 0, "", False, True)
        if not facts.module:
            return
        for site in facts.sites:
            func = site.func
            if site.kind != "call" or func[0] != "attr" or func[2] not in self.methods:
                continue
            resolved = self._on_a_dispatcher(facts, site, self.methods[func[2]])
            if resolved is None:
                continue
            where = f"{facts.module}.{site.scope}" if site.scope else ""
            kind = SPECS if func[2] in self.adds_specs else ""
            for plugin in sorted(self._plugins(facts, site)):
                yield Call(kind + plugin, facts.path, site.line, site.col, site.end_line,
                           site.end_col, where, False, resolved)

    def _entry_point(self, target: str) -> set[str]:
        """The plugin an entry point loads: ``module``, or ``module:attribute`` (a class, an
        instance, a submodule: what the attribute is, when the module is in view)."""
        module, _, attribute = target.replace(" ", "").partition(":")
        if not attribute:
            return {module}
        first, *rest = attribute.split(".")
        ref: Ref = ("name", first)
        for part in rest:  # `module:Outer.Inner`
            ref = ("attr", ref, part)
        keys = self._keys(self.ev.eval(ref, module, ""))
        return keys or {f"{module}.{attribute}"}

    def _on_a_dispatcher(self, facts: FileFacts, site: Site,
                         mechanisms: list[Mechanism]) -> bool | None:
        """True on a mechanism's dispatcher, False on a receiver of unknown type, None else."""
        recv = self.ev.eval(site.func[1], facts.module, site.scope)
        statuses = {self.identity.dispatcher(recv, mech).status for mech in mechanisms}
        if "match" in statuses:
            return True
        if statuses & {"unknown", "dynamic"}:
            return False
        return None

    def _plugins(self, facts: FileFacts, site: Site) -> set[str]:
        """What the call's plugin argument (its first, or ``plugin=``) may be: modules, and
        each class an instance (or the class itself) is of, with its bases."""
        at = next((i for i, a in enumerate(site.args) if a.name in (None, "plugin")
                   and not a.star), None)
        if at is None:
            return set()
        package = facts.module if facts.is_package else facts.module.rpartition(".")[0]
        out: set[str] = set()
        # the argument as written, and (`mod = importlib.import_module(name)`, then
        # `register(mod)`) each import call the name is bound to in the site's scope
        for ref in [site.args[at].ref, *self._imported_locals(facts, site, site.args[at].ref)]:
            read = replace(site, args=tuple(replace(a, ref=ref) if i == at else a
                                            for i, a in enumerate(site.args)))
            refs: list[Ref] = [ref]
            envs = self.tables.bindings(facts.module, read, [read.args[at]])
            if envs:  # `for plugin in (a, b): pm.register(plugin)`: each entry
                refs = [self.tables.bound_site(read, env).args[at].ref for env in envs]
            for each in refs:
                module = _module_spelled(each, facts.module, package)
                out |= {module} if module else self._keys(
                    self.ev.eval(each, facts.module, site.scope))
        return out

    @staticmethod
    def _imported_locals(facts: FileFacts, site: Site, ref: Ref) -> list[Ref]:
        """The import calls a plain name is bound to in the site's own scope, for the modules
        they name: datasette's and llm's `for plugin in DEFAULT_PLUGINS: mod =
        importlib.import_module(plugin); pm.register(mod, plugin)`. Read besides the name's own
        value (another binding of it may register something else); a binding in another loop,
        bound by no literal table at this site, names nothing here."""
        if ref[0] != "name":
            return []
        if site.scope:
            func = next((f for f in facts.functions if f.qualname == site.scope), None)
            bindings = func.bindings if func is not None else ()
        else:
            bindings = facts.bindings
        return [r for name, r in bindings if name == ref[1] and r[0] == "call" and _imports(r)]

    def _keys(self, values: frozenset) -> set[str]:
        """The plugins *values* may be: modules, and each class an instance (or the class
        itself) is of, with its bases."""
        out: set[str] = set()
        for value in values:
            if value[0] == "mod":
                out.add(value[1])
            elif value[0] in ("inst", "cls"):
                out.update(self.ev.mro(value[1]))
        return out
