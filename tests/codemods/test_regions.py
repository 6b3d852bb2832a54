"""Only the statements holding registrations (and the import block) are parsed by LibCST
(``support.regions``): the result is the one the whole module's parse gives, a module of
thousands of top-level statements is rewritten, and the whole-module path is still there."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest
from analyzer.helpers import DEMO_FILES, write_tree
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from planeshift.codemods.support import files as driver
from planeshift.codemods.model import MigrateResult
from planeshift.codemods.support import cutting, regions
from planeshift.codemods.support.imports import apply_imports

from .helpers import dedent, run

HEAD = "from demo.bus import EventBus, Point\n\n\ndef guard(**payload):\n    return None\n\n\n"

# each case: text around registrations in the odd places the regions must get right
CASES = {
    "plain": HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "import_after_code": "def guard(**payload):\n    return None\n\n\n"
                         "from demo.bus import EventBus, Point\nbus = EventBus()\n"
                         "bus.on(Point.BEFORE, guard)\n",
    "docstring": '"""Doc."""\n' + HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "comments_between": HEAD + "bus = EventBus()\n# one\n\n# two\nbus.on(Point.BEFORE, guard)"
                               "  # trailing\n# after\n",
    "footer_comment": HEAD + "bus = EventBus()\nif True:\n    x = 1\n    # the block's footer\n"
                             "bus.on(Point.BEFORE, guard)\n",
    "footer_of_registration": HEAD + "bus = EventBus()\nif True:\n    bus.on(Point.BEFORE, guard)\n"
                                     "    # footer\nx = 1\n",
    "semicolons": HEAD + "bus = EventBus(); y = 2; bus.on(Point.BEFORE, guard)\nz = 3\n",
    "decorated": HEAD + "bus = EventBus()\n\n\n@bus.subscribe\ndef audit(**payload):\n"
                        "    return None\n\n\nbus.on(Point.BEFORE, guard)\n",
    "no_final_newline": HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)",
    "crlf": (HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n").replace("\n", "\r\n"),
    "tabs_first": HEAD.replace("    return", "\treturn") + "bus = EventBus()\n"
                  "if True:\n    bus.on(Point.BEFORE, guard)\n",
    "star_import": HEAD + "from os.path import *\nbus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "shadowed": HEAD + "as_interceptor = 1\nbus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "nested": HEAD + "class A:\n    def f(self):\n        bus = EventBus()\n"
                     "        bus.on(Point.BEFORE, guard)\n        bus.subscribe(guard)\n",
    "form_feed_elsewhere": HEAD + "\x0cy = 1\nbus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "u2028_in_region": HEAD + "def setup():\n    note = 'a\u2028b'\n    bus = EventBus()\n"
                              "    bus.on(Point.BEFORE, guard)\n",
    "u2028_in_literal": HEAD + 'NOTE = "a\u2028b"\nbus = EventBus()\nbus.on(Point.BEFORE, guard)\n',
    "bound_in_a_function": HEAD + "def helper():\n    as_interceptor = 2\n    return 1\n\n\n"
                                  "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    "walrus_in_a_decorator": "from demo.bus import EventBus, Point\n\n\n"
                             "@(lambda f: f)(guard := print)\ndef g():\n    pass\n\n\n"
                             "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n",
    # a definition cut down to the statements of its body holding the registrations
    "in_a_function": HEAD + "def setup():\n    x = 1\n    bus = EventBus()\n\n    # why\n"
                     "    bus.on(Point.BEFORE, guard)\n    y = 2\n    return bus\n",
    "first_and_last_of_a_body": HEAD + "bus = EventBus()\n\n\ndef setup():  # note\n"
                                "    # before the first\n    bus.on(Point.BEFORE, guard)\n"
                                "    x = 1\n    bus.subscribe(guard)\n",
    "in_a_method": HEAD + "class Plugin:\n    \"\"\"Doc.\"\"\"\n\n    x = 1\n\n"
                   "    @staticmethod\n    def register(bus):\n        bus.on(Point.BEFORE, guard)\n"
                   "\n    def other(self):\n        return 2\n",
    "footer_inside_a_body": HEAD + "def setup(bus):\n    if bus:\n        x = 1\n"
                            "        # the inner block's footer\n    bus.on(Point.BEFORE, guard)\n"
                            "    return x\n",
    "shared_line_in_a_body": HEAD + "def setup(bus):\n    x = 1; bus.on(Point.BEFORE, guard)\n"
                             "    return x\n",
    "global_in_a_body": HEAD + "def setup(bus):\n    global spare\n    spare = 1\n"
                        "    bus.on(Point.BEFORE, guard)\n    return spare\n",
    "comment_between_statements": HEAD + "def setup(bus):\n    x = 1\n# flush left\n"
                                  "    bus.on(Point.BEFORE, guard)\n    return x\n",
    "two_far_apart": HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n"
                     + "".join(f"v{i} = {i}\n" for i in range(50)) + "bus.subscribe(guard)\n",
}


FALLS_BACK: set[str] = set()  # cases the regions' path hands to the whole module's


def _migrate(tmp_path: Path, text: str, whole: bool, monkeypatch: pytest.MonkeyPatch,
             wholly: list[str] | None = None) -> tuple[bytes, list[tuple]]:
    with monkeypatch.context() as patch:
        if whole:
            patch.setattr(driver, "regional", lambda *args: None)
        elif wholly is not None:
            real = driver._whole
            patch.setattr(driver, "_whole", lambda run, *args: wholly.append(run.rel) or real(
                run, *args))
        write_tree(tmp_path, {**DEMO_FILES, "app.py": b""})
        (tmp_path / "app.py").write_bytes(text.encode())
        result = run(tmp_path)
    outcomes = sorted((m.line, m.codemod, m.action) for m in result.migrated) + sorted(
        (n.line, n.codemod, n.reason, n.error) for n in result.not_migrated)
    return (tmp_path / "app.py").read_bytes(), outcomes


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_regions_give_what_the_whole_module_gives(tmp_path: Path, case: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[case]
    wholly: list[str] = []
    regional = _migrate(tmp_path / "regions", text, False, monkeypatch, wholly)
    whole = _migrate(tmp_path / "whole", text, True, monkeypatch)
    assert bool(wholly) == (case in FALLS_BACK), wholly
    assert regional[0] != text.encode(), regional[1]
    if case == "form_feed_elsewhere":  # LibCST would drop it: the whole module is refused
        assert whole[0] == text.encode() and "byte for byte" in whole[1][0][2]
        assert b"\n\x0cy = 1\n" in regional[0]
    else:
        assert regional == whole


@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c"])
def test_a_line_separator_in_a_literal_does_not_stop_the_layout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool, separator: str) -> None:
    """The layout pass numbers lines as Python does: with ``str.splitlines`` a separator inside
    a literal above the rewrite moved every line number below it by one, and the rewritten
    line, looked for on the line above, was left over the line length."""
    text = HEAD + f"def setup():\n    note = 'a{separator}b'\n    bus = EventBus()\n" \
                  "    bus.on(Point.BEFORE, guard)\n"
    new, outcomes = _migrate(tmp_path, text, whole, monkeypatch)
    assert [o[1] for o in outcomes] == ["registration"]
    assert max(len(line) for line in new.decode().split("\n")) <= 88, new.decode()


def test_a_large_module_is_parsed_by_libcst_only_where_it_is_rewritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Filler around two registrations: LibCST parses the import block and the two statements,
    not the module (a form feed starting a filler line, which LibCST would drop, stays)."""
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300))
    text = (HEAD + "bus = EventBus()\n" + filler + "bus.on(Point.BEFORE, guard)\n"
            + "\x0c" + filler + "bus.subscribe(guard)\n")
    result, new, sources = _migrate_parsed_by_libcst(tmp_path, text, monkeypatch)
    parsed = [len(source) for source in sources]
    assert len(result.migrated) == 2 and not result.failed, result.not_migrated
    assert new.count("as_interceptor(") == 1 and new.count("as_subscriber(") == 1
    assert "\n\x0cdef f0(x):" in new and filler in new
    assert parsed and max(parsed) < len(text) // 20, parsed


