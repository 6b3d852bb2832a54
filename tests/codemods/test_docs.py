"""Every codemod documents itself (headings, fixtures) and its generated page is current."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.codemods.docs import CODEMOD_HEADINGS, codemod_page, documented_codemods
from planeshift.rules.docs import missing_headings

REPO = Path(__file__).resolve().parents[2]
CODEMODS = documented_codemods()


@pytest.mark.parametrize("codemod", CODEMODS, ids=[c.id for c in CODEMODS])
def test_codemod_documents_itself_has_fixtures_and_its_page_is_current(codemod) -> None:
    assert missing_headings(codemod, CODEMOD_HEADINGS) == []
    assert codemod.EXAMPLES, "a codemod needs before/after fixtures"
    page = REPO / "docs" / "codemods" / f"{codemod.id}.md"
    assert page.is_file(), "run: python -m planeshift.cli.docs docs/rules"
    assert page.read_text(encoding="utf-8") == codemod_page(codemod), \
        "stale: python -m planeshift.cli.docs docs/rules"


def test_every_codemod_page_belongs_to_a_codemod() -> None:
    pages = {p.stem for p in (REPO / "docs" / "codemods").glob("*.md")}
    assert pages == {c.id for c in CODEMODS}


@pytest.mark.parametrize(("argv", "code"), [(["--help"], 0), (["-x"], 2), (["a", "b"], 2)])
def test_the_docs_generator_takes_an_option_for_usage_not_for_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], code: int,
) -> None:
    from planeshift.cli.docs import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == code
    assert "usage: python -m planeshift.cli.docs" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written (it once wrote pages into ./--help/)
