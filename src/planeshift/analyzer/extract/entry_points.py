"""Entry points a project declares in its packaging metadata: how a plugin package registers its
plugins with a host it does not call (``pm.load_setuptools_entrypoints("pytest11")`` loads
every module the installed distributions name under that group).

Read from the scan root's ``pyproject.toml`` (``[project.entry-points.<group>]``, and Poetry's
``[tool.poetry.plugins."<group>"]``), ``setup.cfg`` (``[options.entry_points]``) and, from its
syntax, ``setup.py`` (``setup(entry_points={...})`` as a literal; it is scanned as a Python
file besides, and its facts carry them), each entry as (group, name, target, line): the
target is ``module`` or ``module:attribute``, its extras (``[fast]``) dropped; the line is where
the entry is written, in its group's table. Console and GUI scripts are entry points too, but
nothing registers them as plugins, so they are left out. A file that cannot be read is reported
as such (``api.scan`` warns: it is not a source file).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from .facts import FileFacts

METADATA = ("pyproject.toml", "setup.cfg")
SCRIPTS = ("console_scripts", "gui_scripts")
EntryPoint = tuple[str, str, str, int]  # (group, name, target, line)
_EXTRAS = re.compile(r"\s*\[[^\]]*\]\s*$")
_HEADER = re.compile(r"^\s*\[")


def metadata_paths(root: Path) -> list[Path]:
    """The scan root's packaging metadata files that exist."""
    return [root / name for name in METADATA if (root / name).is_file()]


def is_metadata(rel: str) -> bool:
    return rel in METADATA


def extract_entry_points(data: bytes, path: str) -> FileFacts:
    """The entry points *data* declares; a file that does not parse is an error."""
    try:
        text = data.decode("utf-8-sig")
        toml = path.endswith(".toml")
        found = _toml(text) if toml else _cfg(text)
    except UnicodeDecodeError as exc:
        return FileFacts(path=path, module="", error=f"cannot decode: {exc}")
    except ValueError as exc:  # a TOMLDecodeError, or a configparser.Error raised as one
        return FileFacts(path=path, module="", error=f"cannot parse: {exc}")
    except (RecursionError, MemoryError):
        return FileFacts(path=path, module="", error="cannot parse: nesting too deep")
    lines = text.splitlines()
    return FileFacts(path=path, module="", entry_points=tuple(
        (group, name, _EXTRAS.sub("", target), _line(lines, group, name, cfg=not toml))
        for group, name, target in found))


def setup_py_entry_points(tree: ast.Module) -> tuple[EntryPoint, ...]:
    """The entry points a root ``setup.py`` passes to ``setup(entry_points={...})`` as a literal
    (each group a list of ``"name = target"`` strings, or one string of such lines), read from
    its syntax, never run; each at its own string's line."""
    out: list[EntryPoint] = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) else "")
        table = next((k.value for k in call.keywords if k.arg == "entry_points"), None)
        if name != "setup" or not isinstance(table, ast.Dict):
            continue
        for key, value in zip(table.keys, table.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or (
                    key.value in SCRIPTS):
                continue
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            for item in items:
                if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                    continue
                spans = (item.end_lineno or item.lineno) > item.lineno  # a string of lines
                out += [(key.value, entry, _EXTRAS.sub("", target),
                         item.lineno + (offset if spans else 0))
                        for offset, entry, target in _ini_entries(item.value)]
    return tuple(out)


def _toml(text: str) -> list[tuple[str, str, str]]:
    import tomllib

    data = tomllib.loads(text)
    project = data.get("project")
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    tables = [project.get("entry-points") if isinstance(project, dict) else None,
              poetry.get("plugins") if isinstance(poetry, dict) else None]
    out = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for group, entries in table.items():
            if isinstance(entries, dict) and group not in SCRIPTS:
                out += [(group, name, target.strip()) for name, target in entries.items()
                        if isinstance(target, str)]
    return out


def _cfg(text: str) -> list[tuple[str, str, str]]:
    import configparser  # here: a scan of a tree without a setup.cfg never needs it

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # as setuptools reads it
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        raise ValueError(str(exc)) from None
    if not parser.has_section("options.entry_points"):
        return []
    out = []
    for group, value in parser.items("options.entry_points"):
        if group not in SCRIPTS:
            out += [(group, name, target) for _, name, target in _ini_entries(value)]
    return out


def _ini_entries(text: str) -> Iterator[tuple[int, str, str]]:
    """(line offset, name, target) of each ``name = target`` line of an ini-style list of entry
    points (a value of setup.cfg's ``[options.entry_points]``, a string in ``setup.py``), the
    comment lines setuptools skips left out."""
    for offset, entry in enumerate(text.splitlines()):
        name, sep, target = entry.partition("=")
        if sep and name.strip() and target.strip() and not entry.lstrip().startswith(("#", ";")):
            yield offset, name.strip(), target.strip()


def _line(lines: list[str], group: str, name: str, cfg: bool) -> int:
    """Where the entry *name* of *group* is written: its line in the group's table (a TOML
    header naming the group; in setup.cfg, the group's key in ``[options.entry_points]``);
    else the table's first line; else 1."""
    g, n = re.escape(group), re.escape(name)
    if cfg:
        section = _first(lines, re.compile(r"^\s*\[options\.entry_points\]"), 0)
        start = None if section is None else _first(
            lines, re.compile(rf"^{g}\s*[=:]"), section + 1, stop=_HEADER)
        key = re.compile(rf"^\s+{n}\s*=")
    else:
        quoted = rf"(?:{g}|\"{g}\"|'{g}')"
        start = _first(lines, re.compile(
            rf"^\s*\[\s*(?:project\s*\.\s*entry-points|tool\s*\.\s*poetry\s*\.\s*plugins)"
            rf"\s*\.\s*{quoted}\s*\]"), 0)
        key = re.compile(rf"^\s*(?:{n}|\"{n}\"|'{n}')\s*=")
    if start is None:
        return 1
    found = _first(lines, key, start + 1, stop=_HEADER if not cfg else re.compile(r"^\S"))
    return (found if found is not None else start) + 1


def _first(lines: list[str], pattern: re.Pattern[str], start: int,
           stop: re.Pattern[str] | None = None) -> int | None:
    """The index of the first line from *start* matching *pattern*, before one matching
    *stop*."""
    for i in range(start, len(lines)):
        if pattern.match(lines[i]):
            return i
        if stop is not None and stop.match(lines[i]):
            return None
    return None
