"""Properties, over programs hypothesmith generates and over hypothesis mutations of real
registration shapes: the scanner never crashes and its positions point at the nodes it names;
every codemod's output parses, compiles and is idempotent; a file with nothing to migrate stays
byte-identical; a scan with cache equals a scan without. Bounded here (conftest.py); the long
run is ``python benchmarks/fuzz.py``."""

from __future__ import annotations

import ast
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import hypothesmith
import pytest
from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree
from hypothesis import given
from hypothesis import strategies as st

from planeshift.analyzer.extract.file import extract_source
from planeshift.analyzer.shapes import vocabulary
from planeshift.api import load_packs, scan
from planeshift.codemods import MigrateOptions, migrate
from planeshift.config import Config
from planeshift.reports.json_report import render_json

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith's own compiles

VOCAB = vocabulary(load_packs(Config(root=Path("."), packs=(DEMO_PACK,), builtin_packs=(),
                                     use_cache=False)))
LIONAGI_VOCAB = vocabulary(load_packs(Config(root=Path("."), use_cache=False)))


@contextmanager
def tree(files: dict[str, str | bytes]) -> Iterator[Path]:
    """A fresh folder per example (hypothesis runs many in one test)."""
    root = Path(tempfile.mkdtemp(prefix="planeshift-prop-"))
    try:
        write_tree(root, {**DEMO_FILES, **{k: v for k, v in files.items() if isinstance(v, str)}})
        for rel, data in files.items():
            if isinstance(data, bytes):
                (root / rel).write_bytes(data)
        (root / "pyproject.toml").write_text("[project]\nname = 'prop'\n")
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def config(root: Path, cache: bool = False) -> Config:
    return Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=cache, jobs=1,
                  owners=(("**", "@prop-team"),))


# -- generated programs -----------------------------------------------------------------------

@given(hypothesmith.from_grammar())
def test_extraction_never_crashes_on_any_grammatical_program(source: str) -> None:
    for vocab in (VOCAB, LIONAGI_VOCAB):
        facts = extract_source(source.encode("utf-8", "surrogatepass"), "gen.py", "gen", False,
                               vocab)
        assert facts.error is None or facts.error.split(":")[0] in (
            "syntax error", "cannot decode", "cannot parse", "cannot analyse",
            "syntax error (line 1)") or facts.error.startswith("syntax error")


@given(hypothesmith.from_node())
def test_scan_never_crashes_and_migrate_leaves_a_file_without_registrations_byte_identical(
        source: str) -> None:
    data = source.encode("utf-8", "surrogatepass")
    with tree({"gen.py": data}) as root:
        result = scan(config(root))
        assert {r.file for r in result.registrations} <= {"gen.py"}
        if any(r.file == "gen.py" for r in result.registrations):
            return  # (a generated program can register on the demo bus by chance)
        done = migrate(config(root), MigrateOptions(write=True))
        assert "gen.py" not in {c.file for c in done.changes}
        assert (root / "gen.py").read_bytes() == data


# -- mutations of real registration shapes ------------------------------------------------------

HANDLERS = st.sampled_from([
    "audit", "log_it", "guard_async", "functools.partial(audit, 1)", "lambda **p: None",
    "lambda **p: guard_async(**p)", "Owner().method", "handlers[0]",
])
POINTS = st.sampled_from(["Point.BEFORE", "Point.AFTER", "Point.NEVER_EMITTED"])


@st.composite
def call(draw: st.DrawFn, receiver: str) -> str:
    handler, point = draw(HANDLERS), draw(POINTS)
    sep = draw(st.sampled_from([", ", ",", ",\n        ", " ,  "]))
    form = draw(st.sampled_from(["on", "on_kw", "subscribe", "persist", "append", "keyword",
                                 "mapping", "gate"]))
    open_, close = draw(st.sampled_from([("(", ")"), ("(\n        ", ",\n    )"),
                                         ("( ", " )")]))
    return {
        "on": f"{receiver}.on{open_}{point}{sep}{handler}{close}",
        "on_kw": f"{receiver}.on{open_}handler={handler}{sep}point={point}{close}",
        "subscribe": f"{receiver}.subscribe{open_}{handler}{close}",
        "persist": f"{receiver}.persist{open_}handler={handler}{close}",
        "append": f"{receiver}._callbacks.append{open_}{handler}{close}",
        "keyword": f"other = EventBus{open_}on_event={handler}{close}",
        "mapping": f"other = EventBus(hooks={{{point}: {handler}}})",
        "gate": f"{receiver}.gate = {handler}",
    }[form]


