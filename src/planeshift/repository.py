"""Where a path's repository is: the nearest folder holding ``.git``."""

from __future__ import annotations

from pathlib import Path


def git_top(start: Path) -> Path | None:
    """The nearest folder at or above *start* holding ``.git`` (a folder, or a worktree's file)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None
