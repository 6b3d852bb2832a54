"""Strategies for the write-path properties (test_write_path.py) and their long run
(benchmarks/fuzz_write.py): modules with registrations the demo pack rewrites, set among what
makes a writer slip (several statements on a line, odd line separators inside string literals and
comments, a BOM, CRLF), hypothesmith's programs with registrations injected between their
statements, and hook settings files (YAML, JSON) whose commands hold random unicode.

Also the independent checks of a write: what changed outside the rewritten lines or spans.
"""

from __future__ import annotations

import ast
import difflib
import json
import re

import hypothesmith
import yaml
from hypothesis import strategies as st

from .test_properties import PRELUDE, call

# characters str.splitlines (and some editors) take for line breaks, that Python does not:
# legal inside a string literal or a comment
ODD = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
LITERAL_CHARS = st.lists(st.sampled_from([*ODD, "a", " ", "é", "\\\\", "😀", "\t"]),
                         max_size=8).map("".join)


@st.composite
def odd_statement(draw: st.DrawFn) -> str:
    inner = draw(LITERAL_CHARS)
    return draw(st.sampled_from([
        f's = "{inner}"', f"s = '''{inner}\n{inner}'''", f"# {inner}", f"s = b'{_ascii(inner)}'",
        f'f"{{1}}{inner}"']))


def _ascii(text: str) -> str:
    return "".join(ch if ord(ch) < 128 else "x" for ch in text)


@st.composite
def module(draw: st.DrawFn) -> str:
    """The test prelude, then registrations on the demo bus among odd statements, at module
    level or in a function, some joined on one line with `;`; a BOM and CRLF at random."""
    where = draw(st.sampled_from(["module", "function"]))
    lines = ["bus = EventBus()"]
    for _ in range(draw(st.integers(1, 4))):
        stmt = draw(call("bus"))
        before = draw(st.sampled_from(["", "a = 1; ", "s = '\u2028'; "]))
        after = draw(st.sampled_from(["", "; a = 2", "  # \x0c\u2028 note", '; s = "\x85"']))
        if "\n" in stmt:  # a call laid over several lines takes nothing after it
            after = ""
        lines += [draw(odd_statement()) for _ in range(draw(st.integers(0, 2)))]
        lines.append(before + stmt + after)
    lines += [draw(odd_statement()) for _ in range(draw(st.integers(0, 2)))]
    body = "\n".join(lines)
    if where == "function":
        body = "def setup():\n" + "\n".join(("    " + line) if line else ""
                                            for line in _physical(body))
    head = draw(st.sampled_from(["", '"""Docs\u2028 with a separator."""\n']))
    text = head + PRELUDE + "\n\n" + body + "\n"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if draw(st.booleans()) else "") + text


def _physical(body: str) -> list[str]:
    """Lines to indent: a triple-quoted string's second line is indented too (harmless)."""
    return body.split("\n")


INJECTED = [
    "from demo.bus import EventBus as _PsBus, Point as _PsPoint\n",
    "def _ps_audit(**payload):\n    return None\n",
    "_ps_bus = _PsBus()\n",
    "_ps_bus.subscribe(_ps_audit)\n",
    "_ps_bus.on(_PsPoint.BEFORE, _ps_audit); _ps_x = 1\n",
]


@st.composite
def injected(draw: st.DrawFn) -> str:
    """A hypothesmith program with the demo bus's registrations put between its top-level
    statements (after any `from __future__` import)."""
    source = draw(hypothesmith.from_node())
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    lines = source.splitlines(keepends=True)
    starts = [len(lines)]
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            starts = [len(lines)]
            continue
        if node.col_offset == 0 and (first == 1 or lines[first - 2].endswith("\n")):
            starts.append(first - 1)
    at = draw(st.sampled_from(sorted(set(starts))))
    if at == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    block = "".join(INJECTED[:3]) + "".join(draw(st.lists(st.sampled_from(INJECTED[3:]),
                                                          min_size=1, max_size=3)))
    return "".join(lines[:at]) + block + "".join(lines[at:])


