"""PS105 denial_by_exception: interceptors that deny or stop by raising."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree

BUS = """
    class Stop(Exception):
        pass


    class Guards:
        def __init__(self) -> None:
            self._guards = []
            self._observers = []

        def guard(self, handler) -> None:
            self._guards.append(handler)

        def observe(self, handler) -> None:
            self._observers.append(handler)

        async def run(self, call) -> None:
            for guard in self._guards:
                guard(call)
            for observer in self._observers:
                observer(call)
    """

PACK = """\
pack: guards
mechanisms:
  - id: guards
    dispatcher: app.bus.Guards
    denials: [app.bus.Stop]
    register:
      - method: guard
        handler: 0
      - method: observe
        handler: 0
    emit:
      - method: run
    classify:
      - when: {api: [guard]}
        plane: interceptor
        because: ADR-0120 D4 - a guard may veto the call.
      - plane: subscriber
        because: ADR-0120 D1 - observation.
"""

ERRORS = """
    class Refused(PermissionError):
        pass
    """

USER = """
    from app.bus import Guards, Stop
    from app.errors import Refused as Denied


    def no_rm(call):
        if call == "rm":
            raise Denied("no rm")


    def enough(call):
        if call == "stop":
            raise Stop


    def picky(call):
        def helper():
            raise PermissionError("not the handler's own raise")
        if not call:
            raise ValueError("no call")


    def watch(call):
        raise PermissionError("a subscriber's raise denies nothing")


    guards = Guards()
    guards.guard(no_rm)
    guards.guard(enough)
    guards.guard(picky)
    guards.observe(watch)
    guards.guard(no_rm if guards else picky)
    """


def _scan(tmp_path: Path, user: str = USER):
    tmp_path.mkdir(exist_ok=True)
    pack = tmp_path / "guards.yaml"
    pack.write_text(PACK)
    return scan_tree(tmp_path / "tree", {"app/bus.py": BUS, "app/errors.py": ERRORS,
                                         "app/main.py": user}, packs=[pack], demo=False)


def test_a_permission_error_subclass_and_a_pack_named_stop(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    found = {(f.line, f.message.split(" instead")[0]) for f in result.findings
             if f.rule == "PS105"}
    assert found == {
        (line_of(USER, 'raise Denied("no rm")'),
         "no_rm denies by raising Denied (a PermissionError)"),
        (line_of(USER, "raise Stop"), "enough stops by raising Stop"),
    }
    flagged = [r.line for r in result.registrations if "denial_by_exception" in r.flags]
    assert flagged == [line_of(USER, "guards.guard(no_rm)"), line_of(USER, "guards.guard(enough)")]


def test_one_of_several_callables_counts_only_when_each_denies(tmp_path: Path) -> None:
    both = USER.replace("guards.guard(no_rm if guards else picky)",
                        "guards.guard(no_rm if guards else enough)")
    result = _scan(tmp_path, both)
    last = line_of(both, "guards.guard(no_rm if guards else enough)")
    assert last in [r.line for r in result.registrations if "denial_by_exception" in r.flags]
    first = _scan(tmp_path / "again")
    assert line_of(USER, "guards.guard(no_rm if guards else picky)") not in [
        r.line for r in first.registrations if "denial_by_exception" in r.flags]


HELPED = """
    from app import checks
    from app.bus import Guards


    class Policy:
        def _ensure(self, call):
            if call == "rm":
                raise PermissionError("no rm")

        async def handle(self, call):
            self._ensure(call)
            return None

        def safe(self, call):
            try:
                self._ensure(call)
            except OSError:  # a PermissionError is an OSError: turned into a decision here
                return {"deny": True}
            return None


    def _quiet(call):
        try:
            raise PermissionError("caught where it is raised")
        except PermissionError:
            return None


    def via_module(call):
        return checks.ensure(call)


    def via_quiet(call):
        _quiet(call)


    policy = Policy()
    guards = Guards()
    guards.guard(policy.handle)
    guards.guard(policy.safe)
    guards.guard(via_module)
    guards.guard(via_quiet)
    """
CHECKS = """
    def ensure(call):
        if not call:
            raise PermissionError("empty")
    """


def test_a_function_the_handler_calls_denies_for_it_unless_a_try_catches_it(
        tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    pack = tmp_path / "guards.yaml"
    pack.write_text(PACK)
    result = scan_tree(tmp_path / "tree", {"app/bus.py": BUS, "app/checks.py": CHECKS,
                                           "app/main.py": HELPED}, packs=[pack], demo=False)
    found = {(f.file, f.line, f.message.split(" instead")[0]) for f in result.findings
             if f.rule == "PS105"}
    assert found == {
        ("app/main.py", line_of(HELPED, 'raise PermissionError("no rm")'),
         f"handle denies by raising PermissionError in _ensure (called at app/main.py:"
         f"{line_of(HELPED, 'self._ensure(call)')})"),
        ("app/checks.py", line_of(CHECKS, 'raise PermissionError("empty")'),
         f"via_module denies by raising PermissionError in ensure (called at app/main.py:"
         f"{line_of(HELPED, 'return checks.ensure(call)')})"),
    }
    flagged = [r.line for r in result.registrations if "denial_by_exception" in r.flags]
    assert flagged == [line_of(HELPED, "guards.guard(policy.handle)"),
                       line_of(HELPED, "guards.guard(via_module)")]
