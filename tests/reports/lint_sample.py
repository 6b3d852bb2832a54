"""A hand-built LintResult covering every lint report feature, so report tests need no scan."""

from __future__ import annotations

from dataclasses import dataclass

from planeshift.lint import LintFinding, LintResult
from planeshift.types import FileError, Finding

DISCARD = "lambda m: send(m) lands on broadcaster, whose policy never awaits a returned awaitable"


@dataclass(frozen=True, slots=True)
class SpannedFinding(Finding):
    """A Finding with the end position other engineers are adding to ``types.Finding``."""

    end_line: int | None = None
    end_col: int | None = None


def lint_sample() -> LintResult:
    findings = (
        LintFinding(Finding("PS103", "dormant_point", "app/hooks.py", 20, 4, "warning",
                            "registration on ARTIFACT_CREATED, which nothing emits: 50% of 1, 2",
                            "hookbus"), None, "1123456789abcdef:0"),
        LintFinding(SpannedFinding("PS101", "discard_unawaited", "app/session.py", 44, 8, "error",
                                   DISCARD + "; it returns an awaitable that is never run",
                                   "broadcaster", end_line=45, end_col=30),
                    "@hooks-team", "0123456789abcdef:0"),
        LintFinding(Finding("PS101", "discard_unawaited", "app/session.py", 60, 8, "info",
                            DISCARD + " (it cannot return an awaitable today)", "broadcaster"),
                    "@hooks-team", "2123456789abcdef:0"),
        LintFinding(Finding("PS101", "discard_unawaited", "app/session.py", 70, 8, "error",
                            DISCARD, "broadcaster"), "@hooks-team", "3123456789abcdef:0",
                    "suppressed", "sent again by the retry queue"),
        LintFinding(Finding("PS102", "unwired_error_hook", "app/tools.py", 9, 0, "warning",
                            "Toolkit._error_hooks stores error hooks but nothing invokes them"),
                    None, "4123456789abcdef:0", "baselined",
                    "in baseline planeshift-baseline.json"),
        LintFinding(Finding("PS902", "unused_suppression", "app/tools.py", 30, 12, "warning",
                            "`ignore[PS103]` matched no finding on its line; remove it"),
                    None, "5123456789abcdef:0"),
    )
    return LintResult(
        root="/project", paths=("app",), findings=findings,
        errors=(FileError("app/broken.py", "syntax error (line 1): invalid syntax"),),
        fail_on="warning", severity=(("PS103", "warning"), ("PS107", "off")),
        baseline="planeshift-baseline.json", baseline_fixed=2, files_read=4,
        stats={"seconds": 0.01, "cache": "result"},
    )


def clean_sample() -> LintResult:
    return LintResult(root="/project", paths=(), findings=(), errors=(), fail_on="warning")
