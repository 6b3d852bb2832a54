"""A rule can read what it needs of a file's syntax during extraction (FACT_WORDS, file_facts)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from analyzer.helpers import scan_tree, write_tree

from planeshift.rules.checks import REGISTRY
from planeshift.rules.checks.base import Hazard, Rule


class RaisesPermission(Rule):
    """A test rule: every function that raises PermissionError."""

    code = "PS999"
    kind = "test_raises_permission"
    FACT_WORDS = ("PermissionError",)

    def file_facts(self, tree: ast.Module, text: str = "") -> tuple:
        return tuple(
            (node.name, node.lineno) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(n, ast.Raise) and "PermissionError" in ast.unparse(n)
                for n in ast.walk(node))
        ) or None

    def check(self, project) -> Iterator[Hazard]:
        for path, functions in project.rule_facts(self.code):
            for name, line in functions:
                yield self.at(path, line, 0, f"{name} raises PermissionError")


@pytest.fixture
def rule() -> Iterator[type[Rule]]:
    REGISTRY[RaisesPermission.code] = RaisesPermission
    try:
        yield RaisesPermission
    finally:
        del REGISTRY[RaisesPermission.code]


def test_a_rule_reads_the_files_holding_its_words(tmp_path: Path, rule) -> None:
    result = scan_tree(tmp_path, {
        "app/guard.py": """
            def check(call):
                raise PermissionError("no")

            def fine(call):
                return call
            """,
        "app/other.py": "def quiet():\n    raise ValueError('x')\n",
    })
    found = [(f.file, f.line, f.message) for f in result.findings if f.rule == "PS999"]
    assert found == [("app/guard.py", 1, "check raises PermissionError")]


def test_rule_facts_survive_an_incremental_scan(tmp_path: Path, rule) -> None:
    from analyzer.helpers import DEMO_FILES, DEMO_PACK

    from planeshift.api import scan
    from planeshift.config import Config

    root, cache = tmp_path / "tree", tmp_path / "cache"
    write_tree(root, {**DEMO_FILES, "app/guard.py": "def check(c):\n    raise PermissionError\n",
                      "app/other.py": "X = 1\n"})
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), cache_dir=cache, jobs=1)
    first = scan(config)
    (root / "app" / "other.py").write_text("X = 2\n")
    second = scan(config)
    assert second.stats["cache"] == "incremental"
    assert [f for f in second.findings if f.rule == "PS999"] == [
        f for f in first.findings if f.rule == "PS999"] != []


@dataclass(frozen=True, slots=True)
class Raiser:
    name: str
    line: int


@dataclass(frozen=True, slots=True)
class RaisersFacts:
    raisers: tuple[Raiser, ...]
    first: Raiser | None
    words: tuple[str, ...]


class TypedRaises(RaisesPermission):
    """The same rule, its facts a record: file_facts returns it, check reads it back by field."""

    code = "PS998"
    kind = "test_typed_raises"
    FACTS = RaisersFacts

    def file_facts(self, tree: ast.Module, text: str = "") -> RaisersFacts | None:
        rows = super().file_facts(tree, text)
        if rows is None:
            return None
        raisers = tuple(Raiser(name, line) for name, line in rows)
        return RaisersFacts(raisers, raisers[0], ("PermissionError",))

    def check(self, project) -> Iterator[Hazard]:
        for path, facts in self.facts(project):
            assert isinstance(facts, RaisersFacts) and facts.first == facts.raisers[0]
            for raiser in facts.raisers:
                yield self.at(path, raiser.line, 0, f"{raiser.name} raises {facts.words[0]}")


def test_a_rules_facts_record_comes_back_as_a_record_from_the_cache(tmp_path: Path) -> None:
    from analyzer.helpers import DEMO_FILES, DEMO_PACK

    from planeshift.api import scan
    from planeshift.config import Config
    from planeshift.rules.checks.records import from_row, to_row

    facts = RaisersFacts((Raiser("a", 1), Raiser("b", 2)), Raiser("a", 1), ("x",))
    assert to_row(facts) == ((("a", 1), ("b", 2)), ("a", 1), ("x",))
    assert from_row(RaisersFacts, to_row(facts)) == facts
    REGISTRY[TypedRaises.code] = TypedRaises
    try:
        root, cache = tmp_path / "tree", tmp_path / "cache"
        write_tree(root, {**DEMO_FILES, "app/guard.py": "def check(c):\n    raise PermissionError\n",
                          "app/other.py": "X = 1\n"})
        config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), cache_dir=cache, jobs=1)
        first = scan(config)
        (root / "app" / "other.py").write_text("X = 2\n")
        second = scan(config)
    finally:
        del REGISTRY[TypedRaises.code]
    assert second.stats["cache"] == "incremental"
    found = [(f.file, f.line, f.message) for f in second.findings if f.rule == "PS998"]
    assert found == [(f.file, f.line, f.message) for f in first.findings if f.rule == "PS998"]
    assert found == [("app/guard.py", 1, "check raises PermissionError")]
