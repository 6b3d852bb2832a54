"""A JSON settings file read by Python's ``json`` module, as the node tree the YAML composer gives.

JSON is YAML's subset only nearly: libyaml refuses a raw DEL or C1 control character inside a
string (legal JSON) and reads the escapes of a surrogate pair (``"\\ud83d\\ude00"``) as two lone
surrogates. So a ``.json`` settings file is read with ``json`` (its strings by ``json``'s own
scanner) into ``yaml`` nodes with marks (the line and column where each value starts and ends,
lines counted as YAML counts them, at LF, CRLF, CR, NEL, U+2028 and U+2029, so a file both can
read has the positions it had; columns and indices in characters), which the settings extractor
and the settings writer read as they read a YAML file's. A ``.json`` file that is not strict
JSON is still read as YAML, as before.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import yaml

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # YAML's line breaks: positions as before
_STR, _MAP, _SEQ = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_WORDS = {"true": "tag:yaml.org,2002:bool", "false": "tag:yaml.org,2002:bool",
          "null": "tag:yaml.org,2002:null"}


def compose_settings(text: str, rel: str) -> yaml.Node | None:
    """The node tree of a settings file: JSON's reading for a ``.json`` file that is JSON,
    YAML's otherwise; ValueError (with the line) when neither reads it."""
    from .load import compose_yaml

    if rel.endswith(".json"):
        try:
            return compose_json(text)
        except ValueError as exc:
            try:
                return compose_yaml(text)  # JSON with YAML's leniency, read as before
            except ValueError:
                raise exc from None
    return compose_yaml(text)


def compose_json(text: str) -> yaml.Node | None:
    """*text* (a JSON document) as ``yaml`` nodes; ValueError when it is not JSON."""
    try:
        json.loads(text)  # strict JSON, or the error json gives (with its line and column)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise ValueError("it is nested too deeply to read") from exc
    reader = _Reader(text)
    try:
        node, _ = reader.value(reader.skip(0), 0)
    except RecursionError as exc:
        raise ValueError("it is nested too deeply to read") from exc
    return node


class _Reader:
    """Builds the nodes of a text ``json.loads`` has accepted."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _BREAK.finditer(text))]

    def skip(self, at: int) -> int:
        return _WS.match(self.text, at).end()  # type: ignore[union-attr]

    def mark(self, at: int) -> yaml.Mark:
        import yaml

        line = bisect.bisect_right(self.starts, at) - 1
        return yaml.Mark("<json>", at, line, at - self.starts[line], None, None)

    def value(self, at: int, depth: int) -> tuple[yaml.Node, int]:
        """The node of the value starting at *at*, and where it ends."""
        import yaml

        text, start = self.text, self.mark(at)
        head = text[at]
        if head == '"':
            value, end = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            return yaml.ScalarNode(_STR, value, start, self.mark(end), style='"'), end
        if head == "{":
            pairs: list[tuple[yaml.Node, yaml.Node]] = []
            at = self.skip(at + 1)
            while text[at] != "}":
                key, at = self.value(at, depth + 1)
                at = self.skip(self.skip(at) + 1)  # the colon
                item, at = self.value(at, depth + 1)
                pairs.append((key, item))
                at = self.skip(at)
                if text[at] == ",":
                    at = self.skip(at + 1)
            return yaml.MappingNode(_MAP, pairs, start, self.mark(at + 1), flow_style=True), \
                at + 1
        if head == "[":
            items: list[yaml.Node] = []
            at = self.skip(at + 1)
            while text[at] != "]":
                item, at = self.value(at, depth + 1)
                items.append(item)
                at = self.skip(at)
                if text[at] == ",":
                    at = self.skip(at + 1)
            return yaml.SequenceNode(_SEQ, items, start, self.mark(at + 1), flow_style=True), \
                at + 1
        for word, tag in _WORDS.items():
            if text.startswith(word, at):
                end = at + len(word)
                return yaml.ScalarNode(tag, word, start, self.mark(end)), end
        number = _NUMBER.match(text, at)
        if number is None:  # NaN, Infinity: json reads them, YAML spells them otherwise
            word = next(w for w in ("NaN", "-Infinity", "Infinity") if text.startswith(w, at))
            end = at + len(word)
            return yaml.ScalarNode("tag:yaml.org,2002:float", word, start, self.mark(end)), end
        tag = "tag:yaml.org,2002:float" if set(number.group()) & set(".eE") else \
            "tag:yaml.org,2002:int"
        return yaml.ScalarNode(tag, number.group(), start, self.mark(number.end())), number.end()
