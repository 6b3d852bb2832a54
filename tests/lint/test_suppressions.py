"""Suppression comments: the reason they need, what they cover, and what is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.lint.comments import parse_comment, read_source

from .helpers import HAZARD, lint_project, module, open_findings, write_project


def _lint(tmp_path: Path, body: str, settings: str = ""):
    write_project(tmp_path, {"app/main.py": module(body)}, settings)
    return lint_project(tmp_path, ["app/main.py"])


def _rules(result) -> list[tuple[str, int]]:
    return [(rule, line) for rule, _, line in open_findings(result)]


def test_trailing_comment_with_reason_suppresses(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"{HAZARD}  # planeshift: ignore[PS101] deliberately fire-and-forget")
    assert _rules(result) == []
    [item] = [f for f in result.findings if f.status == "suppressed"]
    assert item.finding.rule == "PS101"
    assert item.justification == "deliberately fire-and-forget"


def test_comment_alone_on_the_line_above_suppresses(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"# planeshift: ignore[PS101] owner @hooks-team decided\n{HAZARD}")
    assert _rules(result) == [] and result.count("suppressed") == 1


def test_comment_two_lines_above_does_not_suppress(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"# planeshift: ignore[PS101] too far away\n\n{HAZARD}")
    assert _rules(result) == [("PS902", 6), ("PS101", 8)]


def test_missing_reason_does_not_suppress_and_is_reported(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"{HAZARD}  # planeshift: ignore[PS101]")
    assert _rules(result) == [("PS101", 6), ("PS901", 6)]
    [invalid] = [f.finding for f in result.open if f.finding.rule == "PS901"]
    assert "no reason" in invalid.message
    assert invalid.col == len(HAZARD) + 2


@pytest.mark.parametrize(("comment", "problem"), [
    ("# planeshift: ignore because I say so", "names no rule code"),
    ("# planeshift: ignore[] why not", "names no rule code"),
    ("# planeshift: ignore[PS101 unclosed", "no closing"),
    ("# planeshift: ignore[discard_unawaited] a kind, not a code", "is not a rule code"),
    ("# planeshift: ignore[PS101] -", "no reason"),
])
def test_malformed_suppressions_are_invalid(comment: str, problem: str) -> None:
    parsed = parse_comment("x.py", 3, 0, comment, alone=True)
    assert parsed is not None and problem in parsed.problem


def test_several_codes_and_lowercase(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"{HAZARD}  # planeshift: ignore[ps101, PS103] both reviewed")
    # PS101 matched; PS103 did not, and is reported on its own
    assert _rules(result) == [("PS902", 6)]
    assert "ignore[PS103]" in result.open[0].finding.message


def test_unused_suppression_and_unknown_code(tmp_path: Path) -> None:
    result = _lint(tmp_path, "x = 1  # planeshift: ignore[PS999] stale")
    [unused] = [f.finding for f in result.open]
    assert (unused.rule, unused.line) == ("PS902", 6)
    assert "no rule PS999" in unused.message and "its line" in unused.message


def test_hash_inside_a_string_is_not_a_comment(tmp_path: Path) -> None:
    body = f'{HAZARD}; note = "# planeshift: ignore[PS101] only a string"'
    result = _lint(tmp_path, body)
    assert _rules(result) == [("PS101", 6)]  # not suppressed, and no PS902 for the string
    text = read_source(tmp_path / "app/main.py", "app/main.py")
    assert text is not None and text.comments == ()


def test_docstring_lookalike_is_not_a_comment(tmp_path: Path) -> None:
    body = f'"""\n# planeshift: ignore[PS101] inside a docstring\n"""\n{HAZARD}'
    assert _rules(_lint(tmp_path, body)) == [("PS101", 9)]


def test_suppression_for_a_rule_turned_off_is_unused(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"{HAZARD}  # planeshift: ignore[PS101] fine",
                   settings='severity = {PS101 = "off"}\n')
    assert _rules(result) == [("PS902", 6)]


def test_suppression_rules_take_configured_severity(tmp_path: Path) -> None:
    result = _lint(tmp_path, "x = 1  # planeshift: ignore[PS101] stale",
                   settings='severity = {PS902 = "off"}\n')
    assert _rules(result) == []


def test_comments_in_unnamed_files_without_findings_are_not_read(tmp_path: Path) -> None:
    write_project(tmp_path, {"app/main.py": module(HAZARD),
                             "app/other.py": "x = 1  # planeshift: ignore[PS101] stale\n"})
    result = lint_project(tmp_path, ["app/main.py"])
    assert _rules(result) == [("PS101", 6)]
    assert result.files_read == 1


def test_yaml_settings_comment_suppresses_a_settings_finding(tmp_path: Path) -> None:
    settings = (
        "hooks_external:\n"
        "  PostToolUse:\n"
        "    - hooks:\n"
        "        # planeshift: ignore[PS107] the pipe is ours; owner @ops\n"
        "        - command: \"python -m audit | tee a.log # planeshift: ignore[PS101] quoted\"\n"
    )
    (tmp_path / ".lionagi").mkdir()
    (tmp_path / ".lionagi" / "settings.yaml").write_text(settings)
    (tmp_path / "pyproject.toml").write_text("[tool.planeshift]\n")  # the built-in lionagi pack
    result = lint_project(tmp_path, [".lionagi/settings.yaml"])
    assert [(f.finding.rule, f.status) for f in result.findings] == [("PS107", "suppressed")]


@pytest.mark.parametrize("comment", [
    "# PLANESHIFT: IGNORE[PS101] deliberately fire-and-forget",
    "# Planeshift: Ignore[ps101] deliberately fire-and-forget",
    "# planeshift: IGNORE[PS101] deliberately fire-and-forget",
])
def test_a_suppression_in_another_case_is_honoured(tmp_path: Path, comment: str) -> None:
    """`# noqa` is read in any case by flake8 and ruff; so is `# planeshift: ignore[...]`:
    a comment written in capitals suppresses as written, never silently nothing."""
    result = _lint(tmp_path, f"{HAZARD}  {comment}")
    assert _rules(result) == [] and result.count("suppressed") == 1


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c", "\x1e"])
def test_a_line_separator_inside_a_literal_does_not_move_the_suppression(
        tmp_path: Path, separator: str) -> None:
    """These end a line for ``str.splitlines``, not for Python (nor tokenize, which numbers the
    comment): the lines the comment is judged against are Python's, so a trailing suppression
    after such a literal still covers its own line, and a finding's snippet is its line."""
    result = _lint(tmp_path, f'NOTE = "one{separator}two"\n'
                             f"{HAZARD}  # planeshift: ignore[PS101] deliberately fire-and-forget")
    assert _rules(result) == [] and result.count("suppressed") == 1
    text = read_source(tmp_path / "app" / "main.py", "app/main.py")
    assert text is not None and any(line.startswith(HAZARD) for line in text.lines)
    assert text.lines[text.comments[0].line - 1].startswith(HAZARD)


def test_a_discard_annotation_in_another_case_is_honoured(tmp_path: Path) -> None:
    result = _lint(tmp_path, f"# PLANESHIFT: DISCARD-UNAWAITED owner=@team fire and forget\n"
                             f"{HAZARD}")
    assert _rules(result) == [] and result.count("suppressed") == 1
