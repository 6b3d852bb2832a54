"""Malformed rule packs, settings, baselines and hook settings files are one line naming the file
(and the key) with exit 2, or, for a file in the tree, one error entry while the rest completes;
damaged caches are never believed: the scan answers as if they were not there."""

from __future__ import annotations

import json
import marshal
import shutil
from pathlib import Path

import pytest

from planeshift.analyzer.store.codec import FORMAT

from .helpers import PACK_FLAGS, Run, command, errors_of, invoke, project

KINDS = ("scan", "lint", "migrate", "characterize")

PACKS: dict[str, tuple[str | bytes | None, str]] = {
    "bad YAML": ("pack: x\nmechanisms: [\n", "line 3: invalid YAML"),
    "a Python tag": ('pack: x\nmechanisms: !!python/object/apply:os.getcwd []\n',
                     "could not determine a constructor"),
    "not UTF-8": (b"pack: \xff\n", "not UTF-8"),
    "a list": ("- a\n- b\n", "expected a mapping, got list"),
    "an unknown key": ("pack: x\nmechanisms: []\nsurprise: 1\n", "surprise: unknown key"),
    "a bad plane": (None, "plane: 'observer' is not one of"),
    "an empty file": ("", "expected a mapping"),
}


def one_line(run: Run, *fragments: str) -> None:
    """Exit 2, one line on stderr holding every fragment, no traceback."""
    assert run.code == 2, (run.code, run.stderr)
    assert run.stderr.count("\n") == 1, run.stderr
    assert all(f in run.stderr for f in fragments), run.stderr
    run.assert_clean_stderr()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(PACKS))
def test_a_malformed_rule_pack_is_one_line_naming_it(tmp_path: Path, monkeypatch, kind: str,
                                                     case: str) -> None:
    from analyzer.helpers import DEMO_PACK

    body, expected = PACKS[case]
    if body is None:
        body = DEMO_PACK.read_text().replace("plane: subscriber", "plane: observer", 1)
    root = project(tmp_path)
    pack = root / "bad.yaml"
    pack.write_bytes(body if isinstance(body, bytes) else body.encode())
    args = command(kind, root)[:-3] + ["--pack", str(pack), "--no-builtin-packs"]
    run = invoke(root, *args, monkeypatch=monkeypatch)
    one_line(run, f"planeshift {kind}: error: {pack}: ", expected)


SETTINGS: dict[str, tuple[str | bytes, str]] = {
    "bad TOML": ("[tool.planeshift\n", "invalid TOML"),
    "a wrong type": ("[tool.planeshift]\njobs = 'many'\n", "tool.planeshift.jobs: expected"),
    "an unknown key": ("[tool.planeshift]\nsurprise = 1\n", "tool.planeshift.surprise: unknown"),
    "not a table": ("[tool]\nplaneshift = 3\n", "tool.planeshift: expected a table"),
    "a bad size": ("[tool.planeshift]\nmax-file-size = -1\n", "max-file-size: expected"),
    "not UTF-8": (b"[tool.planeshift]\nexclude = ['\xff']\n", "invalid TOML"),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(SETTINGS))
def test_a_malformed_settings_file_is_one_line_naming_it(tmp_path: Path, monkeypatch, kind: str,
                                                         case: str) -> None:
    body, expected = SETTINGS[case]
    root = project(tmp_path)
    (root / "pyproject.toml").write_bytes(body if isinstance(body, bytes) else body.encode())
    one_line(invoke(root, *command(kind, root), monkeypatch=monkeypatch),
             f"{root / 'pyproject.toml'}: ", expected)


BASELINES: dict[str, tuple[str | bytes | None, str]] = {
    "bad JSON": ('{"schema": "planeshift.baseline/1", "findings": [', "not JSON"),
    "a list": ("[1, 2]", "schema: expected a planeshift.baseline/1 document"),
    "a bad entry": ('{"schema": "planeshift.baseline/1", "findings": [{"file": 3}]}',
                    "findings[0].file: expected a string"),
    "not UTF-8": (b"\xff\xfe", "not JSON"),
    "a folder": (None, "cannot read: Is a directory"),
}


