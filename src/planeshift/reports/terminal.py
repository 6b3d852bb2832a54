"""The terminal report of a scan (rich is imported by this module, ``flow`` and ``progress``
alone, and only when a terminal report or bar is drawn)."""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..types import Activation, Registration, ScanResult
from .flow import Part, flow
from .guidance import context_lines, next_steps, severity_counts
from .json_report import PLANES, mechanism_ids
from .progress import make_console, make_progress

__all__ = ["make_console", "make_progress", "render_terminal", "flow"]

PLANE_STYLES = {
    "interceptor": "magenta",
    "subscriber": "green",
    "observing_subscriber": "cyan",
    "commit_participant": "blue",
    "delivery_sink": "yellow",
    "needs_review": "bold red",
}
SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def render_terminal(result: ScanResult, console: Console, details: bool = False,
                    cwd: Path | None = None) -> None:
    """A header with the context read, the mechanism x plane table, then (with ``details``)
    every site, finding and skipped file; the next step closes a run with findings. Every line
    fits the console: locations are never cut, long text wraps instead."""
    width = console.width
    seconds = result.stats.get("seconds")
    _say(console, [
        ("planeshift scan ", "bold", True), (shown_root(result.root, cwd), "bold cyan", True),
        (f": {plural(result.files_scanned, 'file')}, "
         f"{plural(len(result.registrations), 'registration')}, "
         f"{plural(len(result.emissions), 'emission')}"
         + (f" in {seconds:.2f}s" if isinstance(seconds, (int, float)) else ""), "", True),
    ], width)
    for line in context_lines(result.context, result.packs):
        _say(console, [(line, "dim" if " from " in line else "yellow", True)], width, indent=4)
    console.print(_summary_table(result, width))
    active = {r.mechanism for r in result.registrations} | {e.mechanism for e in result.emissions}
    idle = [m for m in mechanism_ids(result) if m not in active]
    if idle:
        _say(console, [(f"Not present here ({len(idle)} more the packs know): "
                        + ", ".join(idle), "dim", True)], width, indent=4)
    if result.library:
        _say(console, [(f"Activates {plural(len(result.library), 'library registration')} "
                        f"({plural(result.library_activations, 'call')})"
                        + ("" if details else " — run with --details"), "cyan", True)],
             width, indent=4)
    if result.findings:
        counts = severity_counts(f.severity for f in result.findings)
        _say(console, [(f"{plural(len(result.findings), 'finding')} ({counts})"
                        + ("" if details else " — run with --details"), "yellow", True)],
             width, indent=4)
    if details:
        _details(result, console)
    elif result.errors:
        _say(console, [(f"{plural(len(result.errors), 'file')} skipped — run with --details",
                        "red", True)], width, indent=4)
    steps = next_steps(((f.rule, f.severity) for f in result.findings), scan=True)
    if steps:
        console.print(Text("Next:", style="bold"))
        for command, what in steps:
            # a `command` quoted in the text stays on one line
            quoted = [(piece, "", i % 2 == 0) for i, piece in
                      enumerate(re.split(r"(`[^`]*`)", f"  {what}")) if piece]
            _say(console, [("  ", "", True), (command, "bold", False), *quoted], width, indent=4)


def shown_root(root: str, cwd: Path | None) -> str:
    """The scanned root as the header names it: relative to the current folder when inside it.
    Locations are relative to this root, as in the JSON report and the findings' messages."""
    if cwd is None:
        return root
    base, here = Path(root), cwd.resolve()
    if base == here or here in base.parents:
        return Path(os.path.relpath(base, here)).as_posix()
    return root


def _say(console: Console, parts: Sequence[Part], width: int, indent: int = 4) -> None:
    console.print(flow(parts, width, indent), soft_wrap=True)


# --- the summary table ---------------------------------------------------------------------------