def _migrate_parsed_by_libcst(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
                              ) -> tuple[MigrateResult, str, list[str]]:
    """Migrate *text* as app.py: the result, the new text and every text LibCST parsed."""
    parsed: list[str] = []
    real = regions.cst.parse_module

    def counting(source: str, *args: object, **kwargs: object) -> cst.Module:
        parsed.append(source)
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(regions.cst, "parse_module", counting)
    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "app.py").write_text(text)
    result = run(tmp_path)
    return result, (tmp_path / "app.py").read_text(), parsed


def _flat_module(statements: int) -> str:
    body = "".join(f"value_{i} = {i}\n" for i in range(statements))
    return dedent('''
        """A flat module: a docstring and thousands of top-level statements."""
        from demo.bus import EventBus, Point
        from planeshift.kernels.adapters import Subscription


        def guard(**payload):
            return None


        bus = EventBus()
        ''') + body + "bus.on(Point.BEFORE, guard)\n"


def test_a_flat_module_of_thousands_of_statements_is_rewritten(tmp_path: Path) -> None:
    """LibCST's import adder matches the module body recursively, one frame a statement: with
    3,000 top-level statements it overflowed, and the file was `not written: nesting too deep
    to rewrite`."""
    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "app.py").write_text(_flat_module(3000))
    result = run(tmp_path)
    assert [m.codemod for m in result.migrated] == ["registration"], result.not_migrated
    new = (tmp_path / "app.py").read_text()
    assert "from planeshift.kernels import InterceptorRegistration\n" in new
    assert "from planeshift.kernels.adapters import Subscription, as_interceptor\n" in new


