"""The console the CLI hands to the renderers, and the scan progress bar."""

from __future__ import annotations

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

PROGRESS_THRESHOLD = 50  # smaller scans finish before a bar would be worth drawing


def make_console(
    file: IO[str] | None = None, *, stderr: bool = False, width: int | None = None,
    plain: bool = False,
) -> Console:
    """A console for the CLI to hand back to these renderers, so only this module imports rich."""
    return Console(file=file, stderr=stderr, width=width, no_color=plain,
                   force_terminal=False if plain else None, highlight=False)


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
