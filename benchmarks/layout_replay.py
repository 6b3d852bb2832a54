"""The layout pass on every one-statement line of a real tree, timed, and checked against an
earlier recording: what a change to ``codemods/support/layout.py`` must keep identical.

    python benchmarks/layout_replay.py --record /tmp/layout.json     # before the change
    python benchmarks/layout_replay.py --compare /tmp/layout.json    # after it: 0 differ

Each statement of the tree (lionagi 0.36.0's ``lionagi/`` package by default, as the test extra
installs it; ``--tree`` for another) is laid out at line lengths 40, 60, 79 and 100 and at a
column of 0, 4 or 8 (one of each pair, chosen by a fixed seed), with the pass's own splitting
(``_split``: the outermost flat bracket of each line too long, hugged when it fits, one element a
line otherwise). The recording holds each input and the code laid out; ``--compare`` lays the
same inputs out again and counts those whose code differs (the first few are printed). Timing is
the splitting alone, summed, as a median over ``--runs``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from pathlib import Path

import libcst as cst

from planeshift.codemods.support import layout
from planeshift.codemods.support.style import TargetStyle

LENGTHS = (40, 60, 79, 100)
COLUMNS = (0, 4, 8)


def default_tree() -> Path:
    import lionagi  # the test extra's pinned copy: read as text, never run beyond its import

    return Path(lionagi.__file__).resolve().parent


def cases(tree: Path) -> list[tuple[str, int, int]]:
    """(code of one statement at column 0, column, line length), in a fixed order."""
    rnd = random.Random(7)
    out = []
    for path in sorted(tree.rglob("*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except (cst.ParserSyntaxError, RecursionError):
            continue
        for node in _statements(module):
            code = cst.Module(body=[node.with_changes(leading_lines=())]).code
            if len(code) > 45:
                out.append((code, rnd.choice(COLUMNS), rnd.choice(LENGTHS)))
    return out


def _statements(module: cst.Module) -> list[cst.SimpleStatementLine]:
    found: list[cst.SimpleStatementLine] = []

    class Visitor(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            if len(node.body) == 1:
                found.append(node)

    module.visit(Visitor())
    return found


def lay_out(all_cases: list[tuple[str, int, int]]) -> tuple[list[str | None], float]:
    """Each case laid out (None where the pass raised), and the seconds the splitting took."""
    out: list[str | None] = []
    spent = 0.0
    for code, column, length in all_cases:
        unit = cst.parse_module(code).body[0]
        assert isinstance(unit, cst.SimpleStatementLine)
        style = dataclasses.replace(TargetStyle(), line_length=length)
        started = time.perf_counter()
        try:
            result = layout._split(unit, column, style)
            laid = result[0] if isinstance(result, tuple) else result  # (a statement, its code)
        except Exception:  # noqa: BLE001 - counted as a difference, printed by --compare
            out.append(None)
            continue
        finally:
            spent += time.perf_counter() - started
        out.append(cst.Module(body=[laid]).code)
    return out, spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--record", type=Path, help="write the inputs and their layouts here")
    parser.add_argument("--compare", type=Path, help="lay out a recording's inputs again")
    parser.add_argument("--show", type=int, default=3, help="differences printed")
    args = parser.parse_args(argv)
    if args.compare:
        recorded = json.loads(args.compare.read_text(encoding="utf-8"))
        all_cases = [tuple(c) for c in recorded["cases"]]
    else:
        all_cases = cases(args.tree or default_tree())
    times, laid = [], []
    for _ in range(max(1, args.runs)):
        laid, spent = lay_out(all_cases)  # type: ignore[arg-type]
        times.append(spent)
    changed = sum(1 for (code, _, _), out in zip(all_cases, laid) if out != code)
    print(f"{len(all_cases)} statements, {changed} split; splitting took "
          f"{statistics.median(times):.2f} s (median of {len(times)})")
    if args.record:
        args.record.write_text(json.dumps({"cases": all_cases, "laid": laid}), encoding="utf-8")
        print(f"recorded to {args.record}")
    if args.compare:
        differ = [(c, want, got) for c, want, got in zip(all_cases, recorded["laid"], laid)
                  if want != got]
        for (code, column, length), want, got in differ[: args.show]:
            print(f"--- column {column}, line length {length}\n{code}--- recorded:\n{want}"
                  f"--- now:\n{got}")
        print(f"{len(differ)} differ from {args.compare}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