def test_imports_are_added_to_a_whole_module_of_thousands_of_statements() -> None:
    """The whole-module path (the fallback) adds imports through the same head-only adder."""
    tree = cst.parse_module(_flat_module(3000))
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, "planeshift.kernels", "InterceptorRegistration")
    AddImportsVisitor.add_needed_import(context, "demo.bus", "Subscription")
    new = apply_imports(context, tree).code
    assert new.startswith('"""A flat module: a docstring and thousands of top-level '
                          'statements."""\n'
                          "from demo.bus import EventBus, Point, Subscription\n"
                          "from planeshift.kernels.adapters import Subscription\n"
                          "from planeshift.kernels import InterceptorRegistration\n")
    assert new.endswith("value_2999 = 2999\nbus.on(Point.BEFORE, guard)\n")


def test_a_statement_added_outside_the_import_block_is_not_put_back_in_the_wrong_place() -> None:
    """Only import lines may be added (in the header): anything else would shift the regions'
    statements, so the regions refuse to render it and the whole module is parsed instead."""
    import ast

    text = CASES["two_far_apart"]
    lines = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith("bus.")]
    found = regions.regions_for(text, ast.parse(text), lines)
    assert isinstance(found, regions.Regions) and len(found.counts) == 3, found
    same, _ = found.render(found.module)
    assert same == text
    body = list(found.module.body)
    extra = cst.parse_statement("import os\n")
    with_import = found.module.with_changes(body=[body[0], extra, *body[1:]])
    assert found.render(with_import)[0] == text.replace(
        "import EventBus, Point\n", "import EventBus, Point\nimport os\n")
    moved = found.module.with_changes(body=[*body[:-1], cst.parse_statement("x = 1\n"),
                                            body[-1]])
    with pytest.raises(ValueError, match="outside the import block"):
        found.render(moved)


def test_after_an_edit_that_moved_lines_the_next_codemod_sees_the_whole_text_as_rendered() -> None:
    """A codemod whose edit moved lines hands the next one the whole module as rendered so far,
    and a locator at that text's lines, as the whole-module path does."""
    import ast

    text = CASES["two_far_apart"]
    lines = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith("bus.")]
    found = regions.regions_for(text, ast.parse(text), lines)
    assert isinstance(found, regions.Regions)
    body = list(found.module.body)
    taller = cst.parse_statement("bus.on(\n    Point.BEFORE,\n    guard,\n)\n")
    edited = found.module.with_changes(body=[*body[:-2], taller, body[-1]])
    source = found.source(edited, "app.py", None, moved=True)
    assert not found.failed
    assert source.text == text.replace("bus.on(Point.BEFORE, guard)\n",
                                       "bus.on(\n    Point.BEFORE,\n    guard,\n)\n")
    last = source.text.split("\n").index("bus.subscribe(guard)") + 1
    entry = source.locator.statement_at(last)
    assert entry is not None and source.code(entry.unit) == "bus.subscribe(guard)\n"
    call = source.locator.at(last, 0)
    assert call is not None and isinstance(call.nodes[0], cst.Call)


def _compiled_lengths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from planeshift.codemods.support import writer

    compiled: list[str] = []

    def recording(source: str, *args: object, **kwargs: object) -> object:
        compiled.append(source)
        return compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(writer, "compile", recording, raising=False)
    return compiled


