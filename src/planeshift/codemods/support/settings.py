"""Edit hook command strings of a settings file (YAML, JSON or TOML) in place, and prove the edit.

The file is never re-dumped. Each command is addressed by position: the scalar the scan saw
starting at (line, column), found through the same composer as the scan's (YAML's, or for a
``.json`` file ``json``'s into the same nodes: ``packs.jsonnodes``), its span given as offsets into the original text and its key path checked against the registration
(`hooks.PostToolUse[0].hooks[1].command`); TOML by its ``command = "..."`` line. Only those
characters are replaced, so comments, key order, quoting and layout elsewhere stay as they were.

The new value is a flow list of double-quoted strings, one spelling valid in YAML, JSON and TOML
alike: printable characters as they are, and an escape for everything else (C0 and C1 controls,
DEL, NEL and the Unicode line and paragraph separators, which YAML would fold into a space,
surrogates, U+FEFF, U+FFFE, U+FFFF).

Before anything is returned the new text is read back (YAML ``safe_load``; ``json.loads`` for a
file that was strict JSON; ``tomllib`` for TOML) and compared with the original's data: equal except
the rewritten values, each of which must read back as the intended argv. Anything else refuses
the edits that cause it, with the reason, and leaves their text as it was.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

_TOML_COMMAND = re.compile(
    r"""(?P<key>\bcommand\s*=\s*)(?P<token>"{3}|'{3}|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')""")
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
          "\r": "\\r"}
Path = tuple[Any, ...]  # mapping keys (as the data holds them) and list indices


@dataclass(frozen=True, slots=True)
class Token:
    start: int  # character offsets into the text
    end: int
    value: str
    path: Path | None = None  # where the value sits in the document's data (None: TOML)


@dataclass(frozen=True, slots=True)
class Edit:
    token: Token
    argv: list[str]


class SettingsError(ValueError):
    """The command's token cannot be found, edited or verified; the message says why."""


def kind_of(rel: str) -> str:
    return "toml" if rel.endswith(".toml") else "json" if rel.endswith(".json") else "yaml"


class Document:
    """A settings file's command strings, indexed by where each starts (1-based line, column)."""

    def __init__(self, text: str, rel: str) -> None:
        self.text, self.rel, self.kind = text, rel, kind_of(rel)
        self._at: dict[tuple[int, int], tuple[Any, tuple[Any, ...]]] = {}
        if self.kind != "toml":
            self._index(_compose(text, rel))

    def command_at(self, line: int, col: int | None = None, api: str | None = None) -> Token:
        """The string holding the hook command that starts at *line* (and *col*), under the
        registration's *api* (``<key>.<Event>``) when given."""
        if self.kind == "toml":
            return _toml_token(self.text, line)
        hits = [(node, trail) for (ln, cl), (node, trail) in self._at.items()
                if ln == line and (col is None or cl == col)]
        if not hits:
            where = f"line {line}" if col is None else f"line {line}, column {col + 1}"
            raise SettingsError(f"no command string starts at {where}")
        if len(hits) > 1:
            raise SettingsError(f"{len(hits)} commands start on line {line}; which one is not "
                                "known")
        node, trail = hits[0]
        path = _data_path(trail)
        if api is not None and not _under(trail, api):
            raise SettingsError(f"the value at that position is {_show(path)}, not a command "
                                f"of {api}")
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            raise SettingsError("the command is not a string")
        if node.style in ("|", ">"):
            raise SettingsError("the command is a block scalar (several lines)")
        value = node.value
        if self.kind == "json" and node.style == '"':
            value = _json_string(self.text[node.start_mark.index:node.end_mark.index], value)
        return Token(node.start_mark.index, node.end_mark.index, value, path)

    def _index(self, root: Any) -> None:
        """Every value of a ``command`` key, with the trail of nodes that leads to it; each node
        once (an alias is not followed again), without recursion (any depth)."""
        import yaml

        seen: set[int] = set()
        stack: list[tuple[Any, tuple[Any, ...]]] = [(root, ())] if root is not None else []
        while stack:
            node, trail = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.SequenceNode):
                stack += [(child, (*trail, i)) for i, child in enumerate(node.value)]
            elif isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == "command":
                        mark = value.start_mark
                        self._at.setdefault((mark.line + 1, mark.column), (value, (*trail, key)))
                    stack.append((value, (*trail, key)))


