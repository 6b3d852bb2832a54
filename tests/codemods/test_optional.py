"""Codemod `registration`: a handler the scan cannot show to be callable (it may be None at run
time, or its kind is unknown) is rewritten in the optional form, which hands None on as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

from planeshift.api import scan
from planeshift.codemods.support.names import ModuleNames
from planeshift.codemods.support.templates import Template
from planeshift.config import Config

from .helpers import check_transformed, dedent, flat, run

ONLY = ("registration",)
MAYBE_NONE = '''
    from demo.bus import EventBus, Point


    def log(**payload):
        return None


    def hooks_for(name):
        if not name:
            return None
        return log


    class Wiring:
        def __init__(self, bus: EventBus, on_event=None, verbose=False):
            self.listener = on_event
            bus.subscribe(on_event)
            bus.on(Point.BEFORE, log if verbose else None)
            bus.gate = self.listener


    bus = EventBus()
    bus.on(Point.AFTER, hooks_for(__name__))
    '''


def test_handlers_that_may_be_none_or_of_unknown_kind_are_rewritten_through_optional(
        tmp_path: Path) -> None:
    result = check_transformed(tmp_path, MAYBE_NONE, '''
        from planeshift.kernels import InterceptorRegistration
        from planeshift.kernels.adapters import (
            Subscription,
            as_interceptor,
            as_subscriber,
            optional,
        )

        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        def hooks_for(name):
            if not name:
                return None
            return log


        class Wiring:
            def __init__(self, bus: EventBus, on_event=None, verbose=False):
                self.listener = on_event
                bus.subscribe(
                    optional(
                        on_event,
                        lambda handler: as_subscriber(
                            Subscription(
                                name="app.Wiring.__init__.on_event",
                                policy="demo_bus",
                                handler=handler,
                            )
                        ),
                    )
                )
                bus.on(
                    Point.BEFORE,
                    optional(
                        log if verbose else None,
                        lambda handler: as_interceptor(
                            InterceptorRegistration(
                                name="app.log", stage="BEFORE", handler=handler, order=0
                            )
                        ),
                    ),
                )
                bus.gate = optional(
                    self.listener,
                    lambda handler: as_interceptor(
                        InterceptorRegistration(
                            name="app.Wiring.__init__.self.listener",
                            stage="GATE",
                            handler=handler,
                            order=0,
                        )
                    ),
                )


        bus = EventBus()
        bus.on(
            Point.AFTER,
            optional(
                hooks_for(__name__),
                lambda handler: as_subscriber(
                    Subscription(name="app.log", policy="demo_bus", handler=handler)
                ),
            ),
        )
        ''', ONLY)  # check_transformed runs it twice: the second run changes nothing
    assert [m.line for m in result.migrated] == [17, 18, 19, 23]
    assert all(m.action.endswith("; through optional, as the handler may be None at run time "
                                 "(None is handed on as before)") for m in result.migrated)
    assert result.not_migrated == ()


def test_a_scan_of_the_optional_form_reads_each_registration_as_before(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": dedent(MAYBE_NONE)})
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1)

    def facts() -> list[str]:
        return sorted(repr((r.mechanism, r.point, r.plane, r.confidence, r.flags, r.handler.kind,
                            r.handler.qualname, r.handler.may_be_none, r.handler.declared_async))
                      for r in scan(config).registrations if r.file == "app.py")

    before = facts()
    assert any(", True, False)" in f for f in before)  # may be None
    assert any("'unknown', None" in f for f in before)
    run(tmp_path, ONLY)
    assert "optional(" in (tmp_path / "app.py").read_text()
    assert facts() == before
    assert run(tmp_path, (), check=True, write=False).changes == ()


BEHAVIOUR = '''
    from demo.bus import EventBus, Point


    def install(bus: EventBus, handler=None):
        bus.subscribe(handler)
        bus.on(Point.AFTER, handler)
        bus.gate = handler
        return bus
    '''
PROBE = """
import app
from demo.bus import EventBus

def audit(**payload):
    return None

def shown(h):
    return "audit" if h is audit else "None" if h is None else type(h).__name__

for handler in (None, audit):
    bus = app.install(EventBus(), handler)
    print([shown(h) for h in bus._subscribers],
          {p.name: [shown(h) for h in hs] for p, hs in bus._table.items()}, shown(bus.gate))
"""


def test_the_optional_form_leaves_the_dispatcher_as_it_was_with_none_and_with_a_callable(
        tmp_path: Path) -> None:
    # the adapters hand on the original object: the bus holds None, or audit itself, as before
    states = {}
    for name in ("legacy", "migrated"):
        root = tmp_path / name
        write_tree(root, {**DEMO_FILES, "app.py": dedent(BEHAVIOUR)})
        if name == "migrated":
            assert len(run(root, ONLY).migrated) == 3
            text = flat((root / "app.py").read_text())
            assert text.count("optional(handler, lambda handler: ") == 3
        done = subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        states[name] = done.stdout
    assert states["migrated"] == states["legacy"]
    assert states["legacy"].splitlines() == [
        "['None'] {'BEFORE': [], 'AFTER': [], 'NEVER_EMITTED': []} None",
        "['audit'] {'BEFORE': [], 'AFTER': ['audit'], 'NEVER_EMITTED': []} audit"]


def test_a_non_callable_value_now_fails_at_registration(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": dedent(BEHAVIOUR)})
    run(tmp_path, ONLY)
    probe = ("import app\nfrom demo.bus import EventBus\n"
             "from planeshift.kernels import PolicyError\n"
             "try:\n    app.install(EventBus(), 42)\nexcept PolicyError as exc:\n"
             "    print('PolicyError', 'callable' in str(exc))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "PolicyError True"


def test_a_module_binding_optional_itself_imports_the_adapter_under_an_alias(
        tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        def optional(value):
            return value


        def wire(bus: EventBus, on_event=None):
            bus.subscribe(on_event)
        ''', '''
        from planeshift.kernels.adapters import Subscription, as_subscriber
        from planeshift.kernels.adapters import optional as _optional

        from demo.bus import EventBus


        def optional(value):
            return value


        def wire(bus: EventBus, on_event=None):
            bus.subscribe(
                _optional(
                    on_event,
                    lambda handler: as_subscriber(
                        Subscription(
                            name="app.wire.on_event", policy="demo_bus", handler=handler
                        )
                    ),
                )
            )
        ''', ONLY)


def test_the_lambda_parameter_avoids_every_name_the_template_reads() -> None:
    template = Template("wrap(handler, Reg(name={name}, handler={handler}))",
                        (("wrap", "k.adapters"), ("Reg", "k.adapters")))
    assert template.parameter() == "handler_1"
    rendered = template.render_optional(cst.Name("h"), {"name": "n"}, template.parameter())
    text = cst.Module([]).code_for_node(rendered)
    assert text == 'optional(h, lambda handler_1: wrap(handler, Reg(name="n", handler=handler_1)))'
    names = ModuleNames({"wrap": "k.adapters.wrap", "Reg": "k.adapters.Reg",
                         "optional": "k.adapters.optional"}, None, "")  # type: ignore[arg-type]
    assert template.handler_in(rendered, names).value == "h"
    assert template.registered_in(rendered, names).value == "handler_1"
    other = cst.parse_expression("optional(h, lambda p: wrap(handler, Reg(name='n', handler=q)))")
    assert template.handler_in(other, names) is None  # the lambda must hand on its parameter
