"""Discover the files to scan: Python sources under a root, minus .gitignore'd and excluded paths.

``.gitignore`` files are honoured the way git reads them (patterns relative to their own folder,
``!`` negation, ``dir/`` for folders only, anchored patterns, ``**``), including those between the
repository top and the scan root. ``--exclude`` takes the same pattern language.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import fsio

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

    @classmethod
    def of(cls, patterns: Iterable[str]) -> IgnoreRules:
        """Rules from gitignore-style *patterns* anchored at the root (``exclude``)."""
        rules = cls()
        rules.add_lines(list(patterns), "")
        return rules

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
            lines = fsio.read_text(path, errors="replace").splitlines()
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
        if gitignore.exists() and not gitignore.is_dir():  # (a FIFO: a warning, never a read)
            rel_root = root.relative_to(folder).as_posix()
            # re-base the ancestor's patterns onto the scan root by prefixing its path
            try:
                lines = fsio.read_text(gitignore, errors="replace").splitlines()
            except OSError as exc:
                rules.unreadable.append(f"{gitignore}: {exc.strerror or exc}")
                continue
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


def _module_name(package: str | None, filename: str, rel: str = "") -> tuple[str, bool]:
    """(module name, is a package's __init__) of *filename* in a folder that is *package*
    (*rel*: its path from the scan root). A file that no import statement can name (``run-hooks.py``,
    ``sp ace.py``, an ``__init__.py`` in a folder named so) is a script, its own module, named by
    its path without ``.py`` (``scripts/run-hooks``): never a dotted name another file could mean."""
    script = (rel or filename).removesuffix(".py")
    if filename == "__init__.py":
        return package or script.removesuffix("/__init__"), True
    stem = filename.removesuffix(".py")
    if not stem.isidentifier():
        return script, False
    return (f"{package}.{stem}" if package else stem), False


SOURCE_ROOTS = {"src"}  # a folder of this name without __init__.py holds top-level packages


def _namespace_folders(folders: dict[str, tuple[bool, list[str]]]) -> set[str]:
    """The folders (relative to the scan root) that are PEP 420 namespace package portions: no
    ``__init__.py``, an identifier for a name, not a source root (``src``), and a regular package
    somewhere below, reached through such folders (``google/cloud/storage/__init__.py`` makes
    ``google`` and ``google/cloud`` namespace portions). *folders* maps each walked folder to
    (has ``__init__.py``, its walked subfolders)."""
    below: dict[str, bool] = {}  # folder -> a regular package is at or below it, for its parent
    for rel in reversed(folders):  # the walk lists a folder before its subfolders
        is_init, subs = folders[rel]
        name = rel.rpartition("/")[2]
        # (a link to a folder is listed among the subfolders but not walked: it has no entry)
        inner = any(below.get(f"{rel}/{s}" if rel else s, False) for s in subs)
        if is_init and name.isidentifier():
            below[rel] = True
        else:
            below[rel] = inner and name.isidentifier() and name not in SOURCE_ROOTS
    return {rel for rel, (is_init, _) in folders.items()
            if rel and not is_init and below.get(rel)}


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
    excludes = IgnoreRules.of(exclude)
    wanted = IgnoreRules.of(settings)
    found: list[SourceFile] = []
    folders: dict[str, tuple[bool, list[str]]] = {}  # rel -> (has __init__.py, subfolders)
    modules: list[tuple[Path, str, str]] = []  # (path, rel, folder rel) of each Python file

    def unlisted(exc: OSError) -> None:  # os.walk would skip the folder without a word
        if errors is not None:
            rel = Path(os.path.relpath(exc.filename or root, root)).as_posix()
            errors.append((rel, f"cannot list folder: {exc.strerror or exc}"))

    for folder, dirs, files in os.walk(root, onerror=unlisted):
        here = Path(folder)
        rel_dir = here.relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        if use_gitignore and ".gitignore" in files:
            rules.add_file(here / ".gitignore", rel_dir)
        keep = []
        for d in sorted(dirs):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in ALWAYS_SKIPPED or excludes.ignored(rel, True) or rules.ignored(rel, True):
                continue
            keep.append(d)
        dirs[:] = keep
        folders[rel_dir] = ("__init__.py" in files, keep)
        for name in sorted(files):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not name.endswith(".py"):
                if settings and wanted.ignored(rel, False) and not excludes.ignored(rel, False):
                    found.append(SourceFile(here / name, rel, "", False))  # a settings file
                continue
            if excludes.ignored(rel, False) or rules.ignored(rel, False):
                continue
            modules.append((here / name, rel, rel_dir))
    # below the root the walk's own listing says which folders are packages
    namespace = _namespace_folders(folders) if folders else set()
    packages: dict[str, str | None] = {}  # folder (relative) -> its package name, if it is one
    for rel_dir, (is_init, _) in folders.items():  # a folder after its parent
        if not rel_dir:
            packages[rel_dir] = namer.package(root)  # the root may sit inside a package
            continue
        parent_rel, _, name = rel_dir.rpartition("/")
        parent = packages.get(parent_rel)
        # a folder without __init__.py inside a package is a namespace subpackage of it (PEP
        # 420: `pelican/plugins/signals.py` is `pelican.plugins.signals`)
        is_package = name.isidentifier() and (is_init or parent is not None) or (
            rel_dir in namespace)
        packages[rel_dir] = (f"{parent}.{name}" if parent else name) if is_package else None

    for path, rel, rel_dir in modules:
        module, is_pkg = _module_name(packages.get(rel_dir), path.name, rel)
        found.append(SourceFile(path, rel, module, is_pkg))
    found, twice = _once(found)
    if warnings is not None:
        warnings.extend(f"ignore file not read, so it ignores nothing: {u}" for u in rules.unreadable)
        warnings.extend(twice)
    return found


def _once(found: list[SourceFile]) -> tuple[list[SourceFile], list[str]]:
    """Each file once, however many paths lead to it (symbolic links to it, hard links): under
    its first path in order that is not a symbolic link (else its first), sorted by path; a line
    for each other path."""
    by_file: dict[tuple[int, int], list[SourceFile]] = {}
    kept: list[SourceFile] = []
    for src in sorted(found, key=lambda f: f.rel):
        try:
            st = os.stat(src.path)
        except OSError:  # a dangling link or a loop: its read will say why
            kept.append(src)
            continue
        by_file.setdefault((st.st_dev, st.st_ino), []).append(src)
    lines = []
    for paths in by_file.values():
        if len(paths) == 1:
            kept.append(paths[0])
            continue
        first = next((p for p in paths if not p.path.is_symlink()), paths[0])
        kept.append(first)
        lines += [f"{p.rel}: the same file as {first.rel} (a link); read once, "
                  f"as {first.rel}" for p in paths if p is not first]
    return sorted(kept, key=lambda f: f.rel), lines

