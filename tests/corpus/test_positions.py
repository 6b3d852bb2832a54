"""Every registration and emission lionagi's scan reports is at a node LibCST finds there: the
same start and end, in LibCST's convention (1-based lines, 0-based character columns)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from planeshift.types import ScanResult

pytestmark = pytest.mark.corpus

# the node a registration of each form is (a keyword or a mapping entry: the argument, the entry)
NODES: dict[str, tuple[type[cst.CSTNode], ...]] = {
    "method": (cst.Call, cst.Decorator), "function": (cst.Call,), "append": (cst.Call,),
    "decorator": (cst.Decorator,), "keyword": (cst.Arg,), "assign": (cst.Assign, cst.AnnAssign),
    "mapping": (cst.DictElement, cst.StarredDictElement, cst.Arg), "emission": (cst.Call,),
}


def spans(path: Path) -> dict[tuple[int, int, int, int], set[type]]:
    """(line, col, end line, end col) -> the node types LibCST has exactly there."""
    wrapper = MetadataWrapper(cst.parse_module(path.read_bytes()))
    found: dict[tuple[int, int, int, int], set[type]] = defaultdict(set)
    for node, where in wrapper.resolve(PositionProvider).items():
        found[(where.start.line, where.start.column, where.end.line, where.end.column)].add(
            type(node))
    return found


def test_every_position_is_the_node_libcst_finds(corpus_root: Path,
                                                 lionagi_scan: ScanResult) -> None:
    sites = [(r.file, (r.line, r.col, r.end_line, r.end_col), r.via)
             for r in lionagi_scan.registrations if r.via != "config"]
    sites += [(e.file, (e.line, e.col, e.end_line, e.end_col), "emission")
              for e in lionagi_scan.emissions]
    assert len(sites) > 150
    parsed: dict[str, dict] = {}
    wrong = []
    for file, span, via in sites:
        if file not in parsed:  # only the files that have sites are parsed
            parsed[file] = spans(corpus_root / file)
        if not parsed[file].get(span, set()) & set(NODES[via]):
            wrong.append(f"{file}:{span} ({via}): LibCST has {sorted(t.__name__ for t in parsed[file].get(span, ()))}")
    assert not wrong, "\n".join(wrong[:20])