# Plane headers broken into syllables, for a terminal too narrow for their words.
HYPHENATED = {
    "interceptor": "inter-\nceptor", "subscriber": "sub-\nscriber",
    "observing_subscriber": "observing\nsub-\nscriber", "commit_participant": "commit\nparti-\ncipant",
    "delivery_sink": "delivery\nsink", "needs_review": "needs\nreview",
}


def _summary_table(result: ScanResult, width: int) -> Table:
    """Mechanisms x planes. It gives way, widest layout first, so that nothing is cut: the
    dispatcher moves under its mechanism's name, plane headers break into syllables, long
    mechanism names break at an underscore; the gap between columns narrows to one blank."""
    totals = Counter(r.plane for r in result.registrations)
    planes = [p for p in (*PLANES, *sorted(set(totals) - set(PLANES))) if totals[p]]
    per_mech: dict[str, Counter[str]] = defaultdict(Counter)
    for reg in result.registrations:
        per_mech[reg.mechanism][reg.plane] += 1
    emitting = {e.mechanism for e in result.emissions}
    # a mechanism with nothing in this tree is one line below the table, not a row of blanks
    ids = [m for m in mechanism_ids(result) if per_mech[m] or m in emitting]
    names = {m.id: _short(m.dispatcher) for m in result.mechanisms}
    spaced = [plane.replace("_", " ").replace(" ", "\n") for plane in planes]
    split = [HYPHENATED.get(plane, text) for plane, text in zip(planes, spaced)]
    longest = max([len("total"), *map(len, ids)])
    dispatchers = max([len("dispatcher"), *(len(names.get(m, "")) for m in ids)])
    # joined, the dispatcher wraps under the name: the column is as wide as its longest word
    words = [len(w) for m in ids for w in re.findall(r"\S+", f"({names.get(m, '')})")]
    both = max([len("(dispatcher)"), *map(len, ids), *words])
    pieces = max([len("(dispatcher)"), *(len(p) for m in ids for p in re.findall(r"[^_]+_?", m)),
                  *words])
    whole = max([both, *(len(f"({names[m]})") for m in ids if names.get(m))])
    layouts = [  # (joined, lead widths, plane headers)
        (False, [max(len("mechanism"), longest), dispatchers], spaced),
        (True, [whole], spaced),
        (True, [both], spaced),
        (True, [whole], split),
        (True, [both], split),
        (True, [pieces], split),
    ]
    chosen = None
    for joined, lead, headers in layouts:
        counts = [max(len(line) for line in h.split("\n")) for h in headers]
        cols = [*lead, len("total"), *counts]
        for gap in (2, 1):
            if sum(cols) + gap * (len(cols) - 1) <= width:
                chosen = (joined, lead, headers, counts, gap)
                break
        if chosen:
            break
    if chosen is None:  # a terminal narrower than any layout: the narrowest one
        joined, lead, headers = layouts[-1]
        chosen = (joined, lead, headers, [max(len(x) for x in h.split("\n")) for h in headers], 1)
    joined, lead, headers, counts, gap = chosen
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1) if gap == 2 else 0,
                  pad_edge=False, collapse_padding=True)
    if joined:
        table.add_column(Text("mechanism\n(dispatcher)"), width=lead[0], overflow="fold")
    else:
        table.add_column("mechanism", width=lead[0], overflow="fold")
        table.add_column("dispatcher", width=lead[1], overflow="fold")
    table.add_column("total", justify="right", width=5)
    for plane, header, size in zip(planes, headers, counts):
        table.add_column(Text(header), justify="right", style=PLANE_STYLES.get(plane, ""),
                         width=size, overflow="fold")
    for mid in ids:
        row = per_mech[mid]
        total = sum(row.values())
        name = names.get(mid, "")
        if joined:
            parts: list[Part] = [(mid, "bold", True)]
            if name:  # whole on its line when it fits there, else broken between words
                parts += [(" ", "", True), (f"({name})", "dim", len(name) + 2 > lead[0])]
            leads = [flow(parts, lead[0], indent=0)]
        else:
            leads = [Text(mid, style="bold"), Text(name)]
        table.add_row(*leads, str(total), *(str(row[p]) if row[p] else "" for p in planes),
                      style="" if total else "dim")
    table.add_section()
    table.add_row(*(["total"] if joined else ["total", ""]), str(len(result.registrations)),
                  *(str(totals[p]) for p in planes), style="bold")
    return table


