"""Line layout for the generated module, the way ruff format (and black) lays out long lines.

The renderer writes each statement, decorator and signature as one logical line; a line longer
than the limit is split at its last bracket pair: the contents on one indented line when they
fit (a call's arguments, several parameters, a lone argument), else one item per line with a
trailing comma, recursively; a list, set or dict literal, and a lone parameter, always take one
item per line. That is the right-hand split ruff applies, and the only one the shapes the
renderer emits need.
"""

from __future__ import annotations

LIMIT = 88
PAIRS = {"(": ")", "[": "]", "{": "}"}


def layout(line: str, limit: int = LIMIT) -> list[str]:
    """*line* (with its indentation) as ruff format would write it."""
    if len(line) <= limit:
        return [line]
    found = _last_pair(line)
    if found is None:
        return [line]
    start, end = found
    indent = " " * (len(line) - len(line.lstrip()))
    head, inner, tail = line[: start + 1], line[start + 1 : end], line[end:]
    items = _split(inner)
    if not items:
        return [line]
    hugged = indent + "    " + ", ".join(items)
    before = line[:start].rstrip()
    literal = line[start] != "(" and not (before[-1:].isidentifier() or before[-1:] in ")]")
    one_param = line.lstrip().startswith("def ") and len(items) == 1
    if not one_param and (len(items) == 1 or (
            len(hugged) <= limit and not literal and not inner.rstrip().endswith(","))):
        return [head, *layout(hugged, limit), indent + tail]
    out = [head]
    for item in items:
        out += layout(f"{indent}    {item},", limit)
    return [*out, indent + tail]


def _last_pair(line: str) -> tuple[int, int] | None:
    """The span of the last top-level bracket pair that closes the line (before a trailing
    ``:`` or `` -> X:``), skipping string literals."""
    stack: list[int] = []
    pairs: list[tuple[int, int]] = []
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in PAIRS:
            stack.append(i)
        elif char in PAIRS.values() and stack:
            opened = stack.pop()
            if not stack:
                pairs.append((opened, i))
        i += 1
    for start, end in reversed(pairs):
        rest = line[end + 1 :].strip()
        if end > start + 1 and (rest in ("", ":", ",") or rest.startswith("->")):
            return start, end
    return None


def _split(inner: str) -> list[str]:
    """Top-level comma-separated items (strings and brackets kept whole)."""
    items: list[str] = []
    depth, quote, current = 0, "", []
    i = 0
    while i < len(inner):
        char = inner[i]
        current.append(char)
        if quote:
            if char == "\\" and i + 1 < len(inner):
                current.append(inner[i + 1])
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in PAIRS:
            depth += 1
        elif char in PAIRS.values():
            depth -= 1
        elif char == "," and depth == 0:
            current.pop()
            items.append("".join(current).strip())
            current = []
        i += 1
    last = "".join(current).strip()
    if last:
        items.append(last)
    return items
