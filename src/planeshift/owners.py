"""Who owns a finding: ``[tool.planeshift] owners``, else the repository's CODEOWNERS file.

Both are lists of gitignore-style patterns where the last match wins. CODEOWNERS is read the
way GitHub reads it: the first of ``.github/CODEOWNERS``, ``CODEOWNERS`` and ``docs/CODEOWNERS``
at the repository top, ``#`` comments, a pattern with no owners leaves the path unowned, and
``dir/*`` owns the files directly in ``dir`` but not those further down.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from . import fsio
from .config import Config
from .repository import git_top

CODEOWNERS_PLACES = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True, slots=True)
class OwnerRule:
    regex: re.Pattern[str]
    owner: str  # "" leaves the path unowned
    dir_only: bool  # "dir/": matches a folder, so only what is below it
    nested: bool  # a folder it matches owns everything below (not so for GitHub's "dir/*")


class OwnerTable:
    """Rules over paths relative to *base*."""

    def __init__(self, base: Path, rules: list[OwnerRule]) -> None:
        self.base, self.rules = base, rules

    def owner(self, path: Path) -> str | None:
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        parts = rel.split("/")
        folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
        for rule in reversed(self.rules):
            if (not rule.dir_only and rule.regex.match(rel)) or (
                rule.nested and any(rule.regex.match(f) for f in folders)
            ):
                return rule.owner or None
        return None


def compile_rule(pattern: str, owner: str, github: bool) -> OwnerRule:
    dir_only = pattern.endswith("/")
    body = pattern.rstrip("/")
    anchored = "/" in body
    body = body.lstrip("/")
    regex = re.compile(("" if anchored else "(?:.*/)?") + _translate(body) + "$")
    nested = not (github and body.endswith("/*") and not body.endswith("/**"))
    return OwnerRule(regex, owner, dir_only, nested)


def _translate(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def read_codeowners(top: Path) -> OwnerTable | None:
    """The repository's CODEOWNERS (the first GitHub would use), or None when it has none."""
    for place in CODEOWNERS_PLACES:
        path = top / place
        if path.is_file():
            try:
                text = fsio.read_text(path, errors="replace")
            except OSError:
                continue  # (a FIFO or an unreadable file owns nothing)
            return OwnerTable(top, [compile_rule(p, o, True) for p, o in parse_codeowners(text)])
    return None


def parse_codeowners(text: str) -> list[tuple[str, str]]:
    """(pattern, owners) per line; owners space-separated, "" when the line names none."""
    rules = []
    for line in text.splitlines():
        words = line.strip().split()
        if not words or words[0].startswith("#"):
            continue
        owners = []
        for word in words[1:]:
            if word.startswith("#"):
                break  # an inline comment
            owners.append(word)
        rules.append((words[0].replace("\\#", "#"), " ".join(owners)))
    return rules


class Owners:
    """The owner of a root-relative path: the config's table first, then CODEOWNERS."""

    def __init__(self, config: Config) -> None:
        self.root = config.root
        self.tables: list[OwnerTable] = []
        if config.owners:
            rules = [compile_rule(p, o.strip(), False) for p, o in config.owners]
            self.tables.append(OwnerTable(config.base, rules))
        codeowners = read_codeowners(git_top(config.root) or config.root)
        if codeowners is not None:
            self.tables.append(codeowners)

    def __call__(self, rel: str) -> str | None:
        path = self.root / rel
        for table in self.tables:
            owner = table.owner(path)
            if owner is not None:
                return owner
        return None