# --- --details ----------------------------------------------------------------------------------

def _details(result: ScanResult, console: Console) -> None:
    width = console.width
    _by_mechanism(result, result.registrations, console)
    if result.library:
        title = ("Library registrations activated here (made in the library's helpers; they "
                 "happen at the calls listed)")
        _say(console, [(title, "bold underline", True)], width)
        _by_mechanism(result, result.library, console)
    if result.findings:
        console.print(Text("Findings", style="bold"))
        for f in result.findings:
            owner = f" (owner: {f.owner})" if f.owner else ""
            _say(console, [(f"{f.file}:{f.line}:{f.col + 1}:", "", False),
                           (f" {f.rule} ", "bold", True),
                           (f"[{f.severity}]", SEVERITY_STYLES.get(f.severity, ""), True),
                           (f" {f.message}{owner}", "", True)], width)
    if result.errors:
        console.print(Text(f"Skipped files ({len(result.errors)})", style="bold red"))
        for err in result.errors:
            _say(console, [(f"{err.file}:", "", False), (f" {err.message}", "", True)],
                 width)


def _by_mechanism(result: ScanResult, regs: tuple[Registration, ...], console: Console) -> None:
    """Each mechanism's sites: a table when every location fits whole beside the other columns,
    else one site per line; then the activations."""
    by_mech: dict[str, list[Registration]] = defaultdict(list)
    for reg in regs:
        by_mech[reg.mechanism].append(reg)
    titles = {m.id: m.title for m in result.mechanisms}
    width = console.width
    for mid in [*mechanism_ids(result), *sorted(set(by_mech) - set(mechanism_ids(result)))]:
        if not by_mech[mid]:
            continue
        _say(console, [(f"{mid}: {titles.get(mid, mid)}", "bold", True)], width)
        table = _site_table(by_mech[mid], width) if width >= NARROW else None
        if table is None:  # a table would cut locations or wrap its cells letter by letter
            for reg in by_mech[mid]:
                console.print(_site_line(reg, width), soft_wrap=True)
            continue
        console.print(table)
        for reg in by_mech[mid]:
            if reg.activations:
                console.print(_activations(reg, width), soft_wrap=True)


# Site-table columns: (header, narrowest width worth a table, widest useful width); the location
# (first) is never narrower than the longest location. Below the floors a list reads better.
SITE_COLUMNS = (
    ("location", 18, 1 << 30),
    ("api", 10, 28),
    ("point", 10, 24),
    ("handler", 30, 64),
    ("plane", 11, 20),
    ("confidence", 10, 10),
    ("flags", 10, 28),
)
DROP_FIRST = ("confidence",)  # what a narrow table leaves out before it becomes a list


NARROW = 100  # columns below which --details lists one site per line


def _handler(reg: Registration) -> str:
    handler = reg.handler.expr
    if reg.handler.qualname and reg.handler.qualname != handler:
        handler += f" ({reg.handler.qualname})"
    return handler


