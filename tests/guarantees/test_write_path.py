"""Properties of the write path (issue 19, items 1-3): after `migrate --write`, `migrate --check`
exits 0 and a second write changes nothing, whatever the module holds (several statements on a
line, odd line separators inside literals and comments, a BOM, CRLF); lines the rewrite did not
touch keep their bytes; a settings file reads back as its data with only the hook commands
turned into the argv `sh` would pass, and nothing outside their spans changes. Bounded here
(conftest.py); the long run is ``python benchmarks/fuzz_write.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given

from planeshift.codemods import MigrateOptions, migrate
from planeshift.codemods.support.shell import argv_of
from planeshift.packs.jsonnodes import compose_json

from .generated import command, lines_kept, module, outside_spans_kept, settings_file
from .helpers import PACK_FLAGS, invoke
from .test_properties import config, tree

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def check_exits_0(root: Path) -> None:
    done = invoke(root, "migrate", "--root", str(root), "--check", "--format", "json",
                  "--no-cache", *PACK_FLAGS)
    assert done.code == 0, done.stdout


@given(module())
def test_write_then_check_then_write_again_changes_nothing(text: str) -> None:
    data = text.encode("utf-8")
    with tree({"app.py": data}) as root:
        first = migrate(config(root), MigrateOptions(write=True))
        assert not [n for n in first.not_migrated if n.error], first.not_migrated
        after = (root / "app.py").read_bytes()
        compile(after, "app.py", "exec", dont_inherit=True)
        assert after.startswith(b"\xef\xbb\xbf") == text.startswith("\ufeff")
        assert lines_kept(data, after, "utf-8") == []
        check_exits_0(root)
        again = migrate(config(root), MigrateOptions(write=True))
        assert again.changes == (), "".join(c.diff for c in again.changes)
        assert (root / "app.py").read_bytes() == after


def _yaml_reads(text: str) -> bool:
    try:
        yaml.safe_load(text.removeprefix("\ufeff"))
    except yaml.YAMLError:
        return False
    return True


def hook_spans(text: str) -> dict[tuple[int, int], tuple[int, int]]:
    """(line, column) -> (start, end) of each hooks command scalar, read independently."""
    body = text.removeprefix("\ufeff")
    root = yaml.compose(body, Loader=yaml.SafeLoader) if _yaml_reads(text) else compose_json(body)
    spans = {}
    for _, groups in next(v for k, v in root.value if k.value == "hooks").value:
        for hook in groups.value[0].value[1][1].value:
            node = next(v for k, v in hook.value if k.value == "command")
            spans[(node.start_mark.line + 1, node.start_mark.column)] = (
                node.start_mark.index, node.end_mark.index)
    return spans


@given(settings_file())
@example((".demo/hooks.json", '{"statusLine": {"type": "command", "command": "\x85"}, "hooks": '
          '{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "python"}]}]}}'
          "\n"))  # a raw NEL: JSON's reader counts lines as YAML does (a line break there)
@example((".demo/hooks.json", '{"statusLine": {"type": "command", "command": "\x7f"}, "hooks": '
          '{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "py x"}]}]}}'
          "\n"))  # a raw DEL: legal JSON that libyaml refuses
def test_a_settings_file_reads_back_with_only_its_hook_commands_changed(
        case: tuple[str, str]) -> None:
    rel, text = case
    with tree({}) as root:
        (root / rel).parent.mkdir()
        (root / rel).write_bytes(text.encode("utf-8"))
        first = migrate(config(root), MigrateOptions(write=True, select=("argv",)))
        after = (root / rel).read_bytes().decode("utf-8")
        if first.errors:  # the scan cannot read it (nothing to rewrite): left as it was
            assert after == text
            return
        assert not [n for n in first.not_migrated if n.error], first.not_migrated
        loads = json.loads if rel.endswith(".json") else yaml.safe_load
        before_data, after_data = loads(text.lstrip("\ufeff")), loads(after.lstrip("\ufeff"))
        if _yaml_reads(text):  # (a JSON file with a raw DEL or C1 character is JSON's alone)
            assert yaml.safe_load(after.lstrip("\ufeff")) is not None
        assert after_data["statusLine"] == before_data["statusLine"]
        done = {(m.line, m.registration.col) for m in first.migrated}
        spans = hook_spans(text)
        for event, groups in before_data["hooks"].items():
            for i, hook in enumerate(groups[0]["hooks"]):
                new = after_data["hooks"][event][0]["hooks"][i]["command"]
                assert new == hook["command"] or new == argv_of(hook["command"])[0]
        assert sum(isinstance(h["command"], list) for g in after_data["hooks"].values()
                   for h in g[0]["hooks"]) == len(done)
        shift = 1 if text.startswith("\ufeff") else 0
        assert outside_spans_kept(text, after, [(s + shift, e + shift) for at, (s, e)
                                                in spans.items() if at in done])
        check_exits_0(root)
        again = migrate(config(root), MigrateOptions(write=True, select=("argv",)))
        assert again.changes == ()


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
@given(command())
def test_argv_is_what_sh_passes(text: str) -> None:
    argv, _ = argv_of(text)
    if argv is None:
        return
    done = subprocess.run(["sh", "-c", "printf '%s\\0' " + text], capture_output=True,
                          check=True)
    assert done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1] == argv


@pytest.mark.parametrize("separator", ["", "s = '\u2028'\n", "s = '\x0c\x85'\n"])
def test_a_note_already_there_is_seen_after_a_bom_or_an_odd_separator(
        tmp_path: Path, separator: str) -> None:
    """The plans' line checks number lines as Python does and drop the BOM: the record above a
    registration is found, and no second one is added."""
    from analyzer.helpers import DEMO_FILES, write_tree
    from codemods.helpers import DISCARDING_BUS, discarding_pack, run

    note = ("# planeshift: discard-unawaited owner=@demo-team returned awaitables stay unawaited "
            "as today; the flip is its own change (ADR-0120 D2)")
    write_tree(tmp_path / "p", {**DEMO_FILES, "demo/bus.py": DISCARDING_BUS})
    text = (f"\ufeff{separator}{note}\n"
            "from demo.bus import EventBus; bus = EventBus(on_event=[print])\n")
    (tmp_path / "p" / "app.py").write_bytes(text.encode())
    result = run(tmp_path / "p", ("discard_gate",), pack=discarding_pack(tmp_path / "pack"))
    assert result.changes == () and result.already == 1
    assert (tmp_path / "p" / "app.py").read_bytes() == text.encode()