# -- settings -----------------------------------------------------------------------------------

WORD = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=6)
PLAIN = st.sampled_from(["python", "-m", "audit", "--log", "x.log", "é", "a b"])


@st.composite
def command(draw: st.DrawFn) -> str:
    """A shell string: plain words, quoted words, random unicode (controls, NEL, separators)."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        word = draw(st.one_of(PLAIN, WORD))
        form = draw(st.sampled_from(["raw", "single", "double"]))
        if form == "single" and "'" not in word:
            word = f"'{word}'"
        elif form == "double":
            word = '"' + "".join("\\" + c if c in '"\\$`' else c for c in word) + '"'
        parts.append(word)
    return draw(st.sampled_from([" ", "\t", "  "])).join(parts)


@st.composite
def settings_file(draw: st.DrawFn) -> tuple[str, str]:
    """(name, text): a hook settings file in YAML (block or flow, each scalar in a style the
    emitter picks) or JSON (pretty or on one line, ASCII-escaped or not), with a statusLine
    command besides the hooks' commands."""
    events = {}
    for event in draw(st.lists(st.sampled_from(["PreToolUse", "PostToolUse", "Stop"]),
                               min_size=1, max_size=3, unique=True)):
        hooks = [{"type": "command", "command": draw(command())}
                 for _ in range(draw(st.integers(1, 3)))]
        events[event] = [{"matcher": "*", "hooks": hooks}]
    data = {"statusLine": {"type": "command", "command": draw(command())}, "hooks": events}
    if draw(st.booleans()):
        spelling = draw(st.sampled_from(["ascii", "raw", "escaped"]))
        text = json.dumps(data, ensure_ascii=spelling == "ascii",
                          indent=draw(st.sampled_from([None, 2])))
        if spelling == "escaped":  # astral characters raw, what YAML cannot hold raw escaped
            text = re.sub("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]",
                          lambda m: f"\\u{ord(m.group()):04x}", text)
        return ".demo/hooks.json", text + "\n"
    text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), sort_keys=False,
                          default_flow_style=draw(st.sampled_from([False, None])),
                          width=draw(st.sampled_from([80, 10_000])))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return ".demo/hooks.yaml", ("\ufeff" if draw(st.booleans()) else "") + text


# -- checks -------------------------------------------------------------------------------------

def lines_kept(before: bytes, after: bytes, encoding: str) -> list[str]:
    """Each line whose text a line diff finds unchanged must keep its bytes: the lines that did
    not (as `line N: old -> new`), for bytes that hold one newline byte per newline."""
    old_text = before.decode(encoding).split("\n")
    new_text = after.decode(encoding).split("\n")
    old_bytes, new_bytes = before.split(b"\n"), after.split(b"\n")
    if len(old_text) != len(old_bytes) or len(new_text) != len(new_bytes):
        return []
    bad = []
    matcher = difflib.SequenceMatcher(None, old_text, new_text, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for i, j in zip(range(i1, i2), range(j1, j2)):
            if old_bytes[i] != new_bytes[j]:
                bad.append(f"line {i + 1}: {old_bytes[i]!r} -> {new_bytes[j]!r}")
    return bad


def outside_spans_kept(before: str, after: str, spans: list[tuple[int, int]]) -> bool:
    """Is *after* *before* with only the character *spans* replaced (by anything)?"""
    keep = []
    at = 0
    for start, end in sorted(spans):
        keep.append(before[at:start])
        at = end
    keep.append(before[at:])
    if not (after.startswith(keep[0]) and after.endswith(keep[-1])):
        return False
    pos = len(keep[0])
    for chunk in keep[1:-1]:
        found = after.find(chunk, pos)
        if found == -1:
            return False
        pos = found + len(chunk)
    return pos <= len(after) - len(keep[-1]) or len(keep) == 1
