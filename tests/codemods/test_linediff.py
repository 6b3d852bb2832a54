"""The migrate diff: a unified diff `patch` applies, matched stretch by stretch between unique
lines, so its cost follows the changes rather than the file's length times their number."""

from __future__ import annotations

import difflib
import itertools
import random
import re

import pytest

from planeshift.codemods.model import FileChange
from planeshift.codemods.support.linediff import unified_diff


def patched(a: list[str], diff: list[str]) -> list[str]:
    """*a* with the hunks of *diff* applied (a minimal `patch`)."""
    out: list[str] = []
    i, k = 0, 2
    while k < len(diff):
        header = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@\n", diff[k])
        assert header is not None, diff[k]
        start, length = int(header[1]), int(header[2] or 1)
        start = start - 1 if length else start
        out += a[i:start]
        i, k = start, k + 1
        while k < len(diff) and not diff[k].startswith("@@"):
            tag, line = diff[k][0], diff[k][1:]
            assert tag in " -+", diff[k]
            if tag == " ":
                assert a[i] == line
                out.append(line)
                i += 1
            elif tag == "-":
                assert a[i] == line
                i += 1
            else:
                out.append(line)
            k += 1
    return out + a[i:]


def edited(rng: random.Random, a: list[str]) -> list[str]:
    b = list(a)
    for _ in range(rng.randint(0, 8)):
        pos = rng.randint(0, len(b))
        kind = rng.choice("ird")
        if kind == "i":
            b.insert(pos, f"new {rng.randint(0, 5)}\n")
        elif b and pos < len(b):
            if kind == "r":
                b[pos] = f"changed {rng.randint(0, 5)}\n"
            else:
                del b[pos]
    return b


@pytest.mark.parametrize("seed", range(6))
def test_the_diff_applies_back_to_the_new_text(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        spread = rng.choice((5, 50, 10_000))  # many repeated lines, or nearly all unique
        a = [f"line {rng.randint(0, spread)}\n" for _ in range(rng.randint(0, 80))]
        b = edited(rng, a)
        diff = list(unified_diff(a, b, "a/x.py", "b/x.py"))
        assert patched(a, diff) == b
        assert bool(diff) == (a != b)


def test_a_rewrite_of_scattered_registrations_is_one_line_out_one_line_in_each() -> None:
    a = [f"def handler_{i}(event):\n    return {i}\nbus.on(Point.AFTER, handler_{i})\n\n"
         for i in range(300)]
    a = [line for block in a for line in block.splitlines(keepends=True)]
    b = [line.replace("bus.on(Point.AFTER, handler_", "bus.on(Point.AFTER, wrap(handler_")
         .replace(")\n", "))\n") if line.startswith("bus.on") else line for line in a]
    b.insert(0, "from kernels import wrap\n")
    diff = FileChange("app.py", "".join(a), "".join(b)).diff.splitlines(keepends=True)
    assert diff[:2] == ["--- a/app.py\n", "+++ b/app.py\n"]
    assert patched(a, diff) == b
    removed = [line for line in diff[2:] if line.startswith("-")]
    added = [line for line in diff[2:] if line.startswith("+")]
    assert len(removed) == 300 and len(added) == 301  # nothing but the rewritten lines


def test_matching_work_grows_with_the_changes_not_the_file_times_the_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, never timed: the lines SequenceMatcher's search scans, summed over its calls.
    Matched whole, 400 changes scattered over 8,000 lines cost about 8,000 x 400 of them."""
    scanned = 0
    original = difflib.SequenceMatcher.find_longest_match

    def counted(self, alo=0, ahi=None, blo=0, bhi=None):  # type: ignore[no-untyped-def]
        nonlocal scanned
        scanned += (len(self.a) if ahi is None else ahi) - alo
        return original(self, alo, ahi, blo, bhi)

    monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", counted)
    a = [f"value_{i} = {i}\n" for i in range(8000)]
    b = [f"value_{i} = wrap({i})\n" if i % 20 == 0 else line for i, line in enumerate(a)]
    diff = list(unified_diff(a, b, "a/x.py", "b/x.py"))
    assert patched(a, diff) == b
    assert scanned <= 20 * len(a), scanned


def _stretches(a: list[str], b: list[str]) -> tuple[tuple[int, int, int, int], ...]:
    """The character spans of a's and b's texts outside which they are the same lines: each
    stretch difflib finds changed, widened by up to two lines of context on each side."""
    at_a = [0, *itertools.accumulate(len(line) for line in a)]
    at_b = [0, *itertools.accumulate(len(line) for line in b)]
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if tag != "equal":
            grow = min(2, i1, j1)
            after = min(2, len(a) - i2, len(b) - j2)
            i1, j1, i2, j2 = i1 - grow, j1 - grow, i2 + after, j2 + after
            if out and out[-1][1] >= at_a[i1]:  # touching the last one: one stretch
                i0, _, j0, _ = out.pop()
                out.append((i0, at_a[i2], j0, at_b[j2]))
                continue
            out.append((at_a[i1], at_a[i2], at_b[j1], at_b[j2]))
    return tuple(out)


@pytest.mark.parametrize("seed", range(6))
def test_a_diff_matched_only_where_the_text_changed_applies_back(seed: int) -> None:
    """Told the stretches that changed (a regional migration knows them), the diff matches
    only those, and it still turns the old text into the new."""
    rng = random.Random(seed)
    for _ in range(100):
        spread = rng.choice((5, 50, 10_000))
        a = [f"line {rng.randint(0, spread)}\n" for _ in range(rng.randint(0, 80))]
        b = edited(rng, a)
        change = FileChange("x.py", "".join(a), "".join(b), changed=_stretches(a, b))
        diff = change.diff.splitlines(keepends=True)
        assert patched(a, diff) == b
        assert bool(diff) == (a != b)


def test_a_diff_matched_only_where_the_text_changed_reads_nothing_else(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines between the changed stretches are not compared at all."""
    compared: list[int] = []
    original = difflib.SequenceMatcher.set_seqs

    def counted(self, a, b):  # type: ignore[no-untyped-def]
        compared.append(len(a) + len(b))
        return original(self, a, b)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seqs", counted)
    a = [f"value_{i} = {i}\n" for i in range(8000)]
    b = [f"value_{i} = wrap({i})\n" if i % 2000 == 0 else line for i, line in enumerate(a)]
    changed = _stretches(a, b)
    compared.clear()
    diff = FileChange("x.py", "".join(a), "".join(b), changed=changed).diff
    assert len(changed) == 4 and 0 < sum(compared) < 100, compared
    assert patched(a, diff.splitlines(keepends=True)) == b
    assert diff == FileChange("x.py", "".join(a), "".join(b)).diff
