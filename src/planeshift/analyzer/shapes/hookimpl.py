"""``@hookimpl`` / ``@impl(tryfirst=True)`` on a function or method: a pluggy hook implementation,
registered with its plugin (a module or object handed to ``pm.register``, a conftest, an entry
point), not at a call. Also, with ``prefix``, a function named so without a marker (pytest reads
every ``pytest_*`` function of a plugin as an implementation); a module or class that marks any
of its functions with a spec marker declares hooks, and its functions are not implementations.
The point is the hook's name; the marker's options (``tryfirst``, ``trylast``, ``wrapper``,
``hookwrapper``, ``optionalhook``) are flags the classify rules may read. ``firstresult`` is one too: the hooks
the form names so (a library's specs not in view) and those the tree's specs mark so are flagged
in one place, when the candidates are classified (``api.firstresult_hooks``)."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from ...packs.model import Mechanism, RegistrationForm
from ..extract.facts import FileFacts, Function, Ref, Site
from ..extract.refs import render
from .base import Example, Matching, Shape, register

if TYPE_CHECKING:
    from ...packs.values import ValueReader
    from ..link.match.candidates import Match

OPTIONS = ("tryfirst", "trylast", "wrapper", "hookwrapper", "optionalhook")


@register
class HookimplShape(Shape):
    kind = "hookimpl"
    options = ("callable", "prefix", "spec", "firstresult", "plugins", "adds_specs")
    definitions = True
    MATCHES = [
        Example("""
            from demo.bus import HookimplMarker

            impl = HookimplMarker("demo")

            @impl(tryfirst=True)
            def demo_startup(config):
                config.ready = True

            def demo_shutdown(config):
                pass
            """, ((6, "hookimpl", "demo_startup", "demo_startup"),
                  (9, "hookimpl", "demo_shutdown", "demo_shutdown"))),
    ]
    LOOKALIKES = [
        Example("""
            from demo.bus import HookspecMarker

            spec = HookspecMarker("demo")

            @spec(firstresult=True)
            def demo_startup(config):
                pass

            def demo_shutdown(config):
                pass
            """),
    ]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]:
        prefix = data.get("prefix")
        if prefix is not None and not (isinstance(prefix, str) and prefix.isidentifier()):
            raise reader.fail(f"{key}.prefix", "expected the start of a function name")
        plugins = reader.method_names(data.get("plugins"), f"{key}.plugins")
        return {"prefix": prefix or "", "spec": reader.strings(data.get("spec"), f"{key}.spec"),
                "firstresult": reader.strings(data.get("firstresult"), f"{key}.firstresult"),
                "plugins": plugins,
                "adds_specs": reader.method_names(data.get("adds_specs"), f"{key}.adds_specs")}

    def words(self, form: RegistrationForm):
        # the implementations are matched on the definitions every file's facts hold; the calls
        # registering a plugin whole (`pm.register(module)`) are sites, read for activations
        return [("calls", name) for name in (*form.plugins, *form.adds_specs)]

    def match_definitions(self, m: Matching, facts: FileFacts, mech: Mechanism,
                          form: RegistrationForm) -> Iterator[Match]:
        spec = _Marker(m, facts, form.spec, form.spec)
        # the module or class holding a function marked as a spec declares hooks (pytest's
        # hookspec.py; a plugin's `class TimeoutHooks` of specs beside its implementations)
        declaring = {_scope(f) for f in facts.functions
                     if any(spec.marks(d, _scope(f)) for d in f.decorators)}
        impl = _Marker(m, facts, (form.name,), form.callables)
        for func in facts.functions:
            if func.kind not in ("function", "method", "staticmethod", "classmethod"):
                continue
            scope = _scope(func)
            if scope in declaring:
                continue
            marked = next((d for d in func.decorators if impl.marks(d, scope)), None)
            if marked is None and not (form.prefix and func.name.startswith(form.prefix)
                                       and func.name != f"{form.prefix}plugins"):
                continue
            flags = _options(marked) if marked is not None else []
            evidence = ([f"marked @{_spelled(marked)}, a {form.name.rsplit('.', 1)[-1]}"]
                        if marked is not None else
                        [f"named {form.prefix}*: an implementation without a marker"])
            point = _specname(marked) if marked is not None else None
            if point is not None:
                evidence.append(f"implements {point} (specname=), not a hook of its own name")
            site = Site(kind="decorator", line=func.line, col=0, scope=scope,
                        func=("name", func.name), text=func.name, decorated=func.qualname,
                        decorated_async=func.is_async, has_call=False, end_line=func.line,
                        end_col=0)
            handler = m.build.decorated(facts, site)
            yield m.build.match(facts, site, mech, form, "hookimpl", point or func.name, None,
                                handler, "high" if marked is not None else "medium", evidence,
                                flags)


class _Marker:
    """Which decorators are one kind of marker: an instance of one of the marker classes
    *classes* (``impl = HookimplMarker("x")``), a call of one, or a marker matching one of
    *names* (``pytest.hookimpl``, ``*.hookimpl``) where its code is not in view."""

    def __init__(self, m: Matching, facts: FileFacts, classes: tuple[str, ...],
                 names: tuple[str, ...]) -> None:
        self.m, self.facts = m, facts
        self.ids = m.identity.ids(classes)
        self.names = names
        self._seen: dict[tuple[Ref, str], bool] = {}

    def marks(self, decorator: Ref, scope: str) -> bool:
        """Does *decorator*, on a function defined in *scope*, mark it?"""
        key = (decorator, scope)
        if key not in self._seen:
            target = decorator[1] if decorator[0] == "call" else decorator
            values = self.m.ev.eval(target, self.facts.module, scope)
            made = decorator[0] == "call"  # `@HookimplMarker("x")`: a marker made on the spot
            self._seen[key] = any(
                (v[0] == "inst" and any(c in self.ids for c in self.m.ev.mro(v[1])))
                or (v[0] == "extcall" and v[1] in self.ids)
                or (made and v[0] == "ext" and v[1] in self.ids)
                or (made and v[0] == "cls" and any(c in self.ids for c in self.m.ev.mro(v[1])))
                or (v[0] in ("ext", "extcall") and any(fnmatchcase(v[1], n) for n in self.names))
                for v in values)
        return self._seen[key]


def _scope(func: Function) -> str:
    """Where a function is defined: its class, its enclosing function, or the module ("")."""
    return func.qualname.rpartition(".")[0]


def _options(decorator: Ref) -> list[str]:
    """The marker's options set true: ``@impl(tryfirst=True, wrapper=True)``."""
    if decorator[0] != "call":
        return []
    return [name for name, value in decorator[3] if name in OPTIONS and value == ("const", "True")]


def _specname(decorator: Ref) -> str | None:
    """The hook a marked function implements under another name: ``@impl(specname="x")``."""
    if decorator[0] != "call":
        return None
    return next((value[1] for name, value in decorator[3]
                 if name == "specname" and value[0] == "str"), None)


def _spelled(decorator: Ref) -> str:
    return render(decorator[1] if decorator[0] == "call" else decorator)
