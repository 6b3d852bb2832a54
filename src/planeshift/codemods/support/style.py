"""The target's own formatting and import style, read from its configuration (ruff, black, isort).

What a migration writes into a project is laid out as the project's formatter would lay it out
and its imports sorted as its isort (or ruff's ``I`` rules) would sort them. The settings come
from the nearest folder, from the project root up to its repository root, holding any of
``ruff.toml``, ``.ruff.toml``, ``pyproject.toml`` or ``setup.cfg``; ruff's settings win over
black's, black's over isort's, and ruff's defaults (line length 88, double quotes) stand for
whatever none of them says. Only regular files are read, and one that cannot be read or parsed
counts as absent: a style is a preference, never a reason to stop a run.
"""

from __future__ import annotations

import configparser
import stat
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILES = (".ruff.toml", "ruff.toml", "pyproject.toml", "setup.cfg")


@dataclass(frozen=True, slots=True)
class TargetStyle:
    line_length: int = 88
    quote: str = '"'  # the quote new string literals use ('"' or "'")
    indent: str = "    "
    known_first_party: tuple[str, ...] = ()
    known_third_party: tuple[str, ...] = ()
    known_local_folder: tuple[str, ...] = ()
    force_sort_within_sections: bool = False
    case_sensitive: bool = False
    order_by_type: bool = True
    root: str = ""  # where first-party packages are looked for (with src/), "" for none
    source: str = ""  # the file the settings came from, "" for the defaults

    def section(self, module: str, level: int = 0) -> int:
        """The isort section of an import of *module*: 0 future, 1 standard library, 2 third
        party, 3 first party, 4 local folder (relative imports)."""
        head = module.split(".")[0]
        if level:
            return 4
        for known, rank in ((self.known_local_folder, 4), (self.known_first_party, 3),
                            (self.known_third_party, 2)):
            if any(module == k or module.startswith(k + ".") for k in known):
                return rank
        if head == "__future__":
            return 0
        if head in sys.stdlib_module_names:
            return 1
        if self.root and any((Path(self.root) / d / name).exists() for d in ("", "src")
                             for name in (head, f"{head}.py")):
            return 3
        return 2


def read_style(root: Path) -> TargetStyle:
    """The style of the project at *root*: its nearest configuration, else the defaults."""
    root = root.resolve()
    here = root if root.is_dir() else root.parent
    for folder in (here, *here.parents):
        found = [folder / name for name in FILES if _regular(folder / name)]
        settings = [s for s in (_settings(p) for p in found) if s]
        if settings:
            merged: dict[str, Any] = {}
            for part in reversed(settings):  # the first (ruff's own files) wins
                merged.update(part)
            source = next(str(p) for p, s in zip(found, map(_settings, found)) if s)
            return TargetStyle(**merged, root=str(here), source=source)
        if (folder / ".git").exists():
            break
    return TargetStyle(root=str(here))


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _settings(path: Path) -> dict[str, Any]:
    """The style settings *path* holds (TargetStyle's field names), {} for none."""
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".cfg":
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(text)
            return _isort({k.replace("-", "_"): v for k, v in (
                parser["isort"] if parser.has_section("isort") else
                parser["tool:isort"] if parser.has_section("tool:isort") else {}).items()})
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error):
        return {}
    if path.name != "pyproject.toml":
        return _ruff(data)
    tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
    out: dict[str, Any] = {}
    for reader, key in ((_isort, "isort"), (_black, "black"), (_ruff, "ruff")):
        if isinstance(tool.get(key), dict):
            out.update(reader(tool[key]))
    return out


def _ruff(section: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(section.get("line-length"), int):
        out["line_length"] = section["line-length"]
    formatting = section.get("format", {})
    if isinstance(formatting, dict):
        if formatting.get("quote-style") == "single":
            out["quote"] = "'"
        if formatting.get("indent-style") == "tab":
            out["indent"] = "\t"
    lint = section.get("lint", {}) if isinstance(section.get("lint"), dict) else {}
    isort = lint.get("isort", section.get("isort", {}))
    if isinstance(isort, dict):
        for key in ("known-first-party", "known-third-party", "known-local-folder"):
            if isinstance(isort.get(key), list):
                out[key.replace("-", "_")] = tuple(str(v) for v in isort[key])
        for key in ("force-sort-within-sections", "case-sensitive", "order-by-type"):
            if isinstance(isort.get(key), bool):
                out[key.replace("-", "_")] = isort[key]
    return out


def _black(section: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(section.get("line-length"), int):
        out["line_length"] = section["line-length"]
    return out


def _isort(section: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    get = section.get
    length = get("line_length")
    if isinstance(length, int) or (isinstance(length, str) and length.strip().isdigit()):
        out["line_length"] = int(length)
    for key in ("known_first_party", "known_third_party", "known_local_folder"):
        value = get(key)
        if isinstance(value, str):
            value = [v.strip() for v in value.replace("\n", ",").split(",")]
        if isinstance(value, list):
            out[key] = tuple(str(v) for v in value if v)
    value = get("force_sort_within_sections")
    if isinstance(value, bool) or value in ("true", "True", "false", "False"):
        out["force_sort_within_sections"] = value in (True, "true", "True")
    return out


def member_key(name: str, style: TargetStyle) -> tuple[int, str, str]:
    """How isort (ruff's ``order-by-type``) orders the names of one from-import: CONSTANTS,
    then Classes, then everything else, each alphabetically."""
    kind = 2
    if style.order_by_type:
        kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (kind, name if style.case_sensitive else name.lower(), name)


def module_key(module: str, level: int, is_from: bool, style: TargetStyle
               ) -> tuple[int, int, int, str, str]:
    """How isort orders import lines: by section, plain imports before from-imports (unless
    ``force-sort-within-sections``), the furthest relative import first, then by module."""
    kind = int(is_from)
    folded = module if style.case_sensitive else module.lower()
    first = 0 if style.force_sort_within_sections else kind
    last = kind if style.force_sort_within_sections else 0
    return (style.section(module, level), first, -level, folded, f"{last}{module}")
