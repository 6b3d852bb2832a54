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


def test_every_target_passes_on_fast_medians() -> None:
    got = verdicts(cold=3.0, warm=0.2, incremental=0.3, comment_edit=0.25, parse_only=14.0,
                   fixit=150.0)
    assert got.pop("incremental / parse-only") is None  # context, not a target
    assert all(got.values()), got


@pytest.mark.parametrize("name, medians", [
    ("cold / parse-only", dict(cold=5.0)),
    ("warm / parse-only", dict(warm=0.8)),
    ("incremental median (s)", dict(incremental=0.5)),
    ("fixit / cold", dict(fixit=80.0)),
])
def test_each_target_fails_alone(name: str, medians: dict[str, float]) -> None:
    base = dict(cold=3.0, warm=0.2, incremental=0.3, comment_edit=0.25, parse_only=14.0,
                fixit=150.0)
    got = verdicts(**{**base, **medians})
    assert got[name] is False
    assert [m for m, ok in got.items() if ok is False] == [name]
