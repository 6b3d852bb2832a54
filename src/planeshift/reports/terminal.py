"""The terminal report and scan progress bar; the only module that imports rich."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from types import TracebackType
from typing import IO

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from ..types import Registration, ScanResult
from .json_report import PLANES, mechanism_ids

PROGRESS_THRESHOLD = 50  # smaller scans finish before a bar would be worth drawing
PLANE_STYLES = {
    "interceptor": "magenta",
    "subscriber": "green",
    "observing_subscriber": "cyan",
    "commit_participant": "blue",
    "delivery_sink": "yellow",
    "needs_review": "bold red",
}
SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def make_console(
    file: IO[str] | None = None, *, stderr: bool = False, width: int | None = None,
    plain: bool = False,
) -> Console:
    """A console for the CLI to hand back to these renderers, so only this module imports rich."""
    return Console(file=file, stderr=stderr, width=width, no_color=plain,
                   force_terminal=False if plain else None, highlight=False)


def render_terminal(result: ScanResult, console: Console, details: bool = False) -> None:
    """A header, the mechanism x plane table, then (with ``details``) every site and skipped file."""
    seconds = result.stats.get("seconds")
    header = Text.assemble(
        ("planeshift scan ", "bold"), (result.root, "bold cyan"),
        f": {plural(result.files_scanned, 'file')}, "
        f"{plural(len(result.registrations), 'registration')}, "
        f"{plural(len(result.emissions), 'emission')}",
        f" in {seconds:.2f}s" if isinstance(seconds, (int, float)) else "",
    )
    console.print(header)
    console.print(_summary_table(result, console.width))
    active = {r.mechanism for r in result.registrations} | {e.mechanism for e in result.emissions}
    idle = [m for m in mechanism_ids(result) if m not in active]
    if idle:
        console.print(Text(f"Not present here ({len(idle)} more the packs know): "
                           + ", ".join(idle), style="dim"))
    if result.library:
        console.print(Text(f"Activates {plural(len(result.library), 'library registration')} "
                           f"({plural(result.library_activations, 'call')})"
                           + ("" if details else " — run with --details"), style="cyan"))
    if result.findings:
        counts = Counter(f.severity for f in result.findings)
        parts = ", ".join(f"{n} {sev}" for sev, n in sorted(counts.items()))
        console.print(Text(f"{plural(len(result.findings), 'finding')} ({parts})", style="yellow"))
    if details:
        _details(result, console)
    elif result.errors:
        console.print(Text(f"{plural(len(result.errors), 'file')} skipped — run with --details",
                           style="red"))


def _summary_table(result: ScanResult, width: int) -> Table:
    totals = Counter(r.plane for r in result.registrations)
    planes = [p for p in (*PLANES, *sorted(set(totals) - set(PLANES))) if totals[p]]
    per_mech: dict[str, Counter[str]] = defaultdict(Counter)
    for reg in result.registrations:
        per_mech[reg.mechanism][reg.plane] += 1
    emitting = {e.mechanism for e in result.emissions}
    # a mechanism with nothing in this tree is one line below the table, not a row of blanks
    ids = [m for m in mechanism_ids(result) if per_mech[m] or m in emitting]
    names = {m.id: _short(m.dispatcher) for m in result.mechanisms}
    # Spaced plane headers wrap onto two lines: each count column is as wide as its longest word.
    headers = [plane.replace("_", " ") for plane in planes]
    mins = [max(len(word) for word in header.split()) for header in headers]
    fixed = max([len("mechanism"), *map(len, ids)]) + len("total") + sum(mins) + len(planes) + 2
    # On a narrow terminal the plane counts matter more than the dispatcher's name.
    show_dispatcher = width - fixed >= min(14, max([0, *map(len, names.values())]))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("mechanism", style="bold", no_wrap=True)
    if show_dispatcher:
        table.add_column("dispatcher", overflow="ellipsis")
    table.add_column("total", justify="right", width=5)
    for plane, header, least in zip(planes, headers, mins):
        table.add_column(header, justify="right", style=PLANE_STYLES.get(plane, ""), width=least)
    for mid in ids:
        counts = per_mech[mid]
        total = sum(counts.values())
        lead = [Text(mid), Text(names.get(mid, ""))] if show_dispatcher else [Text(mid)]
        table.add_row(*lead, str(total), *(str(counts[p]) if counts[p] else "" for p in planes),
                      style="" if total else "dim")
    table.add_section()
    lead = ["total", ""] if show_dispatcher else ["total"]
    table.add_row(*lead, str(len(result.registrations)), *(str(totals[p]) for p in planes),
                  style="bold")
    return table


def _details(result: ScanResult, console: Console) -> None:
    _by_mechanism(result, result.registrations, console)
    if result.library:
        console.print(Text("Library registrations activated here (made in the library's "
                           "helpers; they happen at the calls listed)", style="bold underline"))
        _by_mechanism(result, result.library, console)
    if result.findings:
        console.print(Text("Findings", style="bold"))
        table = Table("rule", "severity", "location", "message", box=box.SIMPLE_HEAD,
                      pad_edge=False)
        for f in result.findings:
            table.add_row(f.rule, Text(f.severity, style=SEVERITY_STYLES.get(f.severity, "")),
                          Text(f"{f.file}:{f.line}"), Text(f.message))
        console.print(table)
    if result.errors:
        console.print(Text(f"Skipped files ({len(result.errors)})", style="bold red"))
        table = Table("file", "reason", box=box.SIMPLE_HEAD, pad_edge=False)
        for err in result.errors:
            table.add_row(Text(err.file), Text(err.message))
        console.print(table)


def _by_mechanism(result: ScanResult, regs: tuple[Registration, ...], console: Console) -> None:
    """Each mechanism's sites: a table, or one per line on a narrow terminal; then the
    activations."""
    by_mech: dict[str, list[Registration]] = defaultdict(list)
    for reg in regs:
        by_mech[reg.mechanism].append(reg)
    titles = {m.id: m.title for m in result.mechanisms}
    for mid in [*mechanism_ids(result), *sorted(set(by_mech) - set(mechanism_ids(result)))]:
        if by_mech[mid]:
            console.print(Text(f"{mid}: {titles.get(mid, mid)}", style="bold"))
            if console.width < NARROW:  # a table would wrap its cells letter by letter
                for reg in by_mech[mid]:
                    console.print(_site_line(reg), soft_wrap=True)
            else:
                console.print(_site_table(by_mech[mid], console.width))
                for reg in by_mech[mid]:
                    if reg.activations:
                        console.print(_activations(reg), soft_wrap=True)


# Site-table columns: (header, narrowest legible width, widest useful width, overflow).
SITE_COLUMNS = (
    ("location", 18, 48, "fold"),
    ("api", 6, 28, "fold"),
    ("point", 8, 24, "fold"),
    ("handler", 12, 64, "fold"),
    ("plane", 11, 20, "ellipsis"),
    ("confidence", 10, 10, "ellipsis"),
    ("flags", 5, 28, "fold"),
)


NARROW = 100  # columns below which --details lists one site per line


def _handler(reg: Registration) -> str:
    handler = reg.handler.expr
    if reg.handler.qualname and reg.handler.qualname != handler:
        handler += f" ({reg.handler.qualname})"
    return handler


def _site_line(reg: Registration) -> Text:
    """``file:line:col  mechanism  plane  handler``, then its flags and activations."""
    text = Text(f"{reg.file}:{reg.line}:{reg.col}  {reg.mechanism}  ")
    text.append(reg.plane, style=PLANE_STYLES.get(reg.plane, ""))
    text.append(f"  {_handler(reg)}")
    if reg.point:
        text.append(f"  point={reg.point}")
    if reg.flags:
        text.append(f"  [{', '.join(reg.flags)}]", style="dim")
    for act in reg.activations:
        text.append(f"\n    activated at {_activation(act)}", style="dim")
    return text


def _activations(reg: Registration) -> Text:
    places = ", ".join(_activation(a) for a in reg.activations)
    return Text(f"  {reg.file}:{reg.line} is activated at {places}", style="dim")


def _activation(act) -> str:
    where = f"{act.file}:{act.line}"
    via = act.helper.rsplit(".", 1)[-1]
    return f"{where} ({via}{'' if act.resolved else ', by name'})"


def _site_table(regs: list[Registration], width: int) -> Table:
    rows = []
    for reg in regs:
        handler = _handler(reg)
        rows.append((f"{reg.file}:{reg.line}", reg.api, reg.point or "—", handler,
                     reg.plane.replace("_", " "), reg.confidence, ", ".join(reg.flags)))
    widths = fit_widths(rows, width)
    table = Table(box=box.SIMPLE_HEAD, padding=0)  # the box's blank rule separates columns
    for (header, _, _, overflow), size in zip(SITE_COLUMNS, widths):
        table.add_column(header, width=size, overflow=overflow)  # type: ignore[arg-type]
    for reg, row in zip(regs, rows):
        cells = [Text(cell) for cell in row]
        cells[4].stylize(PLANE_STYLES.get(reg.plane, ""))
        table.add_row(*cells)
    return table


def fit_widths(rows: list[tuple[str, ...]], width: int) -> list[int]:
    """Column widths that fit ``width``: each as wide as its content (capped), then the widest
    column gives way first, so short columns stay whole; rich's own shrinking starves them."""
    sizes = [
        max(least, min(most, max([len(header), *(len(r[i]) for r in rows)])))
        for i, (header, least, most, _) in enumerate(SITE_COLUMNS)
    ]
    floors = [least for _, least, _, _ in SITE_COLUMNS]
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


class ScanProgress:
    """A progress bar that only appears once a scan turns out to have enough files to need one."""

    def __init__(self, console: Console, threshold: int = PROGRESS_THRESHOLD,
                 label: str = "scanning") -> None:
        self.threshold = threshold
        self._progress = Progress(
            TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=True,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> ScanProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._task is not None:
            self._progress.stop()

    def update(self, done: int, total: int) -> None:
        if self._task is None:
            if total <= self.threshold:
                return
            self._progress.start()
            self._task = self._progress.add_task("scan", total=total)
        self._progress.update(self._task, completed=done, total=total)


def make_progress(console: Console, label: str = "scanning", threshold: int = PROGRESS_THRESHOLD
                  ) -> tuple[ScanProgress, Callable[[int, int], None]]:
    """A context manager and the ``(done, total)`` callback ``api.scan`` (or a migration)
    reports progress to; it appears only once a run has more than *threshold* steps."""
    bar = ScanProgress(console, threshold, label)
    return bar, bar.update