def _site_line(reg: Registration, width: int) -> Text:
    """``file:line:col  mechanism  plane  handler  point=...  [flags]``, wrapped under its
    location, then one line per activation."""
    parts: list[Part] = [(f"{reg.file}:{reg.line}:{reg.col}", "", False),
                         (f"  {reg.mechanism}  ", "", True),
                         (reg.plane, PLANE_STYLES.get(reg.plane, ""), True),
                         (f"  {_handler(reg)}", "", True)]
    if reg.point:
        parts.append((f"  point={reg.point}", "", True))
    if reg.flags:
        parts.append((f"  [{', '.join(reg.flags)}]", "dim", True))
    text = flow(parts, width)
    for act in reg.activations:
        text.append("\n")
        text.append_text(flow([("    activated at ", "dim", True),
                               (f"{act.file}:{act.line}", "dim", False),
                               (f" ({_via(act)})", "dim", True)], width, indent=8))
    return text


def _activations(reg: Registration, width: int) -> Text:
    parts: list[Part] = [("  ", "dim", True), (f"{reg.file}:{reg.line}", "dim", False),
                         (" is activated at ", "dim", True)]
    for i, act in enumerate(reg.activations):
        parts.append((f"{act.file}:{act.line}", "dim", False))
        parts.append((f" ({_via(act)})" + ("," if i + 1 < len(reg.activations) else ""), "dim",
                      True))
        parts.append((" ", "dim", True))
    return flow(parts, width)


def _via(act: Activation) -> str:
    via = act.helper.rsplit(".", 1)[-1]
    return f"{via}{'' if act.resolved else ', by name'}"


def _site_table(regs: list[Registration], width: int) -> Table | None:
    """The sites as a table whose locations are whole and whose cells wrap between words; the
    confidence column goes first when that does not fit, None when nothing does."""
    rows = []
    for reg in regs:
        rows.append((f"{reg.file}:{reg.line}", reg.api, reg.point or "—", _handler(reg),
                     reg.plane.replace("_", " "), reg.confidence, ", ".join(reg.flags)))
    keep = list(range(len(SITE_COLUMNS)))
    while True:
        columns = [SITE_COLUMNS[i] for i in keep]
        widths = fit_widths([tuple(row[i] for i in keep) for row in rows], width, columns)
        if sum(widths) + len(widths) + 1 <= width:
            break
        dropped = next((i for i in keep if SITE_COLUMNS[i][0] in DROP_FIRST), None)
        if dropped is None:
            return None
        keep.remove(dropped)
    table = Table(box=box.SIMPLE_HEAD, padding=0)  # the box's blank rule separates columns
    for (header, _, _), size in zip(columns, widths):
        table.add_column(header, width=size, overflow="fold")
    for reg, row in zip(regs, rows):
        cells = [flow([(row[i], "", i != 0)], size, indent=0) for i, size in zip(keep, widths)]
        if 4 in keep:
            cells[keep.index(4)].stylize(PLANE_STYLES.get(reg.plane, ""))
        table.add_row(*cells)
    return table


def fit_widths(rows: Sequence[tuple[str, ...]], width: int,
               columns: Sequence[tuple[str, int, int]] = SITE_COLUMNS) -> list[int]:
    """Column widths for ``width``: each as wide as its content (capped), then the widest
    column gives way first, down to its floor, so short columns stay whole; the first column
    (the location) never gives way. The sum may still exceed ``width``: the caller decides."""
    sizes = [
        max(least, min(most, max([len(header), *(len(r[i]) for r in rows)])))
        for i, (header, least, most) in enumerate(columns)
    ]
    floors = [sizes[0], *(least for _, least, _ in columns[1:])]
    room = width - (len(sizes) + 1)  # a blank between columns and one at each edge
    while sum(sizes) > room:
        shrinkable = [i for i, size in enumerate(sizes) if size > floors[i]]
        if not shrinkable:
            break
        sizes[max(shrinkable, key=lambda i: sizes[i])] -= 1
    return sizes


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _short(dispatchers: tuple[str, ...]) -> str:
    if not dispatchers:
        return ""
    if dispatchers[0].startswith("settings key "):
        return "settings files"
    name = dispatchers[0].rsplit(".", 1)[-1]
    return f"{name} +{len(dispatchers) - 1}" if len(dispatchers) > 1 else name