def command_token(text: str, rel: str, line: int, col: int | None = None) -> Token:
    """The string holding the hook command that starts on *line* (1-based), at *col*."""
    return Document(text, rel).command_at(line, col)


def argv_text(argv: Sequence[str], rel: str = "") -> str:
    """A flow list of double-quoted strings: valid YAML, JSON and TOML alike."""
    del rel  # one spelling serves all three formats
    return "[" + ", ".join(quoted(arg) for arg in argv) + "]"


def quoted(value: str) -> str:
    """*value* as a double-quoted string that YAML, JSON and TOML all read back as *value*."""
    return '"' + "".join(_SHORT.get(ch) or (f"\\u{ord(ch):04x}" if _escaped(ch) else ch)
                         for ch in value) + '"'


def _escaped(ch: str) -> bool:
    o = ord(ch)
    return (o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF)
            or 0xD800 <= o <= 0xDFFF)


def replace(text: str, token: Token, new: str) -> str:
    return text[: token.start] + new + text[token.end:]


def apply(text: str, edits: Sequence[Edit]) -> str:
    """*text* with each edit's token replaced, by offsets into *text* (from the end backwards)."""
    for edit in sorted(edits, key=lambda e: -e.token.start):
        text = replace(text, edit.token, argv_text(edit.argv))
    return text


def verify(rel: str, old: str, new: str, edits: Sequence[Edit]) -> None:
    """Raise SettingsError unless *new* reads back as *old*'s data with exactly the edited
    values changed, each to its argv (JSON: also through ``json.loads``, when *old* was JSON)."""
    kind = kind_of(rel)
    if kind == "toml":
        before, after = _read(tomllib.loads, old, "TOML"), _read(tomllib.loads, new, "TOML")
        _compare(before, after, edits, by_path=False)
        return
    if kind == "json":
        try:
            before = json.loads(old)
        except (ValueError, RecursionError):
            pass  # not strict JSON to begin with: YAML is what reads it
        else:  # JSON is what reads it (YAML would refuse a raw DEL or C1 character)
            after = _read(json.loads, new, "JSON")
            _compare(before, after, edits, by_path=True)
            return
    before, after = _read(_yaml_data, old, "YAML"), _read(_yaml_data, new, "YAML")
    _compare(before, after, edits, by_path=True)


# -- reading back -------------------------------------------------------------------------------

def _compose(text: str, rel: str) -> Any:
    from ...packs.jsonnodes import compose_settings

    try:
        return compose_settings(text, rel)
    except ValueError as exc:
        raise SettingsError(f"it no longer parses: {exc}") from exc
    except RecursionError as exc:
        raise SettingsError("it is nested too deeply to read") from exc


def _loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml_data(text: str) -> Any:
    import yaml

    return yaml.load(text, Loader=_loader())


def _read(load: Any, text: str, what: str) -> Any:
    try:
        return load(text)
    except RecursionError as exc:
        raise SettingsError(f"it would be nested too deeply to read back as {what}") from exc
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SettingsError(f"it would not read back as {what}: {first}") from exc


