"""PS102 unwired_error_hook: stored failure callbacks nothing invokes, and what feeds them."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import line_of, scan_tree

# A toolkit whose on_error stores hooks nobody calls, and a spec whose "error:" bucket is routed
# only to that toolkit: the lionagi shape (AgentSpec.on_error -> CodingToolkit._error_hooks).
KIT = """
    from collections.abc import Callable


    class Toolkit:
        def __init__(self) -> None:
            self._pre: dict[str, list[Callable]] = {}
            self._errors: dict[str, list[Callable]] = {}

        def pre(self, tool: str, handler: Callable) -> None:
            self._pre.setdefault(tool, []).append(handler)

        def on_error(self, tool: str, handler: Callable) -> None:
            self._errors.setdefault(tool, []).append(handler)

        def run(self, tool: str, args: dict) -> None:
            for handler in self._pre.get(tool, []):
                handler(args)


    class Spec:
        def __init__(self) -> None:
            self.hooks: dict[str, list[Callable]] = {}

        def on_error(self, tool: str, handler: Callable) -> "Spec":
            self.hooks.setdefault(f"error:{tool}", []).append(handler)
            return self


    def build(spec: Spec) -> Toolkit:
        kit = Toolkit()
        for key, handlers in spec.hooks.items():
            phase, tool = key.split(":", 1)
            for handler in handlers:
                if phase == "pre":
                    kit.pre(tool, handler)
                elif phase == "error":
                    kit.on_error(tool, handler)
        return kit
    """

PACK = """\
pack: kit
mechanisms:
  - id: kit_hooks
    dispatcher: app.kit.Toolkit
    register:
      - method: on_error
        handler: {arg: 1, keyword: handler}
        fixed_point: ERROR
      - method: pre
        handler: {arg: 1, keyword: handler}
        fixed_point: PRE
    classify:
      - plane: interceptor
        because: ADR-0120 D4 - tool hooks run inside the owner.
  - id: spec_hooks
    dispatcher: app.kit.Spec
    register:
      - method: on_error
        handler: {arg: 1, keyword: handler}
        fixed_point: ERROR
    classify:
      - plane: needs_review
        because: ADR-0120 D7 - error hooks are wired or deprecated.
"""

USER = """
    from app.kit import Spec, build


    def log(exc):
        print(exc)


    spec = Spec().on_error("bash", log)
    """


def _scan(tmp_path: Path, files: dict[str, str]):
    pack = tmp_path / "kit.yaml"
    pack.write_text(PACK)
    return scan_tree(tmp_path / "tree", files, packs=[pack], demo=False)


def _found(result) -> list[tuple[str, int]]:
    return [(f.file, f.line) for f in result.findings if f.rule == "PS102"]


def _flagged(result) -> list[tuple[str, int, str]]:
    return [(r.file, r.line, r.mechanism) for r in result.registrations
            if "unwired_error_hook" in r.flags]


def test_a_bucket_routed_only_into_an_unwired_store_is_unwired_too(tmp_path: Path) -> None:
    result = _scan(tmp_path, {"app/kit.py": KIT, "app/main.py": USER})
    # _errors is no error-hook name: it is found through on_error's handler parameter
    assert _found(result) == [("app/kit.py", line_of(KIT, "self._errors.setdefault")),
                              ("app/kit.py", line_of(KIT, 'f"error:{tool}"'))]
    assert _flagged(result) == [("app/kit.py", line_of(KIT, "kit.on_error(tool"), "kit_hooks"),
                                ("app/main.py", line_of(USER, "on_error("), "spec_hooks")]
    spec = next(f for f in result.findings if f.line == line_of(KIT, 'f"error:{tool}"'))
    assert spec.message == ("Spec.hooks (its 'error' keys) stores error hooks but nothing in "
                            "the project invokes them; registered at app/main.py:8")
    assert spec.mechanism == "spec_hooks"


def test_wiring_the_downstream_store_wires_the_bucket_that_feeds_it(tmp_path: Path) -> None:
    wired = KIT.replace("        def run(self, tool: str, args: dict) -> None:",
                        "        def fail(self, tool: str, exc: Exception) -> None:\n"
                        "            for handler in self._errors.get(tool, []):\n"
                        "                handler(exc)\n\n"
                        "        def run(self, tool: str, args: dict) -> None:")
    result = _scan(tmp_path, {"app/kit.py": wired, "app/main.py": USER})
    assert _found(result) == [] and _flagged(result) == []


def test_a_helper_handed_the_key_reads_the_bucket(tmp_path: Path) -> None:
    helper = KIT + """

    def hooks_for(spec: Spec, phase: str, tool: str) -> list:
        return spec.hooks.get(f"{phase}:{tool}", [])


    def fail(spec: Spec, tool: str, exc: Exception) -> None:
        for handler in hooks_for(spec, "error", tool):
            handler(exc)
    """
    result = _scan(tmp_path, {"app/kit.py": helper, "app/main.py": USER})
    assert _found(result) == [("app/kit.py", line_of(KIT, "self._errors.setdefault"))]
    assert [r[2] for r in _flagged(result)] == ["kit_hooks"]


def test_a_comparison_whose_branch_calls_the_hooks_wires_the_bucket(tmp_path: Path) -> None:
    calls = KIT.replace("                    kit.on_error(tool, handler)",
                        "                    handler(None)")
    result = _scan(tmp_path, {"app/kit.py": calls, "app/main.py": USER})
    assert ("app/kit.py", line_of(KIT, 'f"error:{tool}"')) not in _found(result)


def test_a_failure_callback_parameter_stored_under_any_name(tmp_path: Path) -> None:
    source = """
        from collections.abc import Callable


        class Uploader:
            def __init__(self, on_failure: Callable | None = None, retry_hook=None) -> None:
                self._notify = on_failure or print
                self._retry = retry_hook

            def set_error_handler(self, fn: Callable) -> None:
                self._handlers = [fn]
        """
    result = scan_tree(tmp_path, {"app/up.py": source}, demo=False, packs=())
    # retry_hook is a hook but no failure callback; the other two are never called
    assert _found(result) == [("app/up.py", line_of(source, "self._notify")),
                              ("app/up.py", line_of(source, "self._handlers"))]


def test_calling_the_stored_callback_anywhere_wires_it(tmp_path: Path) -> None:
    source = """
        class Uploader:
            def __init__(self, on_failure=None) -> None:
                self._notify = on_failure


        def upload(up: Uploader) -> None:
            try:
                pass
            except OSError as exc:
                up._notify(exc)
        """
    result = scan_tree(tmp_path, {"app/up.py": source}, demo=False, packs=())
    assert _found(result) == []
