"""A unified diff whose cost follows the changes, not the file times the changes.

``difflib.unified_diff`` matches the whole of both texts at once: SequenceMatcher finds the
longest common block, then recurses on each side of it, so a file with K changes scattered over
N lines costs about N x K (a 50,000-line module with 500 rewritten registrations: seconds). Here
the lines that occur exactly once in each text and in the same order (the longest such chain:
patience diff's anchors) cut both texts into short stretches; SequenceMatcher matches each
stretch alone, and the hunks are formatted as ``unified_diff`` formats them. A text without
such anchors is matched whole, as before. Where the caller knows which stretches of lines can
differ (a migration that rewrote a few statements of a module, the rest its own text), only
those are matched.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Iterator, Sequence

Opcode = tuple[str, int, int, int, int]


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str,
                 n: int = 3, within: Sequence[tuple[int, int, int, int]] | None = None
                 ) -> Iterator[str]:
    """The lines of a unified diff of *a* to *b* (lines with their endings), as
    ``difflib.unified_diff(a, b, fromfile, tofile, n=n)`` writes one; with *within*, the
    stretches (a[i1:i2] to b[j1:j2], in order) outside which the two are the same lines."""
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, (), ())
    matcher.opcodes = (  # type: ignore[attr-defined]  # what get_opcodes returns
        opcodes(a, b) if within is None else opcodes_within(a, b, within))
    started = False
    for group in matcher.get_grouped_opcodes(n):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """SequenceMatcher opcodes turning *a* into *b*, matched stretch by stretch between
    anchors (lines unique in both, in order)."""
    anchors = _anchors(a, b)
    out: list[Opcode] = []
    i0 = j0 = 0
    for i, j in [*anchors, (len(a), len(b))]:
        if i > i0 or j > j0:
            matcher = difflib.SequenceMatcher(None, a[i0:i], b[j0:j])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                _add(out, (tag, i0 + i1, i0 + i2, j0 + j1, j0 + j2))
        if i < len(a):
            _add(out, ("equal", i, i + 1, j, j + 1))
        i0, j0 = i + 1, j + 1
    return out


def opcodes_within(a: Sequence[str], b: Sequence[str],
                   within: Sequence[tuple[int, int, int, int]]) -> list[Opcode]:
    """:func:`opcodes`, matching only the stretches *within* (a[i1:i2] to b[j1:j2]); the lines
    between them are the same in both."""
    out: list[Opcode] = []
    i0 = j0 = 0
    for i1, i2, j1, j2 in [*within, (len(a), len(a), len(b), len(b))]:
        if i1 - i0 != j1 - j0:
            raise ValueError("the stretches between the changes differ in length")
        if i1 > i0:
            _add(out, ("equal", i0, i1, j0, j1))
        for tag, k1, k2, m1, m2 in opcodes(a[i1:i2], b[j1:j2]):
            _add(out, (tag, i1 + k1, i1 + k2, j1 + m1, j1 + m2))
        i0, j0 = i2, j2
    return out


def _add(out: list[Opcode], op: Opcode) -> None:
    """Append *op*, merged into the last one when both are equal stretches that touch."""
    if out and out[-1][0] == "equal" == op[0] and out[-1][2] == op[1] and out[-1][4] == op[3]:
        out[-1] = ("equal", out[-1][1], op[2], out[-1][3], op[4])
    else:
        out.append(op)


def _anchors(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """The longest chain of (i, j), a[i] == b[j] unique in each, increasing in both."""
    count_a, count_b = Counter(a), Counter(b)
    where_b = {line: j for j, line in enumerate(b) if count_b[line] == 1}
    pairs = [(i, where_b[line]) for i, line in enumerate(a)
             if count_a[line] == 1 and line in where_b]
    # longest increasing subsequence of the j's (the i's already increase), with back links
    tails: list[int] = []  # tails[k]: the smallest last j of a chain of length k + 1
    ends: list[int] = []  # ends[k]: the index in pairs of that chain's last pair
    back: list[int] = []
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        back.append(ends[k - 1] if k else -1)
        if k == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[k], ends[k] = j, index
    chain = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = back[index]
    return chain[::-1]


def _range(start: int, stop: int) -> str:
    """A hunk's range in the unified format (as difflib's ``_format_range_unified``)."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
