"""Discover the files to scan: Python sources under a root, minus .gitignore'd and excluded paths.

``.gitignore`` files are honoured the way git reads them (patterns relative to their own folder,
``!`` negation, ``dir/`` for folders only, anchored patterns, ``**``), including those between the
repository top and the scan root. ``--exclude`` takes the same pattern language.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ALWAYS_SKIPPED = {
    ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".planeshift_cache", "site-packages",
}


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # posix, relative to the scan root
    module: str
    is_package: bool


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
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
        elif pattern[i] == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape("["))
                i += 1
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out.append(f"[{'^' + body[1:] if body.startswith('!') else body}]")
                i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Rule:
    base: str  # folder of the .gitignore relative to the scan root; "\0<path>" for an ancestor
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


class IgnoreRules:
    """An ordered list of gitignore-style rules; the last rule that matches a path decides."""

    def __init__(self) -> None:
        self.rules: list[_Rule] = []
        self.unreadable: list[str] = []  # ignore files that could not be read, and why

    def add_lines(self, lines: list[str], base: str) -> None:
        for raw in lines:
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.startswith("#"):
                continue
            if not line.endswith("\\ "):
                line = line.rstrip()
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            elif line.startswith("\\!") or line.startswith("\\#"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = _translate(line)
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
            self.rules.append(_Rule(base, regex, negate, dir_only))

    def add_file(self, path: Path, base: str) -> None:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:  # an unreadable .gitignore ignores nothing, as git does
            self.unreadable.append(f"{path}: {exc.strerror or exc}")
            return
        self.add_lines(lines, base)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.base.startswith("\0"):
                # an ancestor's rule: match the path as seen from that ancestor's folder
                prefix = rule.base[1:]
                local = f"{prefix}/{rel}" if prefix else rel
            elif rule.base:
                if not rel.startswith(rule.base + "/"):
                    continue
                local = rel[len(rule.base) + 1 :]
            else:
                local = rel
            if rule.regex.match(local):
                verdict = not rule.negate
        return verdict


def _ancestor_ignores(root: Path, rules: IgnoreRules) -> None:
    """.gitignore files between the repository top and the scan root also apply to it."""
    chain: list[Path] = []
    here = root
    while True:
        chain.append(here)
        if (here / ".git").exists() or here.parent == here:
            break
        here = here.parent
    if not (chain[-1] / ".git").exists():
        return
    for folder in reversed(chain[1:]):
        gitignore = folder / ".gitignore"
        if gitignore.is_file():
            rel_root = root.relative_to(folder).as_posix()
            # re-base the ancestor's patterns onto the scan root by prefixing its path
            lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
            scoped = IgnoreRules()
            scoped.add_lines(lines, "")
            for rule in scoped.rules:
                rules.rules.append(_Rule(f"\0{rel_root}", rule.regex, rule.negate, rule.dir_only))


class _ModuleNamer:
    """Dotted module names from the file system: parent folders that are packages prefix them."""

    def __init__(self) -> None:
        self._pkg: dict[Path, str | None] = {}

    def package(self, folder: Path) -> str | None:
        if folder not in self._pkg:
            if (folder / "__init__.py").is_file() and folder.name.isidentifier():
                parent = self.package(folder.parent) if folder.parent != folder else None
                self._pkg[folder] = f"{parent}.{folder.name}" if parent else folder.name
            else:
                self._pkg[folder] = None
        return self._pkg[folder]

    def name(self, path: Path) -> tuple[str, bool]:
        return _module_name(self.package(path.parent), path.name)


def _module_name(package: str | None, filename: str) -> tuple[str, bool]:
    """(module name, is a package's __init__) of *filename* in a folder that is *package*."""
    if filename == "__init__.py":
        return package or "", True
    stem = filename[:-3] if filename.endswith(".py") else filename
    if not stem.isidentifier():
        return "", False
    return (f"{package}.{stem}" if package else stem), False


def discover(
    root: Path,
    exclude: tuple[str, ...] = (),
    use_gitignore: bool = True,
    settings: tuple[str, ...] = (),
    warnings: list[str] | None = None,
    errors: list[tuple[str, str]] | None = None,
) -> list[SourceFile]:
    """Python files under *root* (or *root* itself when it is a file), sorted by relative path,
    plus the hook settings files the *settings* patterns (gitignore-style) name; an unreadable
    .gitignore is added to *warnings*, a folder that cannot be listed to *errors* as
    ``(relative path, cause)``. Symbolic links to folders are not followed (a link loop is
    never entered); links to files are listed like files."""
    root = root.resolve()
    namer = _ModuleNamer()
    if root.is_file():
        module, is_pkg = namer.name(root)
        return [SourceFile(root, root.name, module, is_pkg)]
    rules = IgnoreRules()
    if use_gitignore:
        _ancestor_ignores(root, rules)
    excludes = IgnoreRules()
    excludes.add_lines(list(exclude), "")
    wanted = IgnoreRules()
    wanted.add_lines(list(settings), "")
    found: list[SourceFile] = []
    packages: dict[str, str | None] = {}  # folder (relative) -> its package name, if it is one
    def unlisted(exc: OSError) -> None:  # os.walk would skip the folder without a word
        if errors is not None:
            rel = Path(os.path.relpath(exc.filename or root, root)).as_posix()
            errors.append((rel, f"cannot list folder: {exc.strerror or exc}"))

    for folder, dirs, files in os.walk(root, onerror=unlisted):
        here = Path(folder)
        rel_dir = here.relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        if not rel_dir:
            package = namer.package(here)  # the root itself may sit inside a package
        else:  # below the root the walk's own listing says which folders are packages
            parent_rel, _, name = rel_dir.rpartition("/")
            parent = packages.get(parent_rel)
            is_package = "__init__.py" in files and name.isidentifier()
            package = (f"{parent}.{name}" if parent else name) if is_package else None
        packages[rel_dir] = package
        if use_gitignore and ".gitignore" in files:
            rules.add_file(here / ".gitignore", rel_dir)
        keep = []
        for d in sorted(dirs):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in ALWAYS_SKIPPED or excludes.ignored(rel, True) or rules.ignored(rel, True):
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not name.endswith(".py"):
                if settings and wanted.ignored(rel, False) and not excludes.ignored(rel, False):
                    found.append(SourceFile(here / name, rel, "", False))  # a settings file
                continue
            if excludes.ignored(rel, False) or rules.ignored(rel, False):
                continue
            module, is_pkg = _module_name(package, name)
            found.append(SourceFile(here / name, rel, module, is_pkg))
    if warnings is not None:
        warnings.extend(f"ignore file not read, so it ignores nothing: {u}" for u in rules.unreadable)
    return sorted(found, key=lambda f: f.rel)