def test_only_the_rewritten_statements_are_compiled(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The rest of the file is its own bytes: compiling the regions (the header first, for its
    ``__future__`` imports) checks the change, at a fraction of compiling the whole file."""
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300))
    text = HEAD + "bus = EventBus()\n" + filler + "bus.on(Point.BEFORE, guard)\n" + filler
    compiled = _compiled_lengths(monkeypatch)
    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "app.py").write_text(text)
    result = run(tmp_path)
    new = (tmp_path / "app.py").read_text()
    assert len(result.migrated) == 1 and not result.failed, result.not_migrated
    (checked,) = compiled
    assert checked.startswith("from planeshift.kernels import InterceptorRegistration\n")
    assert "as_interceptor(" in checked and len(checked) < len(new) // 20, checked


@pytest.mark.parametrize("declaration", ["global", "nonlocal"])
def test_a_declaration_at_the_module_level_has_the_whole_file_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declaration: str) -> None:
    """``global x`` at the module's level does not compile after a binding of x anywhere above
    it: the one way one top-level statement reaches another, so such a file compiles whole."""
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(30))
    text = (HEAD + "bus = EventBus()\nbus.on(Point.BEFORE, guard)\n" + filler
            + f"if False:\n    {declaration} spare\n")
    compiled = _compiled_lengths(monkeypatch)
    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "app.py").write_text(text)
    result = run(tmp_path)
    new = (tmp_path / "app.py").read_text()
    if declaration == "nonlocal":  # does not compile at all, before as after: not written
        assert result.failed and new == text and "nonlocal" in result.not_migrated[0].reason
        assert compiled[0] == compiled[-1] and len(compiled[0]) > len(text)
    else:
        assert len(result.migrated) == 1 and not result.failed, result.not_migrated
        assert compiled == [new]


def test_a_rewrite_that_does_not_compile_is_reported_at_the_files_own_line(
        tmp_path: Path) -> None:
    """The regions alone are compiled; the message names the line of the whole file."""
    from analyzer.helpers import DEMO_PACK

    pack = tmp_path / "bad.yaml"
    pack.write_text(DEMO_PACK.read_text().replace(
        "InterceptorRegistration(name={name}, ", "InterceptorRegistration(name={name}, name=1, "))
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(100))
    text = HEAD + "bus = EventBus()\n" + filler + "bus.on(Point.BEFORE, guard)\n"
    write_tree(tmp_path / "t", DEMO_FILES)
    (tmp_path / "t" / "app.py").write_text(text)
    result = run(tmp_path / "t", pack=pack)
    (entry,) = result.not_migrated
    assert entry.error and "does not compile" in entry.reason, entry
    at = re.search(r"\(app\.py, line (\d+)\)", entry.reason)
    # below the registration's own line (the imports added above it), not the regions' line
    assert at and int(at[1]) >= entry.line == text.count("\n"), entry.reason
    assert (tmp_path / "t" / "app.py").read_text() == text


def test_python_parses_only_the_statements_at_the_modules_own_level(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan's outline of the module tells its definitions apart: Python parses the module
    with those it does not rewrite left out (their lines blank), not the whole module again."""
    import ast
    import types

    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300))
    text = (HEAD + "bus = EventBus()\n" + filler + "bus.on(Point.BEFORE, guard)\n"
            + "from os import path\n" + filler.replace("def f", "def g"))
    parsed: list[str] = []

    def recording(source: str, *args: object, **kwargs: object) -> ast.Module:
        parsed.append(source)
        return ast.parse(source, *args, **kwargs)  # type: ignore[arg-type]

    proxy = types.SimpleNamespace(**{**vars(ast), "parse": recording})
    monkeypatch.setattr(regions, "ast", proxy)
    monkeypatch.setattr(cutting, "ast", proxy)
    monkeypatch.setattr(driver, "ast", proxy)
    write_tree(tmp_path, DEMO_FILES)
    (tmp_path / "app.py").write_text(text)
    result = run(tmp_path)
    new = (tmp_path / "app.py").read_text()
    assert len(result.migrated) == 1 and not result.failed, result.not_migrated
    assert "as_interceptor(" in new and filler in new
    assert parsed and all("return x + 1" not in source for source in parsed), len(parsed)
    assert any("from os import path\n" in source for source in parsed)


def test_a_definition_is_parsed_by_libcst_only_as_far_as_it_is_rewritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A registration in the middle of a long function: LibCST parses the function's header
    and the statement holding it, not the function's other statements."""
    filler = "".join(f"    v{i} = {i}\n" for i in range(2000))
    text = (HEAD + "def setup():\n    bus = EventBus()\n" + filler
            + "    bus.on(Point.BEFORE, guard)\n" + filler + "    return bus\n")
    result, new, parsed = _migrate_parsed_by_libcst(tmp_path, text, monkeypatch)
    assert len(result.migrated) == 1 and not result.failed, result.not_migrated
    assert "as_interceptor(" in new and new.count(filler) == 2
    assert [len(source) for source in parsed] == [len(parsed[0])], [s[:300] for s in parsed]
    assert "def setup():\n" in parsed[0] and "v1 = 1" not in parsed[0], parsed[0]
