"""The terminal report and scan progress bar; the only module that imports rich."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from types import TracebackType
from typing import IO

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
    console.print(_summary_table(result))
    if result.findings:
        counts = Counter(f.severity for f in result.findings)
        parts = ", ".join(f"{n} {sev}" for sev, n in sorted(counts.items()))
        console.print(Text(f"{plural(len(result.findings), 'finding')} ({parts})", style="yellow"))
    if details:
        _details(result, console)
    elif result.errors:
        console.print(Text(f"{plural(len(result.errors), 'file')} skipped — run with --details",
                           style="red"))


def _summary_table(result: ScanResult) -> Table:
    totals = Counter(r.plane for r in result.registrations)
    planes = [p for p in (*PLANES, *sorted(set(totals) - set(PLANES))) if totals[p]]
    per_mech: dict[str, Counter[str]] = defaultdict(Counter)
    for reg in result.registrations:
        per_mech[reg.mechanism][reg.plane] += 1
    dispatchers = {m.id: m.dispatcher for m in result.mechanisms}
    table = Table()
    table.add_column("mechanism", style="bold")
    table.add_column("dispatcher")
    table.add_column("total", justify="right")
    for plane in planes:
        table.add_column(plane, justify="right", style=PLANE_STYLES.get(plane, ""))
    for mid in mechanism_ids(result):
        counts = per_mech[mid]
        total = sum(counts.values())
        table.add_row(
            Text(mid), Text(_short(dispatchers.get(mid, ()))), str(total),
            *(str(counts[p]) if counts[p] else "" for p in planes),
            style="" if total else "dim",
        )
    table.add_section()
    table.add_row("total", "", str(len(result.registrations)), *(str(totals[p]) for p in planes),
                  style="bold")
    return table


def _details(result: ScanResult, console: Console) -> None:
    by_mech: dict[str, list[Registration]] = defaultdict(list)
    for reg in result.registrations:
        by_mech[reg.mechanism].append(reg)
    titles = {m.id: m.title for m in result.mechanisms}
    for mid in mechanism_ids(result):
        if by_mech[mid]:
            console.print(Text(f"{mid}: {titles.get(mid, mid)}", style="bold"))
            console.print(_site_table(by_mech[mid]))
    if result.findings:
        console.print(Text("Findings", style="bold"))
        table = Table("rule", "severity", "location", "message")
        for f in result.findings:
            table.add_row(f.rule, Text(f.severity, style=SEVERITY_STYLES.get(f.severity, "")),
                          Text(f"{f.file}:{f.line}"), Text(f.message))
        console.print(table)
    if result.errors:
        console.print(Text(f"Skipped files ({len(result.errors)})", style="bold red"))
        table = Table("file", "reason")
        for err in result.errors:
            table.add_row(Text(err.file), Text(err.message))
        console.print(table)


def _site_table(regs: list[Registration]) -> Table:
    table = Table()
    table.add_column("location", no_wrap=True)
    table.add_column("api", overflow="fold")
    table.add_column("point", overflow="fold")
    table.add_column("handler", overflow="fold")
    table.add_column("plane", no_wrap=True)
    table.add_column("confidence", no_wrap=True)
    table.add_column("flags", overflow="fold")
    for reg in regs:
        handler = reg.handler.expr
        if reg.handler.qualname and reg.handler.qualname != handler:
            handler += f" ({reg.handler.qualname})"
        table.add_row(
            Text(f"{reg.file}:{reg.line}"), Text(reg.api), Text(reg.point or "—"), Text(handler),
            Text(reg.plane, style=PLANE_STYLES.get(reg.plane, "")), reg.confidence,
            Text(", ".join(reg.flags)),
        )
    return table


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _short(dispatchers: tuple[str, ...]) -> str:
    if not dispatchers:
        return ""
    name = dispatchers[0].rsplit(".", 1)[-1]
    return f"{name} +{len(dispatchers) - 1}" if len(dispatchers) > 1 else name


class ScanProgress:
    """A progress bar that only appears once a scan turns out to have enough files to need one."""

    def __init__(self, console: Console, threshold: int = PROGRESS_THRESHOLD) -> None:
        self.threshold = threshold
        self._progress = Progress(
            TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
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


def make_progress(console: Console) -> tuple[ScanProgress, Callable[[int, int], None]]:
    """A context manager and the ``(done, total)`` callback ``api.scan`` reports progress to."""
    bar = ScanProgress(console)
    return bar, bar.update
