"""Every hazard rule's VALID and INVALID examples, scanned for real with the tests' demo bus."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from analyzer.helpers import scan_tree
from shared_cache import FOLDER as SHARED_CACHE

from planeshift.rules.catalog import documented_rules
from planeshift.rules.checks import Invalid, Valid, all_rules
from planeshift.rules.docs import index_page, missing_headings, rule_by_code, rule_page

REPO = Path(__file__).resolve().parents[2]
RULES = all_rules()
DOCUMENTED = documented_rules()  # the hazard rules and lint's suppression rules (PS9xx)
VALID = [(r, i, src) for r in RULES for i, src in enumerate(r.VALID)]
INVALID = [(r, i, ex) for r in RULES for i, ex in enumerate(r.INVALID)]


def _findings(tmp_path: Path, example: str | Valid | Invalid, rule) -> list:
    """The rule's findings in the example's file, the example scanned with the demo bus."""
    if isinstance(example, str):
        example = Valid(example)
    result = scan_tree(tmp_path, {example.path: textwrap.dedent(example.code)})
    return [f for f in result.findings if f.rule == rule.code and f.file == example.path]


@pytest.mark.parametrize(("rule", "index", "source"), VALID,
                         ids=[f"{r.code}-valid-{i}" for r, i, _ in VALID])
def test_valid_example_gives_no_finding(tmp_path: Path, rule, index, source) -> None:
    assert _findings(tmp_path, source, rule) == []


@pytest.mark.parametrize(("rule", "index", "example"), INVALID,
                         ids=[f"{r.code}-invalid-{i}" for r, i, _ in INVALID])
def test_invalid_example_gives_the_finding(tmp_path: Path, rule, index, example) -> None:
    found = _findings(tmp_path, example, rule)
    assert [f.line for f in found] == [example.line]
    if example.severity is not None:
        assert found[0].severity == example.severity


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_has_valid_and_invalid_examples(rule) -> None:
    """A rule without examples is untested by this file, and its docs would not be checked
    against behaviour: each needs at least one of each."""
    assert rule.VALID, f"{rule.code} has no VALID example"
    assert rule.INVALID, f"{rule.code} has no INVALID example"


def test_rule_codes_and_kinds_are_unique() -> None:
    assert len({r.code for r in DOCUMENTED}) == len(DOCUMENTED)
    assert len({r.kind for r in DOCUMENTED}) == len(DOCUMENTED)
    assert set(RULES) < set(DOCUMENTED)


def test_every_rule_page_belongs_to_a_rule() -> None:
    pages = {p.stem for p in (REPO / "docs" / "rules").glob("*.md")} - {"index"}
    assert pages == {r.code for r in DOCUMENTED}


def test_the_rules_index_is_current() -> None:
    """docs/rules/index.md lists every rule and codemod, as the generator writes it."""
    page = REPO / "docs" / "rules" / "index.md"
    assert page.read_text(encoding="utf-8") == index_page(), "stale: python -m planeshift.rules.docs"
    assert all(f"[{r.code}]({r.code}.md)" in index_page() for r in DOCUMENTED)


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[r.code for r in DOCUMENTED])
def test_rule_documents_itself_and_its_page_is_current(rule) -> None:
    assert missing_headings(rule) == []
    page = REPO / "docs" / "rules" / f"{rule.code}.md"
    assert page.is_file(), "run: python -m planeshift.rules.docs docs/rules"
    assert page.read_text(encoding="utf-8") == rule_page(rule), "stale: python -m planeshift.rules.docs"
    assert rule_by_code(rule.code.lower()) is rule


def test_shell_command_string_in_settings_file(tmp_path: Path) -> None:
    settings = tmp_path / ".lionagi" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text(textwrap.dedent("""\
        hooks_external:
          PreToolUse:
            - matcher: bash
              hooks:
                - command: ["python", "-m", "guard"]
          PostToolUse:
            - hooks:
                - command: "python -m audit | tee audit.log"
        """))
    from planeshift.api import scan
    from planeshift.config import Config

    result = scan(Config(root=tmp_path, cache_dir=SHARED_CACHE, jobs=1))
    planes = {(r.point, r.plane) for r in result.registrations}
    assert planes == {("PreToolUse", "interceptor"), ("PostToolUse", "observing_subscriber")}
    assert [(f.rule, f.line) for f in result.findings] == [("PS107", 8)]
