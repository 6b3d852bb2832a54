"""What every human-facing report says besides its findings: where the library source read as
context came from (or that none was found), and the next step after a run that found something.
Plain text; the terminal, Markdown and lint text reports each lay it out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from ..config import LEVELS
from ..types import ContextUse

BASELINE_FILE = "planeshift-baseline.json"
NO_CONTEXT = ("not found — scanning without the library's source; install the app's "
              "dependencies or pass --context")


def context_lines(uses: Sequence[ContextUse], packs: Sequence[str] = ()) -> list[str]:
    """One ``context: ...`` sentence per package a pack describes: its version and folder and how
    it was found, or that it was not found (or not looked for) and what to do about it."""
    if not uses:
        return ["context: none read (no rule pack needs a library outside the scanned tree)"
                if packs else "context: none read (no rule pack in use)"]
    lines = []
    for use in uses:
        if use.root is None:
            why = NO_CONTEXT if use.origin == "not found" else use.origin
            lines.append(f"context: {use.package} {why}")
            continue
        version = f" {use.version}" if use.version else ""
        files = f"{use.files} {'file' if use.files == 1 else 'files'}"
        lines.append(f"context: {use.package}{version} from {use.root} "
                     f"(found through {use.origin}; {files} read)")
    return lines


def severity_counts(severities: Iterable[str]) -> str:
    """``2 error, 33 warning, 14 info``: highest first, as lint's summary orders them; levels
    with no finding are left out."""
    counts = Counter(severities)
    order = [*LEVELS, *sorted(set(counts) - set(LEVELS))]
    return ", ".join(f"{counts[level]} {level}" for level in order if counts[level])


def lead_rule(found: Iterable[tuple[str, str]]) -> str:
    """Of (rule, severity) pairs, the rule to explain first: the most frequent of the highest
    severity present (the lowest code on a tie)."""
    pairs = list(found)
    rank = {level: i for i, level in enumerate(LEVELS)}
    top = min(rank.get(sev, len(LEVELS)) for _, sev in pairs)
    counts = Counter(rule for rule, sev in pairs if rank.get(sev, len(LEVELS)) == top)
    return min(counts, key=lambda rule: (-counts[rule], rule))


def next_steps(found: Iterable[tuple[str, str]], scan: bool = False) -> list[tuple[str, str]]:
    """(command, what it does) for a run that found (rule, severity) pairs: explain the lead
    rule, suppress one finding with a reason, record the rest in a baseline."""
    pairs = list(found)
    if not pairs:
        return []
    code = lead_rule(pairs)
    rules = sorted({rule for rule, _ in pairs})
    others = f" (rules here: {', '.join(rules)})" if len(rules) > 1 else ""
    gate = " in `planeshift lint`" if scan else ""
    return [
        (f"planeshift explain {code}", f"what the rule checks and how to fix it{others}"),
        (f"# planeshift: ignore[{code}] <reason>",
         f"on the finding's line (or alone above it) silences it{gate}; the reason is required"),
        (f"planeshift baseline -o {BASELINE_FILE}",
         (f"records today's findings; `planeshift lint --baseline {BASELINE_FILE}` then "
          "reports only new ones")),
    ]


def next_step_lines(found: Iterable[tuple[str, str]], scan: bool = False) -> list[str]:
    """The next steps as plain lines (the lint text report)."""
    steps = next_steps(found, scan)
    if not steps:
        return []
    return ["next:", *(f"  {command}  — {what}" for command, what in steps)]
