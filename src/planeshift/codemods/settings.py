"""Edit one string token of a hook settings file (YAML, JSON or TOML) in place.

The file is never re-dumped: the scalar's exact span is found (YAML and JSON through the YAML
composer's marks, TOML by reading its ``command = "..."`` line) and only those characters are
replaced, so comments, key order, quoting and layout elsewhere stay as they were.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

_TOML_COMMAND = re.compile(
    r"""(?P<key>\bcommand\s*=\s*)(?P<token>"{3}|'{3}|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')""")


@dataclass(frozen=True, slots=True)
class Token:
    start: int  # character offsets into the text
    end: int
    value: str


class SettingsError(ValueError):
    """The command's token cannot be found or edited; the message says why."""


def command_token(text: str, rel: str, line: int) -> Token:
    """The string holding the hook command that starts on *line* (1-based)."""
    if rel.endswith(".toml"):
        return _toml_token(text, line)
    return _yaml_token(text, line)


def argv_text(argv: list[str], rel: str) -> str:
    """A flow list of double-quoted strings: valid YAML, JSON and TOML alike."""
    del rel  # one spelling serves all three formats
    return "[" + ", ".join(json.dumps(arg, ensure_ascii=False) for arg in argv) + "]"


def replace(text: str, token: Token, new: str) -> str:
    return text[: token.start] + new + text[token.end:]


def _yaml_token(text: str, line: int) -> Token:
    import yaml

    from ..packs.load import compose_yaml

    try:
        root = compose_yaml(text)
    except ValueError as exc:
        raise SettingsError(f"it no longer parses: {exc}") from exc
    for node in _walk(root):
        if not isinstance(node, yaml.MappingNode):
            continue
        for key, value in node.value:
            if (isinstance(key, yaml.ScalarNode) and key.value == "command"
                    and value.start_mark.line + 1 == line):
                if not isinstance(value, yaml.ScalarNode) or value.tag != "tag:yaml.org,2002:str":
                    raise SettingsError("the command is not a string")
                if value.style in ("|", ">"):
                    raise SettingsError("the command is a block scalar (several lines)")
                return Token(value.start_mark.index, value.end_mark.index, value.value)
    raise SettingsError(f"no command string starts on line {line}")


def _walk(node):  # type: ignore[no-untyped-def]
    if node is None:
        return
    yield node
    children = node.value if isinstance(node.value, list) else []
    for child in children:
        if isinstance(child, tuple):
            for part in child:
                yield from _walk(part)
        else:
            yield from _walk(child)


def _toml_token(text: str, line: int) -> Token:
    lines = text.splitlines(keepends=True)
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
