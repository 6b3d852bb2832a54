"""Entry points a project declares in its packaging metadata: how a plugin package registers its
plugins with a host it does not call (``pm.load_setuptools_entrypoints("pytest11")`` loads
every module the installed distributions name under that group).

Read from the scan root's ``pyproject.toml`` (``[project.entry-points.<group>]``, and Poetry's
``[tool.poetry.plugins."<group>"]``) and ``setup.cfg`` (``[options.entry_points]``), each entry
as (group, name, target, line): the target is ``module`` or ``module:attribute``; the line is
where the entry is written. Console scripts are entry points too, but nothing registers them as
plugins, so they are left out.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from .facts import FileFacts

METADATA = ("pyproject.toml", "setup.cfg")
EntryPoint = tuple[str, str, str, int]  # (group, name, target, line)


def metadata_paths(root: Path) -> list[Path]:
    """The scan root's packaging metadata files that exist."""
    return [root / name for name in METADATA if (root / name).is_file()]


def is_metadata(rel: str) -> bool:
    return rel in METADATA


def extract_entry_points(data: bytes, path: str) -> FileFacts:
    """The entry points *data* declares; a file that does not parse is an error."""
    try:
        text = data.decode("utf-8-sig")
        found = _toml(text) if path.endswith(".toml") else _cfg(text)
    except UnicodeDecodeError as exc:
        return FileFacts(path=path, module="", error=f"cannot decode: {exc}")
    except ValueError as exc:  # a TOMLDecodeError, or a configparser.Error raised as one
        return FileFacts(path=path, module="", error=f"cannot parse: {exc}")
    lines = text.splitlines()
    return FileFacts(path=path, module="", entry_points=tuple(
        (group, name, target, _line(lines, group, name)) for group, name, target in found))


def _toml(text: str) -> list[tuple[str, str, str]]:
    data = tomllib.loads(text)
    project = data.get("project")
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    tables = [project.get("entry-points") if isinstance(project, dict) else None,
              poetry.get("plugins") if isinstance(poetry, dict) else None]
    out = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for group, entries in table.items():
            if isinstance(entries, dict):
                out += [(group, name, target.strip()) for name, target in entries.items()
                        if isinstance(target, str)]
    return out


def _cfg(text: str) -> list[tuple[str, str, str]]:
    import configparser  # here: a scan of a tree without a setup.cfg never needs it

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        raise ValueError(str(exc)) from None
    if not parser.has_section("options.entry_points"):
        return []
    out = []
    for group, value in parser.items("options.entry_points"):
        if group == "console_scripts" or group == "gui_scripts":
            continue
        for entry in value.splitlines():
            name, sep, target = entry.partition("=")
            if sep and name.strip() and target.strip():
                out.append((group, name.strip(), target.strip()))
    return out


def _line(lines: list[str], group: str, name: str) -> int:
    """Where the entry *name* of *group* is written: the first line naming it (as a key) after
    the first line naming the group; else the group's line; else 1."""
    key = re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*=")
    start = next((i for i, line in enumerate(lines) if group in line), None)
    if start is None:
        return 1
    for i in range(start, len(lines)):
        if key.match(lines[i]):
            return i + 1
    return start + 1