@pytest.mark.parametrize("case", sorted(BASELINES))
def test_a_malformed_baseline_is_one_line_naming_it(tmp_path: Path, monkeypatch,
                                                    case: str) -> None:
    body, expected = BASELINES[case]
    root = project(tmp_path, settings='baseline = "baseline.json"\n')  # as pre-commit users do
    baseline = root / "baseline.json"
    if body is None:
        baseline.mkdir()
    else:
        baseline.write_bytes(body if isinstance(body, bytes) else body.encode())
    run = invoke(root, *command("lint", root), monkeypatch=monkeypatch)
    one_line(run, "planeshift lint: error: ", str(baseline), expected)


HOOK_SETTINGS: dict[str, tuple[str | bytes, str]] = {  # the demo pack reads .demo/hooks.{json,yaml} for external hook commands
    "a/.demo/hooks.json": ('{"hooks": [ {"command": "echo hi" ', "cannot parse settings file"),
    "b/.demo/hooks.yaml": ("hooks:\n  - command: [unclosed\n", "cannot parse settings file"),
    "c/.demo/hooks.yaml": (b"hooks:\n  - command: '\xff'\n", "cannot decode settings file"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_malformed_hook_settings_file_is_an_error_entry_and_the_rest_completes(
        tmp_path: Path, monkeypatch, kind: str) -> None:
    root = project(tmp_path, {k: v for k, (v, _) in HOOK_SETTINGS.items()})
    run = invoke(root, *command(kind, root), monkeypatch=monkeypatch)
    assert run.code == (0 if kind == "characterize" else 1)  # (characterize: the module written)
    run.assert_clean_stderr()
    errors = errors_of(run.json())
    assert set(errors) == set(HOOK_SETTINGS)
    for rel, (_, expected) in HOOK_SETTINGS.items():
        assert expected in errors[rel] and f"{rel}: cannot be analysed: {expected}" in run.stderr


DAMAGE = {
    "garbage": lambda data: b"\x00\xffjunk" * 10,
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "foreign marshal": lambda data: marshal.dumps((FORMAT, {"x": [1, (2, 3)]}, "y")),
    "wrong shape": lambda data: marshal.dumps((FORMAT, [None] * 30)),
    "a code object": lambda data: marshal.dumps(compile("open('/x', 'w')", "x", "exec")),
}
CACHE_FILES = {
    "facts": "facts-*/*/*.facts", "results": "results/*.result", "link": "link/*.snap",
    "pack": "packs/*.data", "stat index": "stat-index",
}


def stable(run: Run) -> dict:
    return {k: v for k, v in run.json().items() if k != "stats"}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("which", sorted(CACHE_FILES))
def test_a_damaged_cache_file_is_never_believed(tmp_path: Path, monkeypatch, damage: str,
                                                which: str) -> None:
    from planeshift.analyzer.store.sources import StatIndex

    monkeypatch.setattr(StatIndex, "RACY_NS", -1)  # index the files just written
    root = project(tmp_path)
    args = ["scan", str(root), "--format", "json", *PACK_FLAGS]
    truth = invoke(root, *args, "--no-cache", monkeypatch=monkeypatch)
    invoke(root, *args, monkeypatch=monkeypatch)  # fills the cache
    hit = sorted((root / ".planeshift_cache").glob(CACHE_FILES[which]))
    assert hit, which
    for path in hit:
        path.write_bytes(DAMAGE[damage](path.read_bytes()))
    for _ in range(2):  # the damaged entry, then what the scan rewrote in its place
        if which in ("facts", "link"):  # else the result cache answers without reading them
            shutil.rmtree(root / ".planeshift_cache" / "results")
        run = invoke(root, *args, monkeypatch=monkeypatch)
        assert run.code == 0 and "Traceback" not in run.stderr, run.stderr
        assert stable(run) == stable(truth)


@pytest.mark.parametrize("which", ["facts", "results"])
def test_an_entry_another_cache_format_wrote_is_never_believed(tmp_path: Path, monkeypatch,
                                                               which: str) -> None:
    """Facts or a result that decode well, but in another format's envelope (another release's
    entry in this one's place): what they say is not what this planeshift would say."""
    from planeshift.analyzer.store.codec import DIGEST

    root = project(tmp_path / "tree")
    other = project(tmp_path / "other", {"app.py": "x = 1\n"})  # registers nothing
    args = ["scan", str(root), "--format", "json", *PACK_FLAGS]
    truth = invoke(root, *args, "--no-cache", monkeypatch=monkeypatch)
    invoke(root, *args, monkeypatch=monkeypatch)
    invoke(other, "scan", str(other), *args[2:], monkeypatch=monkeypatch)
    pattern = CACHE_FILES[which]
    mine = {p.relative_to(root): p for p in (root / ".planeshift_cache").glob(pattern)}
    theirs = {p.relative_to(other): p for p in (other / ".planeshift_cache").glob(pattern)}
    foreign = min(p for rel, p in theirs.items() if rel not in mine)  # its app.py, its result
    head = DIGEST if which == "facts" else 0  # a facts entry starts with the facts' digest
    _, row = marshal.loads(foreign.read_bytes()[head:])
    forged = foreign.read_bytes()[:head] + marshal.dumps((FORMAT - 1, row))
    for rel, path in mine.items():
        if rel not in theirs:  # app.py's facts; the tree's result, under each of its keys
            path.write_bytes(forged)
    if which == "facts":  # make the scan read the facts
        for folder in ("results", "link"):
            shutil.rmtree(root / ".planeshift_cache" / folder)
    run = invoke(root, *args, monkeypatch=monkeypatch)
    assert run.code == 0 and stable(run) == stable(truth), run.stderr


@pytest.mark.parametrize("entry", [None, 5, (1,), ("a",) * 7, "x"])
def test_a_stat_index_with_damaged_entries_is_never_believed(tmp_path: Path, monkeypatch,
                                                             entry) -> None:
    root = project(tmp_path)
    args = ["scan", str(root), "--format", "json", *PACK_FLAGS]
    truth = invoke(root, *args, "--no-cache", monkeypatch=monkeypatch)
    from planeshift.analyzer.store.sources import StatIndex

    monkeypatch.setattr(StatIndex, "RACY_NS", -1)  # index the files just written
    invoke(root, *args, monkeypatch=monkeypatch)
    index = root / ".planeshift_cache" / "stat-index"
    version, entries = marshal.loads(index.read_bytes())
    assert entries
    for rel, value in entries.items():
        entries[rel] = entry if entry != ("a",) * 7 else (*value[:6], None)
    index.write_bytes(marshal.dumps((version, entries)))
    (root / ".planeshift_cache" / "results").rename(root / "old-results")  # make it read them
    run = invoke(root, *args, monkeypatch=monkeypatch)
    assert run.code == 0 and stable(run) == stable(truth), run.stderr
    assert json.loads(run.stdout)["errors"] == []


@pytest.mark.parametrize("kind", KINDS)
def test_an_internal_error_is_one_line_and_exit_2_not_a_traceback(tmp_path: Path, monkeypatch,
                                                                  kind: str) -> None:
    from planeshift import api

    def broken(*args, **kwargs):
        raise RuntimeError("a bug planeshift did not foresee")

    monkeypatch.setattr(api, "scan", broken)
    root = project(tmp_path)
    run = invoke(root, *command(kind, root), monkeypatch=monkeypatch)
    one_line(run, f"planeshift {kind}: error: internal error: RuntimeError: a bug planeshift "
             "did not foresee")


def test_a_pack_cache_entry_holding_another_packs_data_is_never_believed(tmp_path: Path,
                                                                         monkeypatch) -> None:
    """An entry is valid pack data, but another pack's (a copied or swapped cache file)."""
    from analyzer.helpers import DEMO_PACK

    root = project(tmp_path)
    other = root / "other.yaml"
    other.write_text(DEMO_PACK.read_text().replace("plane: subscriber", "plane: interceptor"))
    mine = ["scan", str(root), "--format", "json", "--pack", str(other), "--no-builtin-packs"]
    truth = invoke(root, *mine, "--no-cache", monkeypatch=monkeypatch)
    invoke(root, "scan", str(root), "--format", "json", *PACK_FLAGS, monkeypatch=monkeypatch)
    (demo_entry,) = (root / ".planeshift_cache" / "packs").glob("*.data")
    invoke(root, *mine, monkeypatch=monkeypatch)
    (other_entry,) = set((root / ".planeshift_cache" / "packs").glob("*.data")) - {demo_entry}
    other_entry.write_bytes(demo_entry.read_bytes())
    shutil.rmtree(root / ".planeshift_cache" / "results")
    run = invoke(root, *mine, monkeypatch=monkeypatch)
    assert run.code == 0 and stable(run) == stable(truth)
