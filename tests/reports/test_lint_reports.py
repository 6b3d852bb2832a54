"""The lint text and GitHub formats: golden files, the summary line, GitHub's escaping."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.reports.lint_text import (
    display_path,
    escape_data,
    escape_property,
    render_github,
    render_text,
    summary_line,
)

from .golden import check_golden
from .lint_sample import clean_sample, lint_sample


def test_text_report_golden() -> None:
    check_golden("lint_sample.txt", render_text(lint_sample()))


def test_github_report_golden() -> None:
    check_golden("lint_sample.github.txt", render_github(lint_sample()))


def test_text_lines_are_one_based_columns_sorted_with_owner() -> None:
    first = render_text(lint_sample()).splitlines()[1]
    assert first.startswith("app/session.py:44:9: PS101 [error] lambda m: send(m) lands")
    assert first.endswith("(owner: @hooks-team)")


def test_text_leaves_out_suppressed_and_baselined_findings() -> None:
    text = render_text(lint_sample())
    assert ":70:" not in text and "app/tools.py:9:" not in text
    assert "app/broken.py: cannot be analysed: syntax error" in text


def test_summary_counts_severities_suppressed_baselined_and_the_verdict() -> None:
    assert summary_line(lint_sample()) == (
        "4 findings (1 error, 2 warning, 1 info), 1 suppressed, 1 baselined, "
        "2 baseline entries fixed (no longer found); 1 file could not be analysed; "
        "failed (fail-on warning)")
    assert summary_line(clean_sample()) == (
        "0 findings (0 error, 0 warning, 0 info), 0 suppressed, 0 baselined; "
        "passed (fail-on warning)")


def test_paths_are_shown_relative_to_the_working_folder() -> None:
    assert display_path(lint_sample(), "app/x.py", Path("/project/app")) == "x.py"
    assert display_path(lint_sample(), "app/x.py", Path("/elsewhere")) == "../project/app/x.py"
    assert display_path(lint_sample(), "app/x.py", None) == "app/x.py"


@pytest.mark.parametrize(("text", "data", "prop"), [
    ("50% done", "50%25 done", "50%25 done"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("x: y, z", "x: y, z", "x%3A y%2C z"),
    ("%0A literal", "%250A literal", "%250A literal"),
])
def test_github_escaping(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_github_commands_carry_positions_title_and_levels() -> None:
    lines = render_github(lint_sample()).splitlines()
    assert lines[1] == (
        "::error file=app/session.py,line=44,col=9,endLine=45,endColumn=30,"
        "title=PS101 discard_unawaited::" + lint_sample().findings[1].finding.message
        + " (owner: @hooks-team)")
    assert lines[0].startswith(
        "::warning file=app/hooks.py,line=20,col=5,title=PS103 dormant_point::")
    assert "50%25 of 1, 2" in lines[0]  # message data: % escaped, the comma kept
    assert lines[2].startswith("::notice ")
    assert lines[-2] == ("::error file=app/broken.py,title=planeshift::cannot be analysed: "
                         "syntax error (line 1): invalid syntax")
