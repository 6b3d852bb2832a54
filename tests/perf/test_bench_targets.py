"""The benchmark's verdicts: each target row passes or fails on the medians it is given."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _bench_util as bu  # noqa: E402
import bench_scan  # noqa: E402

MB = 1024 * 1024


def timings(**medians: float) -> dict[str, list[bu.Timed]]:
    # three runs around each median, so the median is the middle one
    return {name.replace("_", "-"): [bu.Timed(s * 0.9, 0, 100 * MB), bu.Timed(s, 0, 100 * MB),
                                     bu.Timed(s * 1.5, 0, 100 * MB)]
            for name, s in medians.items()}


def verdicts(**medians: float) -> dict[str, bool | None]:
    return {row["measure"]: row["pass"] for row in bench_scan.targets(timings(**medians))}


BASE = dict(cold=3.0, warm=0.2, incremental=0.3, comment_edit=0.25, lint=0.3, parse_only=14.0,
            migrate_check=2.0, fixit=150.0)


def test_every_target_passes_on_fast_medians() -> None:
    got = verdicts(**BASE)
    assert got.pop("incremental / parse-only") is None  # context, not a target
    assert all(got.values()), got


@pytest.mark.parametrize("name, medians", [
    ("cold / parse-only", dict(cold=5.0)),
    ("warm / parse-only", dict(warm=0.8)),
    ("incremental median (s)", dict(incremental=0.5)),
    ("lint, 5 changed files, median (s)", dict(lint=0.5)),
    # a fast machine: parse-only 5 s, so 0.3 s of lint is 0.06 x (over 0.05) but under 0.5 s
    ("lint / parse-only", dict(parse_only=5.0, cold=1.4)),
    ("fixit / cold", dict(fixit=80.0)),
    ("migrate --check / parse-only", dict(migrate_check=7.5)),
])
def test_each_target_fails_alone(name: str, medians: dict[str, float]) -> None:
    got = verdicts(**{**BASE, **medians})
    assert got[name] is False
    assert [m for m, ok in got.items() if ok is False] == [name]
