"""Which files a lint run judges: PATHS (relative to the working folder) inside the project root."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..config import ConfigError
from ..repository import git_top


def default_root(cwd: Path) -> Path:
    """The git top-level containing *cwd*, else *cwd* itself."""
    return git_top(cwd) or cwd.resolve()


@dataclass(frozen=True, slots=True)
class Scope:
    """The root-relative posix paths named (files or folders); empty means the whole project."""

    paths: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # those naming files: read for suppressions even without findings

    def __contains__(self, rel: object) -> bool:
        if not self.paths:
            return True
        if not isinstance(rel, str):
            return False
        return any(p == "" or rel == p or rel.startswith(p + "/") for p in self.paths)


def resolve_scope(root: Path, paths: Iterable[Path], cwd: Path | None = None) -> Scope:
    """PATHS as given (relative to *cwd*) turned root-relative; a missing path or one outside
    the root is a ConfigError naming it."""
    root = root.resolve()
    here = cwd or Path.cwd()
    named: list[str] = []
    files: list[str] = []
    for path in paths:
        full = Path(os.path.abspath(here / path))
        if not full.exists():
            raise ConfigError(str(path), "<path>", "no such file or directory")
        rel = _relative(full, root)
        if rel is None:
            raise ConfigError(str(path), "<path>", f"is outside the project root {root}")
        named.append(rel)
        if full.is_file():
            files.append(rel)
    if "" in named:
        return Scope()  # the root itself: the whole project
    return Scope(tuple(dict.fromkeys(named)), tuple(dict.fromkeys(files)))


def _relative(full: Path, root: Path) -> str | None:
    for candidate in (full, full.resolve()):  # as named, then with symlinks followed
        try:
            rel = candidate.relative_to(root).as_posix()
        except ValueError:
            continue
        return "" if rel == "." else rel
    return None
