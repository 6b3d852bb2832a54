"""Terminal output that fits: at 80 and 120 columns no line is wider than the console, nothing is
cut with an ellipsis, every location is whole on one line; every report says where its context
came from and ends a run with findings with the next step."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from planeshift.api import scan
from planeshift.codemods.model import Migrated, MigrateResult, NotMigrated
from planeshift.codemods.report.text import render_report
from planeshift.config import load_config
from planeshift.reports.guidance import (
    context_lines,
    lead_rule,
    next_steps,
    severity_counts,
)
from planeshift.reports.lint_text import render_text
from planeshift.reports.markdown import render_markdown
from planeshift.reports.terminal import flow, render_terminal
from planeshift.types import (
    Activation,
    ContextUse,
    Finding,
    Handler,
    MechanismSummary,
    Registration,
    ScanResult,
)

from .lint_sample import lint_sample
from .sample import sample_result

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "legacy_app"
PLANES = ("interceptor", "subscriber", "observing_subscriber", "commit_participant",
          "delivery_sink", "needs_review")
LONG_QUALNAME = "lionagi.cli.orchestrate._orchestration.TeamLifecycleCoordinator.on_finished"


def crowded_result() -> ScanResult:
    """Long mechanism, dispatcher and path names, every plane, handlers longer than a line."""
    mechs = (MechanismSummary("imodel_stream_processor", "Stream processors",
                              ("lionagi.service.imodel.TerminalCallbackRegistry",
                               "lionagi.DependencyAwareExecutor"), ("add",), ("emit",), 6),
             MechanismSummary("message_pile_rewritten", "Pile rewrites",
                              ("lionagi.protocols.MessagePersistRetryQueue",), ("on",), (), 1))
    regs = []
    for i, plane in enumerate(PLANES):
        handler = Handler(f"_team_coordinator.on_finished_{i} if reactive else None", LONG_QUALNAME,
                          False, False, "method")
        regs.append(Registration(
            f"studio/services/orchestration_workflow_runner_{i}.py", 1000 + i, 27,
            "imodel_stream_processor", "register_branch_hook_with_a_long_name",
            "BRANCH_CREATE_AND_INITIALISE", handler, plane, "medium", ("evidence",),
            ("unresolved_receiver", "discard_unawaited"), "method", "x.y", "rule", 1000 + i, 80,
            tuple(Activation(f"cli/orchestrate/_orchestration_{n}.py", 1071 + n, 4, 1071 + n, 40,
                             "a.b", "lionagi.agent.factory.create_agent") for n in range(12))))
    regs.append(replace(regs[0], mechanism="message_pile_rewritten", file="a.py", line=7,
                        activations=()))
    findings = (Finding("PS106", "status_bypass", regs[0].file, regs[0].line, 4, "warning",
                        "_apply_checkpoint_precomplete writes node.execution.status = "
                        "EventStatus.COMPLETED directly, around Event.status's setter (its "
                        "validation and completion signal do not run; see "
                        "session/observer.py:374)", "imodel_stream_processor"),
                Finding("PS110", "terminal_second_source", regs[1].file, regs[1].line, 8,
                        "error", "x " * 70, None))
    return ScanResult(root="/work/app", registrations=tuple(regs), emissions=(),
                      mechanisms=mechs, findings=findings, files_scanned=7, packs=("lionagi",),
                      library=(replace(regs[2], file="lionagi/agent/factory.py"),),
                      stats={"seconds": 1.5})


@pytest.fixture(scope="module")
def example_scan() -> ScanResult:
    config = replace(load_config(EXAMPLE), use_cache=False, jobs=1, use_context=False)
    return scan(config)


def _render(result: ScanResult, width: int, details: bool) -> str:
    buffer = io.StringIO()
    render_terminal(result, Console(file=buffer, width=width, color_system=None), details)
    return buffer.getvalue()


def _locations(result: ScanResult) -> set[str]:
    regs = [*result.registrations, *result.library]
    return ({f"{r.file}:{r.line}" for r in regs}
            | {f"{a.file}:{a.line}" for r in regs for a in r.activations}
            | {f"{f.file}:{f.line}" for f in result.findings}
            | {e.file for e in result.errors})


def _assert_fits(text: str, width: int, locations: set[str]) -> None:
    lines = text.splitlines()
    assert "…" not in text
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, too_wide
    for where in locations:  # whole, on one line, not the start of a longer number or name
        pattern = re.compile(rf"(^|[\s(]){re.escape(where)}(?![\w/.])")
        assert any(pattern.search(line) for line in lines), where


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("details", [False, True])
def test_crowded_scan_fits_and_keeps_every_location_whole(width: int, details: bool) -> None:
    result = crowded_result()
    text = _render(result, width, details)
    _assert_fits(text, width, _locations(result) if details else set())
    # the dispatchers are shown, not dropped
    assert "TerminalCallbackRegistry" in text and "MessagePersistRetryQueue" in text
    assert "total" in text


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("details", [False, True])
def test_example_scan_fits_and_keeps_every_location_whole(
        example_scan: ScanResult, width: int, details: bool) -> None:
    assert example_scan.registrations and example_scan.findings
    text = _render(example_scan, width, details)
    _assert_fits(text, width, _locations(example_scan) if details else set())
    for mech in example_scan.mechanisms:  # every active mechanism's dispatcher is named
        if any(r.mechanism == mech.id for r in example_scan.registrations) and mech.dispatcher:
            short = mech.dispatcher[0].rsplit(".", 1)[-1]
            assert short in text or "settings files" in text, mech.id


def test_summary_at_80_columns_keeps_full_headers_and_the_dispatcher() -> None:
    text = _render(sample_result(), 80, False)
    header = text.splitlines()[2:5]
    assert any("dispatcher" in line for line in header)
    assert any("interceptor" in line for line in header)
    assert "HookBus" in text and "Broadcaster +1" in text


def test_crowded_summary_at_80_breaks_words_only_at_syllables_and_underscores() -> None:
    text = _render(crowded_result(), 80, False)
    for piece in ("inter-", "ceptor", "sub-", "scriber", "commit", "parti-", "cipant"):
        assert piece in text
    assert "imodel_stream_processor" in text or "imodel_stream_" in text


def test_flow_breaks_between_words_then_after_marks_never_inside_a_location() -> None:
    text = flow([("agent/factory.py:511:8", "", False), (f"  handler ({LONG_QUALNAME})", "", True)],
                40).plain
    lines = text.splitlines()
    assert lines[0].startswith("agent/factory.py:511:8  handler")
    assert all(len(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines[1:]) == f"({LONG_QUALNAME})"
    assert all(line.rstrip()[-1] in "._-(/:)" or line is lines[-1] for line in lines[1:])
    # a location wider than the line stays whole on its line rather than being cut
    assert flow([("a/" * 30 + "x.py:1", "", False)], 20).plain == "a/" * 30 + "x.py:1"


def test_terminal_and_markdown_say_where_the_context_came_from() -> None:
    found = replace(sample_result(), context=(ContextUse(
        "lionagi", "/venv/lib/python3.11/site-packages/lionagi", "0.36.0", "sys.path", 611,
        ("hookbus",)),))
    missing = replace(sample_result(), context=(ContextUse("lionagi", None, None, "not found", 0,
                                                           ("hookbus",)),))
    line = ("context: lionagi 0.36.0 from /venv/lib/python3.11/site-packages/lionagi "
            "(found through sys.path; 611 files read)")
    assert line in _render(found, 120, False)
    assert "- Context: " + line.removeprefix("context: ") in render_markdown(found)
    text = " ".join(_render(missing, 80, False).split())
    assert ("context: lionagi not found — scanning without the library's source; install the "
            "app's dependencies or pass --context") in text
    assert "- Context: lionagi not found — scanning without" in render_markdown(missing)
    off = [ContextUse("lionagi", None, None, "not read (--no-context)", 0, ())]
    assert context_lines(off) == ["context: lionagi not read (--no-context)"]
    assert context_lines((), ("lionagi",)) == [
        "context: none read (no rule pack needs a library outside the scanned tree)"]


def test_a_run_with_findings_ends_with_the_next_step() -> None:
    text = _render(sample_result(), 120, True)
    tail = text[text.index("Next:"):]
    assert "planeshift explain PS101" in tail
    assert "# planeshift: ignore[PS101] <reason>" in tail
    assert "planeshift baseline -o planeshift-baseline.json" in tail
    assert "planeshift lint --baseline planeshift-baseline.json" in " ".join(tail.split())
    assert "## Next steps" in render_markdown(sample_result())
    clean = replace(sample_result(), findings=())
    assert "Next:" not in _render(clean, 120, True)
    assert "## Next steps" not in render_markdown(clean)


def test_the_suggested_suppression_is_the_one_lint_honours() -> None:
    from planeshift.lint.comments import _DIRECTIVE

    command = next_steps([("PS101", "error")])[1][0]
    assert _DIRECTIVE.search(command.replace("<reason>", "the caller awaits it"))


def test_lead_rule_is_the_most_frequent_of_the_highest_severity() -> None:
    pairs = [("PS103", "warning")] * 5 + [("PS110", "error"), ("PS104", "error"),
                                          ("PS104", "error")]
    assert lead_rule(pairs) == "PS104"
    assert lead_rule([("PS102", "info"), ("PS101", "info")]) == "PS101"


def test_scan_and_lint_order_severities_alike() -> None:
    assert severity_counts(["info", "warning", "error", "warning"]) == "1 error, 2 warning, 1 info"
    assert "2 findings (1 error, 1 warning)" in _render(sample_result(), 120, False)
    result = replace(sample_result(), findings=tuple(
        replace(f, severity=s) for f, s in zip(sample_result().findings * 2,
                                               ("info", "warning", "error", "info"))))
    assert "4 findings (1 error, 1 warning, 2 info)" in _render(result, 120, False)


def test_lint_text_says_the_context_and_ends_with_the_next_step() -> None:
    lines = render_text(lint_sample()).splitlines()
    summary = next(i for i, line in enumerate(lines) if line.startswith("4 findings"))
    assert lines[summary - 1].startswith("context: ")
    assert lines[summary + 1] == "next:"
    assert lines[summary + 2].startswith("  planeshift explain PS101  — ")
    assert "planeshift: ignore[PS101] <reason>" in lines[summary + 3]
    assert "planeshift baseline -o" in lines[summary + 4]


def test_migrate_report_keeps_whole_reasons_and_counts_identical_lines() -> None:
    reason = "needs_review: " + "a hook that configures a new branch before it is used " * 6
    result = MigrateResult(
        root="/p", mode="diff", codemods=("registration",), kernel_modules=(),
        migrated=(*[Migrated("hooks/loader.py", 93, "registration", "subscriber")] * 4,
                  Migrated("hooks/loader.py", 96, "registration", "subscriber")),
        not_migrated=(NotMigrated("flow.py", 2434, "registration", reason),) * 2)
    lines = render_report(result).splitlines()
    assert "  hooks/loader.py:93: registration: subscriber (×4)" in lines
    assert "  hooks/loader.py:96: registration: subscriber" in lines
    assert f"  flow.py:2434: registration: {reason} (×2)" in lines
    assert lines[0] == "migrated (5):"  # the headings count every outcome
    assert lines[-2] == "context: none read (no rule pack in use)"
    assert "not migrated (2):" in lines
    assert "…" not in "\n".join(lines) and "..." not in "\n".join(lines)
