"""Look-alikes: calls spelled like a registration API whose receiver is something else.

Every test scans with the built-in lionagi pack and the demo pack together, so the vocabulary
holds ``register``, ``on``, ``observe``, ``subscribe``, ``emit`` and the rest: the look-alikes get
past the prefilter and must be rejected by name resolution.
"""

from __future__ import annotations

from pathlib import Path

from .helpers import line_of, regs, scan_tree, show


def scan(tmp_path: Path, files: dict[str, str]):
    return scan_tree(tmp_path, files, builtin=True)


def assert_nothing_in(result, rel: str) -> None:
    assert regs(result, file=rel) == [], show(result)


def test_sqlite3_connect_is_not_a_registration(tmp_path: Path) -> None:
    app = """
    import sqlite3
    from sqlite3 import connect as open_db


    def trace(statement):
        print(statement)


    conn = sqlite3.connect(":memory:", factory=sqlite3.Connection)
    conn.set_trace_callback(trace)
    other = open_db("app.db")
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")
    assert result.errors == ()


def test_argparse_register_is_not_a_registration(tmp_path: Path) -> None:
    app = """
    import argparse
    from argparse import ArgumentParser as Parser


    def parse_hex(text):
        return int(text, 16)


    class Upper(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            setattr(namespace, self.dest, values.upper())


    parser = argparse.ArgumentParser()
    parser.register("type", "hex", parse_hex)
    parser.register("action", "upper", Upper)
    sub = parser.add_subparsers().add_parser("run")
    sub.register("type", "hex", parse_hex)
    Parser().register("type", name="hex", value=parse_hex)


    def configure(p: argparse.ArgumentParser) -> None:
        p.register("type", "hex", parse_hex)
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")


def test_atexit_register_is_not_a_registration(tmp_path: Path) -> None:
    app = """
    import atexit
    import atexit as ae
    from atexit import register


    def flush():
        pass


    atexit.register(flush)
    ae.register(flush)
    register(flush)


    @atexit.register
    def goodbye():
        pass
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")


def test_signal_signal_is_not_a_registration(tmp_path: Path) -> None:
    app = """
    import signal


    def on_term(signum, frame):
        raise SystemExit(0)


    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, lambda s, f: None)
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")


EMITTER = """
class Emitter:
    '''A home-grown emitter no pack describes.'''

    def __init__(self):
        self._subs = {}

    def on(self, name, callback):
        self._subs.setdefault(name, []).append(callback)

    def observe(self, *names, handler=None):
        for name in names:
            self.on(name, handler)

    def subscribe(self, callback):
        self.on("*", callback)

    def register(self, name, callback):
        self.on(name, callback)
"""


def test_unrelated_class_methods_with_registration_names_are_not_registrations(
    tmp_path: Path,
) -> None:
    app = """
    from emitter import Emitter


    def changed(value):
        print(value)


    class Widget:
        def __init__(self):
            self.events = Emitter()

        def bind(self):
            self.events.on("x", changed)
            self.events.observe("x", "y", handler=changed)
            self.events.subscribe(changed)
            self.events.register("z", changed)


    em = Emitter()
    em.on("x", changed)
    em.observe("x", handler=changed)
    em.subscribe(lambda v: None)
    """
    result = scan(tmp_path, {"emitter.py": EMITTER, "app.py": app})
    assert_nothing_in(result, "app.py")
    assert_nothing_in(result, "emitter.py")


def test_external_library_subscribe_is_not_a_registration(tmp_path: Path) -> None:
    app = """
    import asyncio

    import reactivex


    def show(value):
        print(value)


    reactivex.of(1, 2, 3).subscribe(show)
    loop = asyncio.get_event_loop()
    loop.call_soon(show, 1)
    future = loop.create_future()
    future.add_done_callback(show)
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")


def test_logging_handler_emit_override_is_neither_registration_nor_emission(
    tmp_path: Path,
) -> None:
    app = """
    import logging


    class ListHandler(logging.Handler):
        def __init__(self):
            super().__init__()
            self.records = []

        def emit(self, record):
            self.records.append(record)


    class Loud(ListHandler):
        def emit(self, record):
            super().emit(record)
            print(record.getMessage())


    handler = Loud()
    logging.getLogger().addHandler(handler)
    handler.emit(logging.makeLogRecord({"msg": "hi"}))
    """
    result = scan(tmp_path, {"app.py": app})
    assert_nothing_in(result, "app.py")
    assert [e for e in result.emissions if e.file == "app.py"] == []


def test_real_dispatcher_is_found_beside_look_alikes_in_the_same_file(tmp_path: Path) -> None:
    app = """
    import argparse
    import atexit

    from demo.bus import EventBus, Point
    from emitter import Emitter


    def guard(**payload):
        return True


    em = Emitter()
    em.on("x", guard)
    em.subscribe(guard)
    bus = EventBus()
    bus.on(Point.BEFORE, guard)
    bus.subscribe(guard)
    argparse.ArgumentParser().register("type", "guard", guard)
    atexit.register(guard)
    """
    result = scan(tmp_path, {"emitter.py": EMITTER, "app.py": app})
    found = sorted(
        (r.line, r.mechanism, r.api, r.point, r.plane) for r in regs(result, file="app.py")
    )
    assert found == [
        (line_of(app, "bus.on("), "demo_bus", "on", "BEFORE", "interceptor"),
        (line_of(app, "bus.subscribe("), "demo_bus", "subscribe", None, "subscriber"),
    ], show(result)


POSTGIS_SHAPES = """
class DatabaseWrapper:
    def __init__(self):
        self._type_infos = {}

    def register_geometry_adapters(self, pg_connection, clear_caches=False):
        if clear_caches:
            self._type_infos.clear()
        for typename in ("geometry", "geography"):
            self._register_type(pg_connection, typename)

    def _register_type(self, pg_connection, typename):
        registry = self._type_infos[typename]
        info = registry[pg_connection]
        info.register(pg_connection)

    def install(self, registry, name, adapter):
        registry.register(name, adapter)
"""


def test_a_package_never_imported_is_not_guessed_at(tmp_path: Path) -> None:
    # Django's PostGIS backend: `register` on a dynamic receiver and a helper handed an untyped
    # registry are lionagi's `register` forms only where lionagi is in play
    result = scan_tree(tmp_path, {"gis/base.py": POSTGIS_SHAPES}, packs=(), builtin=True,
                       demo=False)
    assert_nothing_in(result, "gis/base.py")


def test_a_file_importing_the_package_keeps_its_guesses(tmp_path: Path) -> None:
    source = "from lionagi.service.hooks import HookRegistry  # noqa: F401\n" + POSTGIS_SHAPES
    result = scan_tree(tmp_path, {"gis/base.py": source}, packs=(), builtin=True, demo=False)
    flags = {flag for reg in regs(result, file="gis/base.py") for flag in reg.flags}
    assert {"dynamic_receiver", "unresolved_receiver"} <= flags, show(result)
