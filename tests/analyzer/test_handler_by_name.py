"""A handler ``x.meth`` whose receiver has no type (``x: Any``) is taken to be the one method of
that name in view, when no other function anywhere has the name: its facts (declared async, may
return an awaitable) then decide the hazards, and the evidence says how it was found."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import scan_tree

WIRE = '''
from typing import Any

from demo.bus import EventBus


def wire(bus: EventBus, recorder: Any) -> None:
    bus.subscribe(recorder.on_recorded)
'''
RECORDER = '''
class Recorder:
    async def on_recorded(self, event):
        return event
'''


def _handler(tmp_path: Path, files: dict[str, str]):
    result = scan_tree(tmp_path, {"app/wire.py": WIRE, **files})
    (reg,) = [r for r in result.registrations if r.file == "app/wire.py"]
    return reg


def test_the_only_method_of_the_name_is_the_handler(tmp_path: Path) -> None:
    reg = _handler(tmp_path, {"app/recorder.py": RECORDER})
    assert (reg.handler.qualname, reg.handler.kind, reg.handler.declared_async,
            reg.handler.by_name) == ("app.recorder.Recorder.on_recorded", "method", True, True)
    assert any("its receiver has no type; app.recorder.Recorder.on_recorded is the only function "
               "of that name in view" in e for e in reg.evidence)
    assert reg.handler.to_json()["by_name"] is True


def test_two_functions_of_the_name_leave_it_unknown(tmp_path: Path) -> None:
    other = "def on_recorded(event):\n    return event\n"  # a module-level function counts too
    reg = _handler(tmp_path, {"app/recorder.py": RECORDER, "app/other.py": other})
    assert (reg.handler.qualname, reg.handler.kind, reg.handler.by_name) == (None, "unknown",
                                                                              False)
    assert "by_name" not in reg.handler.to_json()


def test_a_typed_receiver_is_resolved_as_always(tmp_path: Path) -> None:
    typed = WIRE.replace("from typing import Any\n", "from app.recorder import Recorder\n") \
        .replace("recorder: Any", "recorder: Recorder")
    result = scan_tree(tmp_path, {"app/wire.py": typed, "app/recorder.py": RECORDER})
    (reg,) = [r for r in result.registrations if r.file == "app/wire.py"]
    assert (reg.handler.qualname, reg.handler.by_name) == ("app.recorder.Recorder.on_recorded",
                                                           False)


def test_a_property_of_the_name_is_not_a_handler(tmp_path: Path) -> None:
    prop = "class Recorder:\n    @property\n    def on_recorded(self):\n        return None\n"
    reg = _handler(tmp_path, {"app/recorder.py": prop})
    assert (reg.handler.kind, reg.handler.by_name) == ("unknown", False)
