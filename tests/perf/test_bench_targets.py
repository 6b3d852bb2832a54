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


BASE = dict(cold=2.0, warm=0.1, incremental=0.25, comment_edit=0.25, lint=0.25, parse_only=14.0,
            migrate_check=2.0, fixit=150.0)


def test_every_target_passes_on_fast_medians() -> None:
    got = verdicts(**BASE)
    assert got.pop("incremental / parse-only") is None  # context, not a target
    assert all(got.values()), got


def test_cpu_ratios_are_context_rows() -> None:
    runs = timings(**BASE)
    for name, cpu in (("cold", 3.0), ("warm", 0.15), ("parse-only", 12.0)):
        for t in runs[name]:
            t.cpu = cpu
    rows = {r["measure"]: r for r in bench_scan.targets(runs)}
    assert rows["cold cpu / parse-only cpu"]["value"] == pytest.approx(0.25)
    assert rows["warm cpu / parse-only cpu"]["value"] == pytest.approx(0.0125)
    assert rows["cold cpu / parse-only cpu"]["pass"] is None


@pytest.mark.parametrize("name, medians", [
    ("cold / parse-only", dict(cold=5.0)),
    ("warm / parse-only", dict(warm=0.8)),
    ("incremental median (s)", dict(incremental=0.5)),
    ("lint, 5 changed files, median (s)", dict(lint=0.5)),
    # a fast machine: parse-only 4 s, so 0.25 s of lint is 0.0625 x (over 0.05) but under 0.3 s
    ("lint / parse-only", dict(parse_only=4.0, cold=0.6)),
    ("fixit / cold", dict(fixit=50.0)),
    ("migrate --check / parse-only", dict(migrate_check=7.5)),
])
def test_each_target_fails_alone(name: str, medians: dict[str, float]) -> None:
    got = verdicts(**{**BASE, **medians})
    assert got[name] is False
    assert [m for m, ok in got.items() if ok is False] == [name]
