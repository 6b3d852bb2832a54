"""The Markdown inventory: golden output and the properties an ADR paste relies on."""

from __future__ import annotations

from planeshift.reports.markdown import render_markdown
from planeshift.reports.md_table import cell

from .golden import check_golden
from .sample import empty_result, sample_result


def test_sample_matches_golden() -> None:
    check_golden("sample.md", render_markdown(sample_result()))


def test_empty_result_matches_golden() -> None:
    check_golden("empty.md", render_markdown(empty_result()))


def test_pipes_in_cells_are_escaped_so_rows_keep_their_columns() -> None:
    text = render_markdown(sample_result())
    row = next(line for line in text.splitlines() if "lambda m" in line and line.startswith("| "))
    assert "send(m) \\| 1" in row
    assert row.replace("\\|", "").count("|") == 9  # eight columns


def test_mechanism_without_registrations_is_listed_not_sectioned() -> None:
    text = render_markdown(sample_result())
    assert "No registrations found: `outbox`." in text
    assert "## `outbox`" not in text
    assert "## `hookbus`: HookBus session lifecycle hooks" in text


def test_needs_review_lists_first_evidence_line() -> None:
    text = render_markdown(sample_result())
    section = text.split("## Needs review", 1)[1].split("##", 1)[0]
    assert "`app/hooks.py:20`" in section
    assert "handler is a subscript: handlers[name]" in section
    assert "point \\| handler" not in section  # only the first line


def test_findings_and_skipped_files_sections_appear_when_present() -> None:
    text = render_markdown(sample_result())
    assert "## Findings" in text and "PS101" in text
    assert "## Skipped files\n\n- `app/broken.py`: syntax error (line 3): invalid syntax" in text
    empty = render_markdown(empty_result())
    assert "## Findings" not in empty and "## Skipped files" not in empty


def test_cell_flattens_newlines() -> None:
    assert cell("a\nb | c") == "a b \\| c"


def test_library_registrations_have_a_section_of_their_own() -> None:
    text = render_markdown(sample_result())
    assert "- Library registrations activated here: 1, by 1 calls" in text
    section = text.split("## Library registrations activated here", 1)[1]
    assert "| `lionagi/session/observer.py:594` | `hookbus` |" in section
    assert "Activated at: `app/main.py:31` (by name)." in section
    assert "## Library registrations activated here" not in render_markdown(empty_result())
