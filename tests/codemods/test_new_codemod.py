"""Adding a codemod touches at most three files (docs/architecture.md, "Adding a codemod"): its
module, its generated page and the generated index. The fixture tests/fixtures/new_codemod/
handler_keyword.py, dropped into the codemods' room as it would be in a branch, is found,
ordered after what it declares, its examples run, and its page is generated; no list of
codemods, order, tests or docs is edited."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import planeshift.codemods as codemods_room
from planeshift.cli.docs import write_docs
from planeshift.codemods import base
from planeshift.codemods.docs import CODEMOD_HEADINGS
from planeshift.rules.docs import missing_headings

from .helpers import check_transformed

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "new_codemod"
MODULE = "planeshift.codemods.handler_keyword"


@pytest.fixture
def added(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[base.Codemod]]:
    """The fixture module in the codemods' room, registered in a copy of the registry."""
    before = [c.id for c in base.all_codemods()]
    monkeypatch.setattr(base, "REGISTRY", dict(base.REGISTRY))
    monkeypatch.setattr(codemods_room, "__path__", [*codemods_room.__path__, str(FIXTURE)])
    try:
        found = {c.id: c for c in base.all_codemods()}
        assert set(found) - set(before) == {"handler_keyword"}
        yield found["handler_keyword"]
    finally:
        sys.modules.pop(MODULE, None)
        importlib.invalidate_caches()


def test_it_is_found_without_a_list(added: type[base.Codemod]) -> None:
    assert added.__module__ == MODULE
    assert base.codemod_by_id("handler_keyword") is added


def test_it_runs_after_what_it_declares_and_the_others_keep_their_order(
        added: type[base.Codemod]) -> None:
    ids = [c.id for c in base.all_codemods()]
    assert ids.index("registration") < ids.index("handler_keyword")
    assert [i for i in ids if i != "handler_keyword"] == [
        c.id for c in base.running_order(c for c in base.REGISTRY.values()
                                         if c.id != "handler_keyword")]


def test_its_examples_run(added: type[base.Codemod], tmp_path: Path) -> None:
    (example,) = added.EXAMPLES
    result = check_transformed(tmp_path, example.before, example.after, ("handler_keyword",))
    assert [m.action for m in result.migrated] == ["handler passed by keyword"]


def test_its_page_is_generated_and_three_files_change_in_all(
        added: type[base.Codemod], tmp_path: Path) -> None:
    assert missing_headings(added, CODEMOD_HEADINGS) == []
    rules, pages = tmp_path / "rules", tmp_path / "codemods"
    written = write_docs(rules, pages)
    changed = []
    for path in written:
        folder = "rules" if path.parent == rules else "codemods"
        committed = REPO / "docs" / folder / path.name
        if not committed.is_file() or committed.read_bytes() != path.read_bytes():
            changed.append(f"docs/{folder}/{path.name}")
    assert sorted(changed) == ["docs/codemods/handler_keyword.md", "docs/rules/index.md"]
    page = (pages / "handler_keyword.md").read_text(encoding="utf-8")
    assert "On a file, it runs after `registration`." in page
    assert "bus.subscribe(handler=audit)" in page  # its fixture, from EXAMPLES
    index = (rules / "index.md").read_text(encoding="utf-8")
    assert "| [handler_keyword](../codemods/handler_keyword.md) |" in index
    touched = {"src/planeshift/codemods/handler_keyword.py", *changed}
    assert len(touched) <= 3
