"""PS104 gate_suppresses_audit: a gate returning before durable subscribers, and a swallowed raise."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree

# SessionObserver's shape: the gate's raise becomes a denial, and a denial returns early.
BUS = """
    class Observer:
        def __init__(self) -> None:
            self._gate = None
            self._subs = []

        def gate(self, check) -> None:
            self._gate = check

        def observe(self, handler) -> None:
            self._subs.append(handler)

        def persist(self, handler) -> None:
            self._subs.append(handler)

        def _ready(self) -> bool:
            return True

        async def emit(self, event) -> list:
            allowed = True
            if self._gate is not None:
                try:
                    allowed = bool(self._gate(event))
                except Exception:
                    allowed = False
            if not allowed:
                return []
            for handler in self._subs:
                handler(event)
            return []
    """

PACK = """\
pack: obs
mechanisms:
  - id: obs
    dispatcher: app.obs.Observer
    register:
      - method: observe
        handler: 0
      - method: persist
        handler: 0
      - method: gate
        handler: 0
        fixed_point: GATE
    emit:
      - method: emit
    classify:
      - when: {api: [persist]}
        plane: delivery_sink
        because: ADR-0120 D5 - durable persistence.
      - when: {api: [gate]}
        plane: interceptor
        because: ADR-0120 D3 - the gate authorizes.
      - plane: subscriber
        because: ADR-0120 D1 - observation.
"""

USER = """
    from app.obs import Observer

    def audit(event):
        pass

    def show(event):
        pass

    obs = Observer()
    obs.observe(show)
    obs.persist(audit)
    """


def _scan(tmp_path: Path, bus: str = BUS, user: str = USER):
    pack = tmp_path / "obs.yaml"
    pack.write_text(PACK)
    return scan_tree(tmp_path / "tree", {"app/obs.py": bus, "app/main.py": user},
                     packs=[pack], demo=False)


def _found(result) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.severity) for f in result.findings if f.rule == "PS104"]


def test_a_swallowed_raise_and_an_early_return_silence_the_durable_sink(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    assert _found(result) == [
        ("app/main.py", line_of(USER, "obs.persist(audit)"), "warning"),
        ("app/obs.py", line_of(BUS, "except Exception:"), "error"),
        ("app/obs.py", line_of(BUS, "return []"), "warning"),
    ]
    flagged = [(r.file, r.line) for r in result.registrations if "gate_suppresses_audit" in r.flags]
    assert flagged == [("app/main.py", line_of(USER, "obs.persist(audit)"))]
    error = next(f for f in result.findings if f.severity == "error")
    assert error.message.startswith("Observer.emit turns a gate that raises (self._gate) into a "
                                    "denial and returns before it dispatches (line 27)")
    assert error.mechanism == "obs"


def test_without_a_durable_registration_nothing_is_suppressed(tmp_path: Path) -> None:
    assert _found(_scan(tmp_path, user=USER.replace("obs.persist(audit)\n", ""))) == []


def test_a_gate_that_propagates_its_raise_still_returns_early_on_a_denial(tmp_path: Path) -> None:
    bus = BUS.replace("""                try:
                    allowed = bool(self._gate(event))
                except Exception:
                    allowed = False
""", """                allowed = bool(self._gate(event))
""")
    assert [sev for _, _, sev in _found(_scan(tmp_path, bus))] == ["warning", "warning"]


def test_audit_before_the_gate_is_no_hazard(tmp_path: Path) -> None:
    bus = BUS.replace("""            allowed = True
""", """            for handler in self._subs:
                handler(event)
            allowed = True
""")
    assert _found(_scan(tmp_path, bus)) == []


def test_a_method_of_the_class_is_no_gate(tmp_path: Path) -> None:
    bus = BUS.replace("""            allowed = True
            if self._gate is not None:
                try:
                    allowed = bool(self._gate(event))
                except Exception:
                    allowed = False
            if not allowed:""", """            if not self._ready():""")
    assert _found(_scan(tmp_path, bus)) == []
