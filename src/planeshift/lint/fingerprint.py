"""Baseline fingerprints: who a finding is, without where it is.

A fingerprint hashes the rule, the file, the finding's qualified names (its mechanism, and the
handler and enclosing scope of the registration it reports on) and its source line(s) with
whitespace collapsed, never the line number: moving code down a file or renaming something
elsewhere keeps it. Findings alike in one file are told apart by their order (``<hash>:<n>``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence

from ..types import Finding, Registration
from .comments import SourceText

Site = tuple[str, int, int, str]


def site_index(registrations: Sequence[Registration]) -> dict[Site, list[Registration]]:
    index: dict[Site, list[Registration]] = {}
    for reg in registrations:
        index.setdefault((reg.file, reg.line, reg.col, reg.mechanism), []).append(reg)
    return index


def registration_of(finding: Finding,
                    index: Mapping[Site, list[Registration]]) -> Registration | None:
    """The registration a finding reports on: the one at its site, or, where several share the
    site (a list of handlers), the one whose handler the message names."""
    found = index.get((finding.file, finding.line, finding.col, finding.mechanism), [])
    if len(found) <= 1:
        return found[0] if found else None
    named = [r for r in found if r.handler.expr and r.handler.expr in finding.message]
    return max(named, key=lambda r: len(r.handler.expr)) if named else None


def names_of(finding: Finding, reg: Registration | None) -> tuple[str, ...]:
    if reg is None:
        return (finding.mechanism,)
    return (finding.mechanism, reg.handler.qualname or reg.handler.expr, reg.scope)


def fingerprints(findings: Sequence[Finding], index: Mapping[Site, list[Registration]],
                 sources: Mapping[str, SourceText | None],
                 comment_rules: frozenset[str]) -> list[str]:
    """One fingerprint per finding, in the order given. *comment_rules* are the rules reporting on
    a suppression comment itself, whose snippet keeps the comment."""
    bases = []
    for f in findings:
        text = sources.get(f.file)
        end = getattr(f, "end_line", None)
        snippet = text.snippet(f.line, end, f.rule in comment_rules) if text else ""
        parts = (f.rule, f.file, *names_of(f, registration_of(f, index)), snippet)
        bases.append(hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16])
    order = sorted(range(len(findings)),
                   key=lambda i: (findings[i].file, findings[i].line, findings[i].col,
                                  findings[i].rule, findings[i].message))
    seen: Counter[tuple[str, str]] = Counter()
    out = [""] * len(findings)
    for i in order:
        key = (findings[i].file, bases[i])
        out[i] = f"{bases[i]}:{seen[key]}"
        seen[key] += 1
    return out
