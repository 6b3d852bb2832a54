"""The Markdown report: registrations by mechanism and plane, fit to paste into an ADR."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ..types import (
    AxisEvidence,
    Emission,
    FileError,
    Finding,
    MechanismSummary,
    Registration,
    ScanResult,
)
from .guidance import context_lines, next_steps
from .json_report import PLANES, mechanism_ids
from .matrix import render_matrix
from .md_table import cell, code, table

NONE = "—"


def render_markdown(result: ScanResult) -> str:
    """Summary, one section per active mechanism, the review list, findings, skipped files."""
    by_mech: dict[str, list[Registration]] = defaultdict(list)
    for reg in result.registrations:
        by_mech[reg.mechanism].append(reg)
    emissions: dict[str, list[Emission]] = defaultdict(list)
    for em in result.emissions:
        emissions[em.mechanism].append(em)
    summaries = {m.id: m for m in result.mechanisms}
    ids = mechanism_ids(result)
    active = [mid for mid in ids if by_mech[mid] or emissions[mid]]
    idle = [mid for mid in ids if not by_mech[mid]]

    parts = [_header(result), _summary_table(result, ids, by_mech, idle), render_matrix(result)]
    for mid in active:
        parts.append(_mechanism_section(mid, summaries.get(mid), by_mech[mid], emissions[mid]))
    parts.append(_needs_review(result.registrations))
    if result.library:
        parts.append(_library(result.library))
    if result.findings:
        parts.append(_findings(result.findings))
    if result.errors:
        parts.append(_skipped(result.errors))
    parts.append(_next_steps(result.findings))
    return "\n\n".join(p for p in parts if p).rstrip("\n") + "\n"


def _header(result: ScanResult) -> str:
    facts = [
        f"- Scan root: {code(result.root)}",
        f"- Files scanned: {result.files_scanned} ({result.files_with_sites} with candidate sites)",
        f"- Registrations: {len(result.registrations)}; emission sites: {len(result.emissions)}",
    ]
    if result.packs:
        facts.append(f"- Rule packs: {', '.join(code(p) for p in result.packs)}")
    for line in context_lines(result.context, result.packs):
        facts.append("- Context: " + cell(line.removeprefix("context: ")))
    if result.library:
        calls = result.library_activations
        facts.append(f"- Library registrations activated here: {len(result.library)}, by {calls} "
                     "calls (see [Library registrations activated here]"
                     "(#library-registrations-activated-here))")
    if result.errors:
        facts.append(f"- Skipped files: {len(result.errors)} (see [Skipped files](#skipped-files))")
    return "# planeshift inventory\n\n" + "\n".join(facts)


def _summary_table(
    result: ScanResult, ids: list[str], by_mech: dict[str, list[Registration]], idle: list[str]
) -> str:
    totals = Counter(r.plane for r in result.registrations)
    planes = [*PLANES, *sorted(set(totals) - set(PLANES))]
    rows = []
    for mid in ids:
        if mid in idle:
            continue
        counts = Counter(r.plane for r in by_mech[mid])
        rows.append([code(mid), *(counts[p] or "" for p in planes), len(by_mech[mid])])
    rows.append(["**total**", *(f"**{totals[p]}**" for p in planes),
                 f"**{len(result.registrations)}**"])
    out = "## Summary\n\n" + table(["mechanism", *planes, "total"], rows, "l" + "r" * (len(planes) + 1))
    if idle:
        out += "\n\nNo registrations found: " + ", ".join(code(mid) for mid in idle) + "."
    return out


def _mechanism_section(
    mid: str, summary: MechanismSummary | None, regs: list[Registration], ems: list[Emission]
) -> str:
    title = summary.title if summary is not None else mid
    parts = [f"## {code(mid)}: {title}", _mechanism_facts(summary, regs, ems)]
    if summary is not None and summary.policy_axes:
        rows = [(a.axis, a.value, a.provenance, _first_evidence(a.evidence))
                for a in summary.policy_axes]
        policy = ("Dispatch policy (ADR-0120 D2):\n\n"
                  + table(["axis", "value", "from", "evidence"], rows))
        if summary.policy_evidence:
            policy += "\n\nPolicy evidence: " + "; ".join(summary.policy_evidence)
        parts.append(policy)
    elif summary is not None and summary.policy:
        policy = "Dispatch policy (ADR-0120 D2):\n\n" + table(["axis", "value"], summary.policy)
        if summary.policy_evidence:
            policy += "\n\nPolicy evidence: " + "; ".join(summary.policy_evidence)
        parts.append(policy)
    if regs:
        parts.append(_registration_table(regs))
    return "\n\n".join(parts)


def _mechanism_facts(
    summary: MechanismSummary | None, regs: list[Registration], ems: list[Emission]
) -> str:
    facts: list[str] = []
    if summary is not None:
        facts.append(f"- Dispatcher: {_codes(summary.dispatcher)}")
        if summary.pack:
            facts.append(f"- Pack: {code(summary.pack)}")
        facts.append(f"- Registration APIs: {_codes(summary.registration_apis)}")
        facts.append(f"- Emission APIs: {_codes(summary.emission_apis)}")
        facts.append(f"- Emitted points: {_codes(summary.emitted_points)}")
        facts.append(f"- Dormant points (registered, never emitted): {_codes(summary.dormant_points)}")
    facts.append(f"- Registrations: {len(regs)}")
    sites = ", ".join(f"{code(_loc(e))} {code(e.api)}" + (f" {code(e.point)}" if e.point else "")
                      for e in ems)
    facts.append(f"- Emission sites ({len(ems)}): {sites or NONE}")
    return "\n".join(facts)


def _registration_table(regs: list[Registration]) -> str:
    header = ["#", "location", "api", "point", "handler", "plane", "confidence", "flags"]
    rows = [
        [n, code(_loc(r)), code(r.api), code(r.point) if r.point else NONE, _handler(r),
         f"**{r.plane}**" if r.plane == "needs_review" else r.plane, r.confidence,
         ", ".join(r.flags) or NONE]
        for n, r in enumerate(regs, 1)
    ]
    notes = [
        f"{n}. " + cell("; ".join(_evidence(r)) or NONE) + _activated(r)
        for n, r in enumerate(regs, 1)
    ]
    return table(header, rows, "r") + "\n\nEvidence:\n\n" + "\n".join(notes)


def _activated(reg: Registration) -> str:
    """Where a registration made inside a helper happens: the calls of the helper."""
    if not reg.activations:
        return ""
    places = ", ".join(
        code(f"{a.file}:{a.line}") + ("" if a.helper.endswith(f".{reg.scope}") else
                                      f" (via {code(a.helper.rsplit('.', 1)[-1])})")
        + ("" if a.resolved else " (by name)") for a in reg.activations)
    return f" Activated at: {places}."


def _library(regs: Sequence[Registration]) -> str:
    """The registrations a library makes in its helpers, where this code calls the helpers."""
    rows = [[code(_loc(r)), code(r.mechanism), _handler(r), r.plane, r.confidence] for r in regs]
    notes = [f"{n}. {code(_loc(r))}:" + _activated(r) for n, r in enumerate(regs, 1)]
    return ("## Library registrations activated here\n\nMade inside a library's helpers (read as "
            "context, not reported above); they happen where this code calls the helpers:\n\n"
            + table(["registration", "mechanism", "handler", "plane", "confidence"], rows)
            + "\n\n" + "\n".join(notes))


def _needs_review(regs: Sequence[Registration]) -> str:
    pending = [r for r in regs if r.plane == "needs_review"]
    if not pending:
        return "## Needs review\n\nNone: every registration was classified."
    lines = [
        f"- {code(_loc(r))} {code(r.mechanism)} {code(r.api)} {_handler(r)}: "
        + cell(r.evidence[0] if r.evidence else "no evidence recorded")
        for r in pending
    ]
    count = "1 registration" if len(pending) == 1 else f"{len(pending)} registrations"
    return f"## Needs review\n\n{count} the code does not decide:\n\n" + "\n".join(lines)


def _findings(findings: Sequence[Finding]) -> str:
    rows = [[f.rule, f.severity, code(_loc(f)), code(f.mechanism) if f.mechanism else NONE,
             f.owner or NONE, f.message] for f in findings]
    return "## Findings\n\n" + table(
        ["rule", "severity", "location", "mechanism", "owner", "message"], rows)


def _next_steps(findings: Sequence[Finding]) -> str:
    steps = next_steps(((f.rule, f.severity) for f in findings), scan=True)
    if not steps:
        return ""
    return "## Next steps\n\n" + "\n".join(f"- {code(command)}: {cell(what)}"
                                            for command, what in steps)


def _skipped(errors: Sequence[FileError]) -> str:
    lines = [f"- {code(e.file)}: {cell(e.message)}" for e in errors]
    return "## Skipped files\n\n" + "\n".join(lines)


def _handler(reg: Registration) -> str:
    h = reg.handler
    text = code(h.expr)
    notes = [code(h.qualname)] if h.qualname and h.qualname != h.expr else []
    if h.declared_async:
        notes.append("async")
    elif h.returns_awaitable:
        notes.append("sync, may return an awaitable")
    return f"{text} ({', '.join(notes)})" if notes else text


def _evidence(reg: Registration) -> list[str]:
    """The evidence lines, led by the deciding rule unless a line already names it."""
    named = not reg.rule or any(reg.rule in line for line in reg.evidence)
    return ([] if named else [f"rule {reg.rule}"]) + list(reg.evidence)


def _first_evidence(evidence: Sequence[AxisEvidence]) -> str:
    first = next((e for e in evidence if e.file), evidence[0] if evidence else None)
    if first is None:
        return NONE
    return f"{code(f'{first.file}:{first.line}')} {first.seen}" if first.file else first.seen


def _loc(site: Registration | Emission | Finding) -> str:
    return f"{site.file}:{site.line}"


def _codes(values: Sequence[str]) -> str:
    return ", ".join(code(v) for v in values) or NONE
