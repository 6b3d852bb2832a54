"""One lint run: scan the whole project, judge the findings in scope, return a LintResult.

The scan (``api.scan``, with its caches) sees the whole project so names resolve everywhere;
only findings in the files the run names are judged: severity overrides, then suppression
comments, then the baseline. Only the files in scope that have findings, and the files named
explicitly, are read.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from ..config import Config
from ..owners import Owners
from ..types import Finding, ScanResult
from .baseline import BaselineEntry, load_baseline
from .comments import SourceText, Suppression, read_source
from .fingerprint import fingerprints, site_index
from .model import LintFinding, LintResult
from .scope import Scope
from .suppress import apply


def lint(config: Config, scope: Scope, baseline: Path | None = None,
         fail_on: str | None = None, scanned: ScanResult | None = None) -> LintResult:
    """Judge the findings in *scope*; *scanned* reuses a scan already made of this config."""
    from .. import (
        api,  # the analyzer stack: imported when a run needs it, not for --help
    )

    result = scanned if scanned is not None else api.scan(config)
    started = time.perf_counter()
    overrides = dict(config.severity)
    hazards = configured((f for f in result.findings if reaches(f, scope)), overrides)
    errors = tuple(e for e in result.errors if e.file in scope)
    broken = {e.file for e in errors}
    sources = {rel: read_source(config.root / rel, rel)
               for rel in sorted({f.file for f in hazards} | set(scope.files))}
    comments = [c for rel, text in sources.items() if text and rel not in broken
                for c in text.comments]
    suppressed, comments = apply(hazards, comments)
    # a comment is judged in the files in scope only: a file read for a finding the change
    # reaches may hold suppressions of findings the change does not reach
    findings = [*hazards, *configured(_comment_findings([c for c in comments if c.file in scope]),
                                      overrides)]
    judged = _judge(findings, suppressed, result, sources, config, scope)
    entries = load_baseline(baseline) if baseline is not None else ()
    reached = {(j.finding.file, j.fingerprint) for j in judged if j.reached_from}
    judged, fixed = _apply_baseline(
        judged, [e for e in entries if e.file in scope or e.key in reached], baseline)
    stats = {**result.stats, "lint_seconds": round(time.perf_counter() - started, 3)}
    return LintResult(
        root=config.root.as_posix(),
        paths=scope.paths,
        findings=tuple(sorted(judged, key=_order)),
        errors=errors,
        fail_on=fail_on or config.fail_on,
        severity=config.severity,
        baseline=str(baseline) if baseline is not None else None,
        baseline_fixed=fixed,
        files_read=len(sources),
        context=result.context,
        packs=result.packs,
        stats=stats,
    )


def reaches(finding: Finding, scope: Scope) -> bool:
    """Is *finding* judged: it lies in scope, or a file its evidence comes from does (a
    handler made async in a changed file turns a registration elsewhere into a hazard)."""
    return finding.file in scope or any(f in scope for f in finding.evidence_files)


def configured(findings: Iterable[Finding], overrides: dict[str, str]) -> list[Finding]:
    """Findings at their configured severity; a rule set to "off" reports nothing."""
    out = []
    for f in findings:
        level = overrides.get(f.rule)
        if level == "off":
            continue
        out.append(replace(f, severity=level) if level and level != f.severity else f)
    return out


def _comment_findings(comments: Sequence[Suppression]) -> list[Finding]:
    from ..rules.suppressions import run_suppression_rules

    return run_suppression_rules(comments)


def _judge(findings: Sequence[Finding], suppressed: dict[int, Suppression], result: ScanResult,
           sources: dict[str, SourceText | None], config: Config,
           scope: Scope) -> list[LintFinding]:
    from ..rules.suppressions import all_suppression_rules

    comment_rules = frozenset(r.code for r in all_suppression_rules())
    prints = fingerprints(findings, site_index(result.registrations), sources, comment_rules)
    owners = Owners(config)
    out = []
    for i, (finding, fingerprint) in enumerate(zip(findings, prints, strict=True)):
        by = suppressed.get(i)
        via = () if finding.file in scope else tuple(
            f for f in finding.evidence_files if f in scope)
        out.append(LintFinding(finding, owners(finding.file), fingerprint,
                               "suppressed" if by else "open", by.reason if by else "", via))
    return out


def _apply_baseline(judged: list[LintFinding], entries: Sequence[BaselineEntry],
                    baseline: Path | None) -> tuple[list[LintFinding], int]:
    """Open findings the baseline holds become "baselined"; returns them and how many entries
    matched nothing (fixed). A suppressed finding still uses up its entry."""
    left = Counter(e.key for e in entries)
    out = []
    for item in judged:
        key = (item.finding.file, item.fingerprint)
        if left[key] > 0:
            left[key] -= 1
            if item.status == "open":
                item = replace(item, status="baselined", justification=f"in baseline {baseline}")
        out.append(item)
    return out, sum(left.values())


def baseline_entries(result: LintResult) -> list[BaselineEntry]:
    """What ``planeshift baseline`` records: every finding in PATHS no comment suppresses (one a
    change in PATHS reaches in another file is that file's to record)."""
    return [BaselineEntry(f.finding.file, f.finding.rule, f.finding.kind, f.fingerprint,
                          f.finding.message) for f in result.findings
            if f.status != "suppressed" and not f.reached_from]


def _order(item: LintFinding) -> tuple:
    f = item.finding
    return (f.file, f.line, f.col, f.rule, f.message)