def _compare(before: Any, after: Any, edits: Sequence[Edit], by_path: bool) -> None:
    changes = list(_differences(before, after))
    if by_path:
        wanted = {e.token.path: e for e in edits}
        for path, old, new in changes:
            edit = wanted.pop(path, None)
            if edit is None:
                raise SettingsError(f"{_show(path)} would change ({old!r} -> {new!r}), which "
                                    "is not the rewrite")
            if not _same(new, edit.argv):
                raise SettingsError(f"{_show(path)} would read back as {new!r}, not "
                                    f"{edit.argv!r}")
        for where, edit in wanted.items():
            raise SettingsError(f"{_show(where)} would not read back as {edit.argv!r}")
        return
    pending = [(e.token.value, e.argv) for e in edits]
    for path, old, new in changes:
        match = next((p for p in pending if _same(old, p[0]) and _same(new, p[1])), None)
        if match is None:
            raise SettingsError(f"{_show(path)} would change ({old!r} -> {new!r}), which is not "
                                "the rewrite")
        pending.remove(match)
    if pending:
        raise SettingsError(f"the command {pending[0][0]!r} would not read back as "
                            f"{pending[0][1]!r}")


def _differences(a: Any, b: Any) -> Iterator[tuple[Path, Any, Any]]:
    """(path, a's value, b's value) wherever the two differ, as deep as they share shape; each
    pair of containers compared once (a document of aliases stays linear)."""
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Path, Any, Any]] = [((), a, b)]
    while stack:
        path, x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
            if (id(x), id(y)) not in seen:
                seen.add((id(x), id(y)))
                stack += [((*path, k), x[k], y[k]) for k in x]
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            if (id(x), id(y)) not in seen:
                seen.add((id(x), id(y)))
                stack += [((*path, i), u, v) for i, (u, v) in enumerate(zip(x, y))]
        elif not _same(x, y):
            yield path, x, y


def _same(x: Any, y: Any) -> bool:
    """Equal and of one type (``1 == True`` is not the same value); NaN is NaN."""
    if type(x) is not type(y):
        return False
    if isinstance(x, float) and math.isnan(x):
        return math.isnan(y)
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(_same(u, v) for u, v in zip(x, y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    return bool(x == y)


def _data_path(trail: tuple[Any, ...]) -> Path:
    """The key nodes of *trail* as the data holds them (a YAML `1:` key is the int 1)."""
    import yaml

    loader = _loader()("")
    try:
        return tuple(loader.construct_object(step, deep=True) if isinstance(step, yaml.Node)
                     else step for step in trail)
    finally:
        loader.dispose()


def _under(trail: tuple[Any, ...], api: str) -> bool:
    """Is *trail* the place the scan reads a command of *api* from: ``<key...>.<Event>[i]`` then
    ``.command`` or ``.hooks[j].command`` (keys compared as the scan spells them)?"""
    names = tuple(getattr(step, "value", step) for step in trail)
    if len(names) < 3 or names[-1] != "command" or not isinstance(names[-2], int):
        return False
    if _dotted(names[:-2]) == api:
        return True
    return (len(names) >= 5 and names[-3] == "hooks" and isinstance(names[-4], int)
            and _dotted(names[:-4]) == api)


def _dotted(names: tuple[Any, ...]) -> str | None:
    return ".".join(names) if all(isinstance(n, str) for n in names) else None


def _show(path: Path | None) -> str:
    if not path:
        return "the document"
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f".{step}" if out else str(step)
    return out


def _json_string(token: str, value: str) -> str:
    """A JSON file's string as JSON reads it (YAML reads `\\ud83d\\ude00` as two surrogates)."""
    try:
        data = json.loads(token)
    except ValueError:
        return value
    return data if isinstance(data, str) else value


def _toml_token(text: str, line: int) -> Token:
    lines = text.split("\n")
    lines = [x + "\n" for x in lines[:-1]] + lines[-1:]  # TOML lines end at LF only
    if not 0 < line <= len(lines):
        raise SettingsError(f"no line {line}")
    match = _TOML_COMMAND.search(lines[line - 1])
    if match is None:
        raise SettingsError(f"no `command = \"...\"` string on line {line}")
    token = match.group("token")
    if token.startswith(('"""', "'''")):
        raise SettingsError("the command is a multi-line string")
    value = tomllib.loads(f"v = {token}")["v"]
    offset = sum(len(x) for x in lines[: line - 1]) + match.start("token")
    return Token(offset, offset + len(token), value)
