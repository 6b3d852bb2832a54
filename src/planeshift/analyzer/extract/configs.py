"""External-hook settings files (ADR-0048, ADR-0120 D6): each configured command is a registration.

The shape is the one Claude Code settings, lionagi's ``hooks_external`` and Codex share::

    <key>:
      <Event>:
        - matcher: "..."
          hooks:
            - {type: command, command: [argv, ...] | "shell string", timeout: 60}

A YAML file is read by the safe YAML composer (with line numbers); a ``.json`` file by Python's
``json`` into the same nodes (``packs.jsonnodes``: libyaml refuses raw DEL / C1 characters and
misreads surrogate-pair escapes, which JSON allows).
"""

from __future__ import annotations

import yaml

from ...packs.jsonnodes import compose_settings
from .facts import ConfigHook, FileFacts


def _mapping_get(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _plain(node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return tuple(_plain(n) for n in node.value)
    return None


def _commands(group: yaml.Node) -> list[yaml.Node]:
    """Command entries of one matcher group (or a bare entry with a command)."""
    if _mapping_get(group, "command") is not None:
        return [group]
    hooks = _mapping_get(group, "hooks")
    if isinstance(hooks, yaml.SequenceNode):
        return [h for h in hooks.value if _mapping_get(h, "command") is not None]
    return []


def extract_config(data: bytes, path: str, keys: frozenset[str]) -> FileFacts:
    """Hook registrations in one settings file; a file that does not parse is an error."""
    try:
        text = data.decode("utf-8-sig")
        root = compose_settings(text, path)
    except UnicodeDecodeError as exc:
        return FileFacts(path=path, module="", error=f"cannot decode settings file: {exc}")
    except ValueError as exc:
        return FileFacts(path=path, module="", error=f"cannot parse settings file: {exc}")
    hooks: list[ConfigHook] = []
    for key in sorted(keys):
        node = root
        for part in key.split("."):
            node = _mapping_get(node, part) if node is not None else None
        if not isinstance(node, yaml.MappingNode):
            continue
        for event_node, groups in node.value:
            if not isinstance(groups, yaml.SequenceNode):
                continue
            for group in groups.value:
                for entry in _commands(group):
                    command = _mapping_get(entry, "command")
                    start, end = command.start_mark, command.end_mark
                    hooks.append(ConfigHook(
                        line=start.line + 1,
                        event=str(event_node.value),
                        command=_plain(command),
                        key_path=key,
                        span=(start.line + 1, start.column, end.line + 1, end.column),
                    ))
    return FileFacts(path=path, module="", config_hooks=tuple(hooks))
