"""The caches and the forked helpers change how fast a scan is, never what it reports.

One fixture tree of ~40 modules registering handlers on the demo bus (big enough that a cold
scan forks helpers), scanned every way the cache and the helpers allow; the JSON
reports, less their ``stats``, must be identical.
"""

from __future__ import annotations

import marshal
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from analyzer.helpers import write_tree

from perf.fixture_tree import BROKEN, N_MODULES, fixture_files, report, run
from planeshift.analyzer.extract.pool import FORK_THRESHOLD
from planeshift.analyzer.store.caches import code_tag
from planeshift.analyzer.store.sources import StatIndex


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    write_tree(root, fixture_files())
    return root


@pytest.fixture(scope="module")
def baseline(tree: Path) -> dict[str, Any]:
    result = run(tree, jobs=1)
    data = report(result)
    # the fixture must be worth comparing: many sites, findings, and the two broken files
    assert data["summary"]["registrations"] >= N_MODULES
    assert data["findings"], "expected hazards (discard-unawaited callbacks, denials) to compare"
    assert {e["file"] for e in data["errors"]} == set(BROKEN)
    assert data["summary"]["files_scanned"] >= FORK_THRESHOLD + 10
    return data


def test_forked_helpers_give_the_same_report_as_one_process(tree: Path, baseline: dict) -> None:
    result = run(tree, jobs=2)
    assert result.stats["jobs"] == 2
    assert report(result) == baseline


def test_cold_warm_and_facts_only_caches_give_the_same_report(
    tree: Path, baseline: dict, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cold = run(tree, cache)
    assert (cold.stats["cache"], cold.stats["cache_hits"], cold.stats["jobs"]) == ("cold", 0, 2)
    assert report(cold) == baseline

    warm = run(tree, cache)
    assert warm.stats["cache"] == "result"
    assert report(warm) == baseline

    shutil.rmtree(cache / "results")
    relinked = run(tree, cache)  # nothing changed since the last link: every unit is reused
    assert relinked.stats["cache"] == "incremental"
    assert relinked.stats["cache_hits"] == baseline["summary"]["files_scanned"]
    assert report(relinked) == baseline

    shutil.rmtree(cache / "results")
    shutil.rmtree(cache / "link")
    facts = run(tree, cache)
    assert facts.stats["cache"] == "facts"
    assert facts.stats["cache_hits"] == baseline["summary"]["files_scanned"]
    assert report(facts) == baseline


def test_cold_cache_in_one_process_matches_the_pool(tree: Path, baseline: dict,
                                                    tmp_path: Path) -> None:
    result = run(tree, tmp_path / "cache", jobs=1)
    assert (result.stats["cache"], result.stats["jobs"]) == ("cold", 1)
    assert report(result) == baseline


def fact_entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("facts-*/*/*.facts"))


def test_corrupt_fact_entries_are_ignored_and_rebuilt(tree: Path, baseline: dict,
                                                      tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run(tree, cache)
    entries = fact_entries(cache)
    assert len(entries) == baseline["summary"]["files_scanned"]
    entries[0].write_bytes(entries[0].read_bytes()[:7])  # truncated mid-write
    entries[1].write_bytes(b"\x00garbage\xff" * 8)  # not marshal at all
    entries[2].write_bytes(marshal.dumps((5, ["wrong", "shape"])))  # decodes, wrong row
    entries[3].write_bytes(b"")  # empty
    shutil.rmtree(cache / "results")  # else the result cache answers before facts are read
    shutil.rmtree(cache / "link")  # else the last link answers without reading any facts

    rebuilt = run(tree, cache)
    assert rebuilt.stats["cache"] == "facts"
    assert rebuilt.stats["cache_hits"] == len(entries) - 4
    assert report(rebuilt) == baseline

    shutil.rmtree(cache / "results")
    shutil.rmtree(cache / "link")
    again = run(tree, cache)
    assert again.stats["cache_hits"] == len(entries), "the corrupt entries were not rewritten"
    assert report(again) == baseline


def test_corrupt_result_entry_is_ignored(tree: Path, baseline: dict, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run(tree, cache)
    entries = sorted((cache / "results").glob("*.result"))
    assert len(entries) == 2  # keyed by the files' bytes and by their facts
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2])
    result = run(tree, cache)
    assert result.stats["cache"] == "incremental"
    assert report(result) == baseline
    assert run(tree, cache).stats["cache"] == "result"


def test_unwritable_cache_dir_warns_and_reports_the_same(tree: Path, baseline: dict,
                                                         tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("a regular file where the cache's parent folder should be\n")
    cache = blocker / "cache"
    for _ in range(2):  # the second run must not find a half-written cache either
        result = run(tree, cache)
        assert result.stats["cache"] == "cold"
        assert result.stats["warnings"], "an unwritable cache must be reported, not silent"
        assert any(str(cache) in w for w in result.stats["warnings"])
        assert report(result) == baseline


def test_comment_only_edit_is_answered_from_the_facts_keyed_result(tree: Path, baseline: dict,
                                                                   tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    cache = tmp_path / "cache"
    run(copy, cache)
    target = copy / "app" / "mod_3.py"
    target.write_text(target.read_text() + "\n# a trailing comment changes no fact\n")
    edited = run(copy, cache)
    assert edited.stats["cache"] == "result-facts"
    assert report(edited)["registrations"] == report(run(copy, None))["registrations"]
    target = copy / "app" / "mod_2.py"  # (mod_3 defines a forwarder: moving it relinks in full)
    target.write_text("\n\n" + target.read_text())  # every line moves: a relink
    moved = run(copy, cache)
    assert moved.stats["cache"] == "incremental"
    assert report(moved) == report(run(copy, None))


def test_stat_index_skips_unchanged_files_and_never_a_rewritten_one(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose stat is unchanged is not read again; a rewrite that keeps the size and puts
    the old mtime back still changes ctime, so it is read (and the report follows it)."""
    monkeypatch.setattr(StatIndex, "RACY_NS", 0)  # vouch for files written a moment ago
    copy, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(tree, copy)
    run(copy, cache)
    index = StatIndex(cache)
    assert len(index.entries) == len(list(copy.rglob("*.py")))

    target = copy / "app" / "mod_0.py"
    before = target.stat()
    source = target.read_text()
    assert "async def handle_0" in source
    target.write_text(source.replace("async def handle_0", "def handle_0      "))  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    edited = run(copy, cache)
    assert report(edited) == report(run(copy, None))
    handler = [r for r in edited.registrations if r.handler.expr == "handle_0"]
    assert handler and all(r.handler.declared_async is False for r in handler)


def test_files_just_written_are_not_vouched_for(tree: Path, tmp_path: Path) -> None:
    copy, cache = tmp_path / "tree", tmp_path / "cache"
    shutil.copytree(tree, copy)  # every file is seconds old at most
    run(copy, cache)
    assert StatIndex(cache).entries == {}


def test_fact_namespaces_of_other_code_are_pruned(tree: Path, baseline: dict,
                                                  tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    stale = cache / "facts-0badc0de-0123456789abcdef" / "ab"
    stale.mkdir(parents=True)
    (stale / "entry.facts").write_bytes(b"written by another planeshift")
    result = run(tree, cache)
    assert report(result) == baseline
    namespaces = [p.name for p in cache.glob("facts-*")]
    assert namespaces and all(n.startswith(f"facts-{code_tag()}-") for n in namespaces)
