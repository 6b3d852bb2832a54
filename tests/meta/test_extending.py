"""The contributor guide's worked examples are true (issue 22: a new rule or registration shape
touches at most 3 files): each module is written as docs/extending.md shows it, into a folder
planeshift's own discovery reads, found there, and its examples run as tests/rules/test_checks.py
and tests/analyzer/test_shapes.py run every unit's; the files touched are the ones the page lists.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_PACK, scan_tree

from planeshift.analyzer import shapes
from planeshift.analyzer.shapes.base import REGISTRY as SHAPES
from planeshift.cli.docs import write_docs
from planeshift.rules import checks
from planeshift.rules.checks.base import REGISTRY as RULES
from planeshift.rules.docs import missing_headings

REPO = Path(__file__).resolve().parents[2]
GUIDE = (REPO / "docs" / "extending.md").read_text(encoding="utf-8")
LIMIT = 3


def section(title: str) -> str:
    """The text of the guide's ``## <title>`` section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", GUIDE, re.MULTILINE | re.DOTALL)
    assert match, f"docs/extending.md has no section {title!r}"
    return match.group(1)


def touched(text: str) -> list[str]:
    """The files a section lists under "Files it touches"."""
    return re.findall(r"^\d+\. `([^`]+)`", text, re.MULTILINE)


def block(text: str, path: str) -> str:
    """The fenced block of *text* whose first line is ``# <path>``, without that line."""
    for body in re.findall(r"^```\w+\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        first, _, rest = body.partition("\n")
        if first == f"# {path}":
            return rest
    raise AssertionError(f"docs/extending.md shows no {path}")


@contextmanager
def plugged(package, registry: dict, key: str, module: str, source: str,
            folder: Path) -> Iterator[None]:
    """*source* written as *module* into *folder*, added to *package*'s search path, so the
    package's own discovery (``pkgutil.iter_modules`` over ``__path__``) finds and imports it;
    the package, the registry and ``sys.modules`` are left as they were."""
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    package.__path__.append(str(folder))
    name = f"{package.__name__}.{module}"
    try:
        yield
    finally:
        package.__path__.remove(str(folder))
        registry.pop(key, None)
        sys.modules.pop(name, None)


@pytest.fixture
def new_rule(tmp_path: Path) -> Iterator[type]:
    path = "src/planeshift/rules/checks/handler_may_be_none.py"
    folder = tmp_path / "checks"
    folder.mkdir()
    with plugged(checks, RULES, "PS115", "handler_may_be_none",
                 block(section("A new hazard rule"), path), folder):
        checks._import_rules.cache_clear()  # the discovery runs again, over the grown folder
        try:
            found = {r.code: r for r in checks.all_rules()}
            assert "PS115" in found, "the rule's module was not discovered"
            yield found["PS115"]
        finally:
            checks._import_rules.cache_clear()


@pytest.fixture
def new_shape(tmp_path: Path) -> Iterator[object]:
    path = "src/planeshift/analyzer/shapes/setattr.py"
    folder = tmp_path / "shapes"
    folder.mkdir()
    with plugged(shapes, SHAPES, "setattr", "setattr",
                 block(section("A new registration shape"), path), folder):
        # what all_shapes() does on first use (it has run already in this process)
        found = [info.name for info in pkgutil.iter_modules(shapes.__path__)]
        assert "setattr" in found, "the shape's module is not in its package's folder"
        importlib.import_module(f"{shapes.__name__}.setattr")
        assert "setattr" in [s.kind for s in shapes.all_shapes()]
        yield SHAPES["setattr"]


def test_each_worked_example_touches_at_most_three_files() -> None:
    for title in ("A new hazard rule", "A new registration shape"):
        files = touched(section(title))
        assert 0 < len(files) <= LIMIT, (title, files)
        for path in files:  # each a place that exists: the folder, or the file edited
            assert (REPO / path).exists() or (REPO / path).parent.is_dir(), path


def test_the_new_rule_runs_its_examples_and_documents_itself(new_rule, tmp_path: Path) -> None:
    for source in new_rule.VALID:
        result = scan_tree(tmp_path / "valid", {"example.py": textwrap.dedent(source)})
        assert [f for f in result.findings if f.rule == "PS115"] == []
    for example in new_rule.INVALID:
        result = scan_tree(tmp_path / "invalid", {"example.py": textwrap.dedent(example.code)})
        assert [f.line for f in result.findings if f.rule == "PS115"] == [example.line]
    assert new_rule.VALID and new_rule.INVALID and missing_headings(new_rule) == []


def test_the_new_rule_changes_only_its_two_generated_pages(new_rule, tmp_path: Path) -> None:
    pages, codemods = tmp_path / "rules", tmp_path / "codemods"
    write_docs(pages, codemods)
    changed = {f"docs/rules/{p.name}" for p in pages.iterdir()
               if p.read_bytes() != _bytes(REPO / "docs" / "rules" / p.name)}
    changed |= {f"docs/codemods/{p.name}" for p in codemods.iterdir()
                if p.read_bytes() != _bytes(REPO / "docs" / "codemods" / p.name)}
    listed = touched(section("A new hazard rule"))
    assert changed == {p for p in listed if p.startswith("docs/")}
    assert [p for p in listed if not p.startswith("docs/")] == [
        "src/planeshift/rules/checks/handler_may_be_none.py"]


def test_the_new_shape_is_read_from_a_pack_and_runs_its_examples(new_shape,
                                                                   tmp_path: Path) -> None:
    text = section("A new registration shape")
    demo = DEMO_PACK.read_text(encoding="utf-8")
    anchor = "  - id: demo_bus\n"
    register = demo.index("    register:\n", demo.index(anchor)) + len("    register:\n")
    pack = tmp_path / "demo.yaml"
    pack.write_text(demo[:register] + block(text, "tests/fixtures/packs/demo.yaml")
                    + demo[register:], encoding="utf-8")
    assert new_shape.MATCHES and new_shape.LOOKALIKES
    for i, example in enumerate(new_shape.MATCHES + new_shape.LOOKALIKES):
        result = scan_tree(tmp_path / str(i), {"example.py": textwrap.dedent(example.code)},
                           packs=(pack,))
        found = [(r.line, r.api, r.point, r.handler.expr) for r in result.registrations
                 if r.file == "example.py"]
        assert found == list(example.expect), example.code
    reference = (REPO / "docs" / "rule-packs.md").read_text(encoding="utf-8")
    assert "Each registration shape (`method`" in reference  # where the guide says to add it


def test_the_demo_pack_without_the_form_gives_the_shape_nothing(new_shape,
                                                                tmp_path: Path) -> None:
    """The examples register through the form the guide adds, not through another shape."""
    result = scan_tree(tmp_path, {"example.py": textwrap.dedent(new_shape.MATCHES[0].code)})
    assert [r for r in result.registrations if r.file == "example.py"] == []


def test_the_plugged_units_are_gone_afterwards() -> None:
    assert "PS115" not in RULES and "setattr" not in SHAPES
    assert "PS115" not in {r.code for r in checks.all_rules()}


def _bytes(path: Path) -> bytes:
    return path.read_bytes() if path.is_file() else b""
