"""Assignments that register nothing new are left alone by the registration codemod: a handler
put back from where it was saved (in a ``finally``), copied from the slot it already sits in, or
a value that is not callable. Wrapping them would change what they do (a restore that raises
``PolicyError`` in a ``finally`` masks the exception in flight)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from analyzer.helpers import DEMO_FILES, write_tree

from planeshift.analyzer.extract.pass_through import pass_through

from .helpers import DEMO_PACK, run

APP = '''\
from demo.bus import EventBus

UNSET = object()


def allow(event):
    return True


def guarded(bus: EventBus, other: EventBus) -> None:
    saved = bus.gate
    bus.gate = allow
    try:
        bus.emit("x")
    finally:
        bus.gate = saved
    other.gate = bus.gate
    other.gate = UNSET
'''


def test_restores_copies_and_sentinels_stay_as_they_are_and_say_why(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": APP})
    result = run(tmp_path, ("registration",))
    text = (tmp_path / "app.py").read_text()
    lines = text.splitlines()
    assert "bus.gate = saved" in lines[-3] and "other.gate = bus.gate" in lines[-2]
    assert lines[-1] == "    other.gate = UNSET"
    assert "allow" in text and "as_interceptor(" in text  # the real registration is rewritten
    reasons = {n.line: n.reason for n in result.not_migrated}
    assert reasons[16].startswith("puts back the handler saved from `gate` (saved = bus.gate)")
    assert reasons[17].startswith("copies the handler `gate` already holds (bus.gate)")
    assert reasons[18] == "UNSET is not callable (UNSET = object())"


def _why(source: str, handler: str, scope: str = "f", resolved: bool = False) -> str:
    import ast

    return pass_through("cb", handler, resolved, scope, ast.parse(dedent(source)))


def test_a_name_bound_otherwise_is_a_registration() -> None:
    assert _why("def f(h):\n    m.cb = h\n", "h") == ""  # a parameter: anything
    assert _why("def f():\n    for h in hs:\n        m.cb = h\n", "h") == ""  # a loop target
    assert _why("def f():\n    h = make()\n    m.cb = h\n", "h") == ""  # a call's result
    assert _why("def f():\n    h = m.cb\n    h = other\n    m.cb = h\n", "h") == ""  # mixed
    assert _why("def f():\n    global h\n    h = m.cb\n    m.cb = h\n", "h") == ""


def test_a_resolved_handler_spelled_like_the_slot_is_a_registration() -> None:
    # `Service(cb=self.cb)` handing on the class's own method `cb` registers it
    assert _why("class S:\n    def cb(self): ...\n", "self.cb", "S.__init__", resolved=True) == ""
    assert _why("", "self.cb", "S.__init__").startswith("copies the handler `cb`")
    assert _why("", "getattr(x, 'cb', None)", "").startswith("copies the handler `cb`")


def test_a_module_sentinel_is_seen_from_inside_a_function() -> None:
    source = "MISSING = object()\n\ndef f():\n    m.cb = MISSING\n"
    assert _why(source, "MISSING") == "MISSING is not callable (MISSING = object())"
    shadowed = "MISSING = object()\n\ndef f(MISSING):\n    m.cb = MISSING\n"
    assert _why(shadowed, "MISSING") == ""


def test_the_scan_flags_them_so_lint_and_the_discard_gate_leave_them_alone(tmp_path: Path) -> None:
    """The restore, the copy and the sentinel stay in the inventory, flagged ``pass_through``
    with the reason; PS101 skips a flagged registration (the handler's own site carries it)."""
    from planeshift import api
    from planeshift.config import Config

    write_tree(tmp_path, {**DEMO_FILES, "app.py": APP})
    scan = api.scan(Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False,
                           jobs=1))
    flagged = {r.line: r for r in scan.registrations
               if r.file == "app.py" and "pass_through" in r.flags}
    assert sorted(flagged) == [16, 17, 18]
    assert any(e.startswith("registers nothing new: puts back the handler saved from `gate`")
               for e in flagged[16].evidence)
    assert not [r for r in scan.registrations if r.file == "app.py" and r.line == 14
                and "pass_through" in r.flags]  # `bus.gate = allow` registers
    assert not [f for f in scan.findings if f.rule == "PS101" and f.file == "app.py"
                and f.line in flagged]
