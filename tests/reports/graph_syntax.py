"""Small structural readers of the graph formats, so tests check the text and not only the model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MERMAID_NODE = re.compile(r'  (?P<id>[A-Za-z0-9_]+)'
                          r'(?P<open>\[\[|\{\{|\[|\(|>)"(?P<label>[^"]*)"'
                          r"(?P<close>\]\]|\}\}|\]|\)):::(?P<cls>[A-Za-z0-9_]+)")
MERMAID_EDGE = re.compile(r"  (?P<src>[A-Za-z0-9_]+) (?P<arrow>-->|-\.->|==>) "
                          r"(?P<dst>[A-Za-z0-9_]+)")
MERMAID_CLASS = re.compile(r"  classDef (?P<name>[A-Za-z0-9_]+) (?P<style>\S.*)")
SHAPES = {"[[": "]]", "{{": "}}", "[": "]", "(": ")", ">": "]"}


@dataclass
class Mermaid:
    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)  # id: (label, class)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (src, arrow, dst)
    classes: dict[str, str] = field(default_factory=dict)


def read_mermaid(text: str) -> Mermaid:
    """Every line a header, a classDef, a node or an edge; fails on anything else."""
    lines = text.splitlines()
    assert lines[0] == "flowchart LR", lines[0]
    out = Mermaid()
    for line in lines[1:]:
        if m := MERMAID_CLASS.fullmatch(line):
            out.classes[m["name"]] = m["style"]
        elif m := MERMAID_NODE.fullmatch(line):
            assert SHAPES[m["open"]] == m["close"], line
            assert m["id"] not in out.nodes, f"id declared twice: {m['id']}"
            out.nodes[m["id"]] = (m["label"], m["cls"])
        elif m := MERMAID_EDGE.fullmatch(line):
            out.edges.append((m["src"], m["arrow"], m["dst"]))
        else:
            raise AssertionError(f"not Mermaid this reader knows: {line!r}")
    return out


DOT_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|->|[{}\[\];=,]|[A-Za-z0-9_.]+|\S')


@dataclass
class Dot:
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)  # id: attributes
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


def unquote(token: str) -> str:
    assert token.startswith('"') and token.endswith('"'), f"not a quoted id: {token}"
    return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], token[1:-1])


def read_dot(text: str) -> Dot:
    """``digraph NAME { statements }``: braces and brackets balanced outside strings, every node
    and edge id a quoted string, each statement ended by ``;``."""
    tokens = DOT_TOKEN.findall(text)
    assert tokens[:3] == ["digraph", "planeshift", "{"] and tokens[-1] == "}", tokens[:3]
    depth = 0
    for token in tokens:
        depth += {"{": 1, "}": -1, "[": 1, "]": -1}.get(token, 0)
        assert depth >= 0
    assert depth == 0
    out = Dot()
    statement: list[str] = []
    for token in tokens[3:-1]:
        if token != ";":
            statement.append(token)
            continue
        head, attrs = _split_attrs(statement)
        statement = []
        if head in (["node"], ["edge"]) or (len(head) == 3 and head[1] == "="):
            continue  # defaults, graph attributes
        if len(head) == 3 and head[1] == "->":
            out.edges.append((unquote(head[0]), unquote(head[2]), attrs))
        else:
            assert len(head) == 1, head
            out.nodes[unquote(head[0])] = attrs
    assert not statement, statement
    return out


def _split_attrs(statement: list[str]) -> tuple[list[str], dict[str, str]]:
    if "[" not in statement:
        return statement, {}
    start = statement.index("[")
    assert statement[-1] == "]", statement
    body = [t for t in statement[start + 1:-1] if t != ","]
    assert len(body) % 3 == 0 and all(body[i + 1] == "=" for i in range(0, len(body), 3)), body
    attrs = {body[i]: (unquote(body[i + 2]) if body[i + 2].startswith('"') else body[i + 2])
             for i in range(0, len(body), 3)}
    return statement[:start], attrs
