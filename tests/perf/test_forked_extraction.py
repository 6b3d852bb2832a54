"""Files are extracted by this process and forked helpers sharing one queue: the blobs are the
ones a single process makes, every result reaches the parent once, and a helper that fails costs
time, never a result."""

from __future__ import annotations

import os
import signal
import textwrap
import time
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_PACK

from perf.fixture_tree import fixture_files
from planeshift import workers
from planeshift.analyzer.discover import SourceFile
from planeshift.analyzer.extract import pool
from planeshift.analyzer.shapes import vocabulary
from planeshift.analyzer.store.caches import FactCache, entry_key
from planeshift.analyzer.store.sources import Source
from planeshift.api import load_packs
from planeshift.config import Config

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _square(k: int) -> bytes:
    return str(k * k).encode()


@pytest.mark.parametrize("jobs", [2, 3])
@pytest.mark.parametrize("n", [2, 9, 3000])  # 3000: more items than the queue has records
def test_shared_map_equals_a_loop_and_reports_each_item_once(jobs: int, n: int) -> None:
    seen: list[int] = []
    out = workers.shared_map(_square, [k % 7 for k in range(n)], jobs,
                             done=lambda k, blob: seen.append(k))
    assert out == [_square(k) for k in range(n)]
    assert sorted(seen) == list(range(n))


def test_the_work_is_shared_and_largest_first(tmp_path: Path) -> None:
    parent = os.getpid()
    taken: list[int] = []
    helper_started = tmp_path / "helper-took-an-item"
    parent_started = tmp_path / "parent-took-an-item"

    def meet(mine: Path, theirs: Path) -> None:
        """Each process holds its first item until the other has taken one: the sharing is shown
        by the order of events, however loaded the machine (a hang guard, not a measure)."""
        mine.touch()
        for _ in range(60_000):
            if theirs.exists():
                return
            time.sleep(0.001)

    def where(k: int) -> bytes:
        if os.getpid() != parent:
            meet(helper_started, parent_started)
            return b"helper"
        taken.append(k)
        meet(parent_started, helper_started)
        return b"parent"

    sizes = [(k * 7) % 40 for k in range(40)]
    out = workers.shared_map(where, sizes, 2)
    assert set(out) == {b"parent", b"helper"}  # both processes took items
    assert [sizes[k] for k in taken] == sorted((sizes[k] for k in taken), reverse=True)


def test_a_helper_that_raises_is_replaced_by_the_parent() -> None:
    parent = os.getpid()

    def only_in_the_parent(k: int) -> bytes:
        if os.getpid() != parent:
            raise RuntimeError("the helper dies")
        return _square(k)

    assert workers.shared_map(only_in_the_parent, [1] * 30, 2) == [_square(k) for k in range(30)]


def test_a_helper_killed_mid_way_loses_nothing() -> None:
    parent = os.getpid()

    def killed_after_a_few(k: int) -> bytes:
        if os.getpid() != parent and k >= 5:
            os.kill(os.getpid(), signal.SIGKILL)  # no clean-up, a frame possibly cut short
        return _square(k) * 1000

    out = workers.shared_map(killed_after_a_few, [1] * 50, 3)
    assert out == [_square(k) * 1000 for k in range(50)]


def test_a_helpers_note_reaches_the_parent() -> None:
    notes: list[bytes] = []
    workers.shared_map(_square, [1] * 20, 2, note=lambda: b"cache disabled",
                       noted=notes.append)
    assert notes == [b"cache disabled"]


def test_one_process_when_there_is_one_job_or_one_item() -> None:
    parent = os.getpid()

    def pid(k: int) -> bytes:
        return str(os.getpid()).encode()

    assert set(workers.shared_map(pid, [1] * 5, 1)) == {str(parent).encode()}
    assert workers.shared_map(pid, [1], 4) == [str(parent).encode()]


# -- the extraction on top of it ----------------------------------------------------------------

@pytest.fixture
def sources(tmp_path: Path) -> list[Source]:
    files = fixture_files()
    out = []
    for rel, text in sorted(files.items()):
        if not rel.endswith(".py"):
            continue
        data = textwrap.dedent(text).encode()
        module = rel[:-3].replace("/", ".")
        file = SourceFile(tmp_path / rel, rel, module, False)
        out.append(Source(file, data, entry_key(data, rel, module, False)))
    return out


def _vocab():
    return vocabulary(load_packs(Config(root=Path("."), packs=(DEMO_PACK,), builtin_packs=())))


def test_forked_blobs_equal_one_process(sources: list[Source]) -> None:
    vocab = _vocab()
    one = pool.extract_all(sources, vocab, Config(root=Path("."), jobs=1), None)
    two = pool.extract_all(sources, vocab, Config(root=Path("."), jobs=2), None)
    assert (one.jobs, two.jobs) == (1, 2)
    assert two.blobs == one.blobs
    assert two.facts == one.facts


def test_a_cache_warning_met_by_a_helper_is_reported(sources: list[Source], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    real = FactCache.put_bytes

    def fails_in_the_helper(self: FactCache, key: str, blob: bytes) -> None:
        if os.getpid() != parent:
            self.warning = "cache disabled, cannot write: helper"
            return
        real(self, key, blob)

    monkeypatch.setattr(FactCache, "put_bytes", fails_in_the_helper)
    out = pool.extract_all(sources, _vocab(), Config(root=Path("."), jobs=2),
                           FactCache(tmp_path, "x"))
    assert out.warnings == ["cache disabled, cannot write: helper"]


def test_a_second_extraction_keeps_the_rules_facts(sources: list[Source],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a wider vocabulary (a derived API's names) the files are extracted again for their
    sites; the rules' facts do not depend on the vocabulary and are not read twice, and the
    facts equal those of a first extraction under the wider vocabulary."""
    from dataclasses import replace

    from planeshift.analyzer.extract import file

    vocab = _vocab()
    config = Config(root=Path("."), jobs=1)
    extraction = pool.Extraction(sources, config, lambda v: None)
    first = extraction.all(vocab).facts
    called = set().union(*(f.called_funcs | f.called_attrs for f in first))
    wider = replace(vocab, calls=vocab.calls | called)
    fresh = pool.extract_all(sources, wider, config, None).facts
    assert sum(len(f.sites) for f in fresh) > sum(len(f.sites) for f in first)
    real, read = file.rule_facts_reader(), []

    def counted(tree: object, text: str) -> tuple:
        read.append(text)
        return real(tree, text)

    monkeypatch.setattr(file, "_rule_facts", [counted])
    again = extraction.again([s.file.rel for s in sources], wider)
    assert again == fresh
    assert not read
