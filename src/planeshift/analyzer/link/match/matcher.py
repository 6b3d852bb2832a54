"""Site matching: which sites register or emit on which mechanism, with the facts why.

A site matches a registration form only when its receiver (or callee) resolves to that
mechanism's dispatcher, an alias of it, or a subclass. A receiver that resolves to anything else
is a look-alike and is dropped. One that is dynamic (a loop variable, ``getattr``) is kept as
``needs_review`` with the reason. One that cannot be typed at all is kept with its normal plane
when its point argument is one of the mechanism's own points, as ``needs_review`` when it is
handed a callable, and dropped otherwise (``sqlite3.connect``-style look-alikes). Those two
kinds of guess are made only in a file where the mechanism's package is in play (the file is
part of it or imports it): a Django project is not searched for lionagi's buses.

The matcher composes its parts: the form index, dispatcher identity, points, the match builder
and emissions; each registration shape (``analyzer/shapes``) does its own matching with them.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....packs.model import Mechanism, Pack, RegistrationForm
from ....types import Handler
from ...extract.facts import ConfigHook, FileFacts, Ref, Site
from ...shapes import all_shapes, shape_of
from ...shapes.base import CalleeShape
from ..candidate import Call
from ..evaluate.engine import Evaluator
from ..memo import Memo
from .candidates import Builder, Match
from .emissions import Emissions, RawEmission
from .forms import FormIndex
from .identity import Identity
from .plugins import Plugins
from .points import Points
from .tables import Tables

GUESSES = frozenset({"dynamic_receiver", "unresolved_receiver", "receiver_unknown"})


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imported(facts: FileFacts) -> Iterator[str]:
    """Every module or name a file imports, at any level (module, class or function body)."""
    scopes = [facts.bindings, *(c.bindings for c in facts.classes),
              *(f.bindings for f in facts.functions)]
    for bindings in scopes:
        for _, ref in bindings:
            if ref and ref[0] == "import":
                yield ref[1]


class Matcher:
    def __init__(self, packs: tuple[Pack, ...], evaluator: Evaluator) -> None:
        self.ev = evaluator
        self.forms = FormIndex(packs, {s.kind: s for s in all_shapes()})
        self.identity = Identity(evaluator)
        self.points = Points(evaluator, self.identity)
        self.build = Builder(evaluator, self.points)
        self.tables = Tables(evaluator)
        self._emissions = Emissions(evaluator, self.identity, self.points, self.forms)
        self._plugins = Plugins(evaluator, self.identity, self.tables, self.forms)
        self._keyed = [s for s in all_shapes() if not s.callee and not s.definitions]
        self._bodies: Memo[frozenset[str]] = Memo(evaluator.index.deps)
        self._package = {m.id: p.package for p in packs for m in p.mechanisms}
        self._in_play: dict[tuple[str, str], bool] = {}
        self._definers: tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None = None

    def add(self, mech: Mechanism, form: RegistrationForm, list_alias: str | None = None) -> None:
        """Index a registration form (pack-given, or derived by the linker)."""
        self.forms.add(mech, form, list_alias)

    def dispatcher_ids(self, mech: Mechanism) -> frozenset[str]:
        return self.identity.dispatcher_ids(mech)

    def enum_members(self, mech: Mechanism) -> tuple[tuple[str, object], ...] | None:
        return self.points.enum_members(mech)

    def emissions(self, facts: FileFacts) -> Iterator[RawEmission]:
        return self._emissions.emissions(facts)

    def plugins(self, facts: FileFacts) -> Iterator[Call]:
        """The file's calls registering a plugin whole (``plugins.py``)."""
        return self._plugins.calls(facts)

    # -- registrations ------------------------------------------------------------------------
    def registrations(self, facts: FileFacts) -> Iterator[Match]:
        bodies = self.api_bodies()
        for site in facts.sites:
            scope = f"{facts.module}.{site.scope}"
            if bodies and any(scope == b or scope.startswith(b + ".") for b in bodies):
                continue
            for match in self._site(facts, site):
                if self._in_play_for(facts, match):
                    yield match
        for mech, form in self.forms.definitions if self.spells_definitions(facts) else ():
            yield from shape_of(form.kind).match_definitions(self, facts, mech, form)
        for hook in facts.config_hooks:
            yield from self._config(facts, hook)

    def wants(self, facts: FileFacts) -> bool:
        """Whether the file may register anything: it has sites or hook settings, or (for the
        definition forms, pluggy's hook implementations) a function named with a form's prefix,
        or declares plugin entry points (packaging metadata),
        or it spells a marker: imports a name ending as one does (`from tox.plugin import impl`),
        imports a marker's package, or reads it as an attribute (`@pytest.hookimpl`); or it
        reads a relay's attribute (`pm.hook`), or binds an emitting method to a name
        (`send = sig.send`): their calls are emissions."""
        return bool(facts.sites or facts.config_hooks or facts.entry_points) or (
            self.spells_definitions(facts)) or (
            bool(self.forms.emit_by_relay)
            and not facts.loaded_attrs.isdisjoint(self.forms.emit_by_relay)) or (
            any(attr in self.forms.emit_by_method for attr, _ in facts.attr_aliases))

    def spells_definitions(self, facts: FileFacts) -> bool:
        """The file may define what a definition form matches (see :meth:`wants`)."""
        if not self.forms.definitions:
            return False
        if self._definers is None:
            forms = [form for _, form in self.forms.definitions]
            names = [name for f in forms for name in (f.name, *f.callables)]
            self._definers = (tuple(f.prefix for f in forms if f.prefix),
                              frozenset(n.split(".", 1)[0] for n in names if n[0] != "*"),
                              frozenset(n.rsplit(".", 1)[-1] for n in names))
        prefixes, packages, words = self._definers
        if prefixes and any(f.name.startswith(prefixes) for f in facts.functions):
            return True
        if words & facts.loaded_attrs:
            return True
        if any(ref[0] == "import" and (ref[1].split(".", 1)[0] in packages
                                       or ref[1].rsplit(".", 1)[-1] in words)
               for _, ref in facts.bindings):
            return True
        # or a decorator spelled as a marker (`@hookimpl` imported inside a test function)
        return not words.isdisjoint(facts.decorator_words)

    def _in_play_for(self, facts: FileFacts, match: Match) -> bool:
        """A match on a receiver whose type is not known counts only where the mechanism's
        package is in play: the file is part of the package or imports it somewhere (or the
        form's method is one only that library spells: ``distinctive``)."""
        package = self._package.get(match.mechanism.id, "")
        if not package or not GUESSES.intersection(match.flags) or match.spec.distinctive:
            return True
        key = (facts.path, package)
        if key not in self._in_play:
            self._in_play[key] = in_package(facts.module, package) or any(
                in_package(target, package) for target in imported(facts))
        return self._in_play[key]

    def api_bodies(self) -> frozenset[str]:
        """Qualnames of pack-declared registration functions, decorators and dispatcher methods:
        sites inside their own bodies are the API's plumbing (``def hook(p): def wrap(fn):
        bus.on(p, fn)``, ``def pre(self, name, h): self.hooks.setdefault(...).append(h)``)."""

        def find() -> frozenset[str]:
            names = tuple(form.name for _, form in self.forms.callee
                          if form.kind in ("function", "decorator") and not form.forwards)
            found = {n for n in self.identity.ids(names) if n in self.ev.index.functions}
            for mech in self.forms.mechanisms:
                methods = [f.name for f in mech.registrations if f.kind == "method"]
                for cls in self.identity.dispatcher_ids(mech) if methods else ():
                    found.update(qn for name in methods
                                 if (qn := self.ev.method(cls, name)) is not None)
            return frozenset(found)

        return self._bodies.get("bodies", find)

    def _site(self, facts: FileFacts, site: Site) -> Iterator[Match]:
        func = site.func
        if site.kind != "assign" and func[0] == "attr" and self.forms.excluded and self._excluded(
                facts, site, func[1], func[2]):
            return
        for shape in self._keyed:
            yield from shape.match(self, facts, site)
        if site.kind != "assign" and self.forms.callee:
            yield from self._callee(facts, site)

    def _excluded(self, facts: FileFacts, site: Site, receiver: Ref, method: str) -> bool:
        """A call the packs list as never a registration (``atexit.register``, ...)."""
        for value in self.ev.eval(receiver, facts.module, site.scope):
            if value[0] in ("mod", "ext", "inst", "cls", "extcall"):
                if f"{value[1]}.{method}" in self.forms.excluded:
                    return True
        return False

    def _callee(self, facts: FileFacts, site: Site) -> Iterator[Match]:
        """Forms matched by what the call resolves to, in pack order."""
        callee: set[str] | None = None
        for mech, form in self.forms.callee:
            shape = shape_of(form.kind)
            assert isinstance(shape, CalleeShape)
            if not shape.applies(site, form):
                continue
            if callee is None:
                callee = self.identity.callee_ids(self.ev.eval(site.func, facts.module, site.scope))
            hit = callee & self.identity.ids(shape.callables(form))
            if hit:
                yield from shape.match_callee(self, facts, site, mech, form, sorted(hit)[0])

    def _config(self, facts: FileFacts, hook: ConfigHook) -> Iterator[Match]:
        """An external hook command in a settings file (ADR-0120 D6)."""
        for mech in self.forms.mechanisms:
            if not any(c.key == hook.key_path for c in mech.config):
                continue
            shell = isinstance(hook.command, str)
            text = hook.command if shell else " ".join(map(str, hook.command))
            line, col, end_line, end_col = hook.span or (hook.line, 0, hook.line, 0)
            site = Site(kind="config", line=line, col=col, scope="", func=("other", "config"),
                        text=hook.key_path, end_line=end_line, end_col=end_col)
            form = RegistrationForm(kind="config", name=hook.key_path)
            evidence = [f"{hook.key_path}.{hook.event} command in {facts.path}",
                        "a shell string: the runtime requires argv (ADR-0120 D6)" if shell
                        else "argv, never reaches a shell"]
            yield self.build.match(facts, site, mech, form, f"{hook.key_path}.{hook.event}",
                                   hook.event, None, Handler(text, None, None, None, "process"),
                                   "high", evidence, [])
            return
