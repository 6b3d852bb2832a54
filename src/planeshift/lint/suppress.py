"""Match findings against suppression comments: which findings each comment silences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..types import Finding
from .comments import Suppression


def apply(findings: Sequence[Finding], comments: Sequence[Suppression]
          ) -> tuple[dict[int, Suppression], list[Suppression]]:
    """(finding index -> the comment that suppresses it, the comments with ``used`` filled in).

    A well-formed comment suppresses a finding of one of its codes when it covers one of the
    finding's lines (its first line, through its last when the finding has an end)."""
    covering: dict[tuple[str, int], list[int]] = {}
    for i, comment in enumerate(comments):
        if not comment.problem:
            for line in comment.covers:
                covering.setdefault((comment.file, line), []).append(i)
    used: dict[int, set[str]] = {}
    suppressed: dict[int, Suppression] = {}
    for index, finding in enumerate(findings):
        last = getattr(finding, "end_line", None) or finding.line
        for line in range(finding.line, max(last, finding.line) + 1):
            for i in covering.get((finding.file, line), ()):
                if finding.rule in comments[i].codes:
                    used.setdefault(i, set()).add(finding.rule)
                    suppressed.setdefault(index, comments[i])
    updated = [replace(c, used=tuple(sorted(used.get(i, ())))) for i, c in enumerate(comments)]
    return suppressed, updated