PRELUDE = """\
import functools
from demo.bus import EventBus, Point, hook


def audit(**payload):
    return None


def log_it(**payload):  # a comment with bus.on(Point.BEFORE, audit) in it
    print("log", payload)


async def guard_async(**payload):
    return True


class Owner:
    def method(self, **payload):
        return None


handlers = [audit]
"""


@st.composite
def program(draw: st.DrawFn) -> str:
    """The prelude, then registrations inside a function, a class, an `if` or at module level,
    with comments, blank lines, unicode names, semicolons, CRLF or LF."""
    indent = draw(st.sampled_from(["    ", "  ", "\t"]))
    where = draw(st.sampled_from(["module", "function", "method", "if"]))
    receiver = "self._bus" if where == "method" else "bus"
    lines = [f"{receiver} = EventBus()"]
    for _ in range(draw(st.integers(1, 4))):
        stmt = draw(call(receiver))
        prefix = draw(st.sampled_from(["", "café = 1; ", "x = 'bus.on(' ; "]))
        suffix = draw(st.sampled_from(["", "  # planeshift reads this", "  # é"]))
        lines += draw(st.sampled_from([[], [""], ["# a comment line"]]))
        lines.append(prefix + stmt + suffix)
    if draw(st.booleans()):
        lines += ["", "@hook(Point.AFTER)", "def decorated(**payload):", f"{indent}return None"]
    body = "\n".join(lines)
    head = {"module": "", "function": "def setup():\n", "if": "if True:\n",
            "method": "class Service:\n" + indent + "def __init__(self):\n"}[where]
    depth = {"module": 0, "function": 1, "if": 1, "method": 2}[where]
    body = "\n".join((indent * depth + line) if line else "" for line in body.splitlines())
    text = PRELUDE + "\n\n" + head + body + "\n"
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


def sliced(text: str, reg) -> str:
    """The source between a registration's start and end, LibCST's convention (1-based lines,
    0-based character columns)."""
    lines = text.splitlines(keepends=True)
    if reg.line == reg.end_line:
        return lines[reg.line - 1][reg.col:reg.end_col]
    middle = "".join(lines[reg.line:reg.end_line - 1])
    return lines[reg.line - 1][reg.col:] + middle + lines[reg.end_line - 1][:reg.end_col]


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@given(program())
def test_scan_positions_point_at_the_nodes_they_name(text: str) -> None:
    with tree({"app.py": text}) as root:
        result = scan(config(root))
    assert result.errors == ()
    regs = [r for r in result.registrations if r.file == "app.py"]
    assert regs, text
    for reg in regs:
        part = sliced(text.replace("\r\n", "\n"), reg)
        if reg.via == "decorator":
            assert part.startswith("@hook("), (part, reg)
            continue
        names = set(re.findall(r"[^\W\d]\w*", reg.handler.expr))  # (expr is a readable rendering)
        assert names <= set(re.findall(r"[^\W\d]\w*", part)), (part, reg)
        if reg.via in ("method", "append"):
            node = ast.parse(part.strip(), mode="eval").body
            assert isinstance(node, ast.Call) and ast.unparse(node.func).endswith(reg.api), part
        elif reg.via == "keyword":
            assert re.match(rf"{reg.api}\s*=", part), (part, reg)
        elif reg.via == "assign":
            assert isinstance(ast.parse(part).body[0], ast.Assign), part


@given(program())
def test_every_codemod_writes_code_that_compiles_and_a_second_run_changes_nothing(text: str
                                                                                 ) -> None:
    with tree({"app.py": text}) as root:
        first = migrate(config(root), MigrateOptions(write=True))
        assert not [n for n in first.not_migrated if n.error], first.not_migrated
        after = (root / "app.py").read_bytes()
        compile(after, "app.py", "exec", dont_inherit=True)
        if "\r\n" in text:  # CRLF stays CRLF, the added imports' lines included
            assert b"\n" not in after.replace(b"\r\n", b"")
        again = migrate(config(root), MigrateOptions(write=True))
        assert again.changes == (), "".join(c.diff for c in again.changes)
        assert (root / "app.py").read_bytes() == after


@given(st.lists(program(), min_size=2, max_size=4))
def test_a_scan_with_cache_equals_a_scan_without(versions: list[str]) -> None:
    """Each version of app.py in turn, like edits: the cached scan (result, facts, incremental
    link) must report what a scan without any cache reports."""
    with tree({"app.py": versions[0], "other.py": versions[-1]}) as root:
        for text in versions:
            (root / "app.py").write_text(text, newline="")
            cached, fresh = scan(config(root, cache=True)), scan(config(root))
            assert _stable(cached) == _stable(fresh)


def _stable(result) -> str:
    import json

    report = json.loads(render_json(result))
    report.pop("stats")
    return json.dumps(report, sort_keys=True)
