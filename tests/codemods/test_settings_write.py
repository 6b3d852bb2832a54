"""Settings files through `argv` (issue 19, item 1): each command found by its position and key
path, spelled so YAML, JSON and TOML read it back as the argv, split as `sh` splits it, and the
whole file read back and compared with the intended change before anything is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from analyzer.helpers import DEMO_FILES, write_tree

from planeshift.codemods.support import settings
from planeshift.codemods.support.settings import (
    Document,
    Edit,
    SettingsError,
    apply,
    quoted,
    verify,
)
from planeshift.codemods.support.shell import argv_of

from .helpers import run

YAML_HOOK = 'hooks:\n  Post:\n    - hooks:\n        - command: {}\n'
JSON_HOOK = '{{"hooks": {{"Post": [{{"hooks": [{{"command": {}}}]}}]}}}}\n'


def migrated(tmp_path: Path, rel: str, text: str) -> tuple[str, object]:
    write_tree(tmp_path, DEMO_FILES)
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    result = run(tmp_path, ("argv",))
    return path.read_bytes().decode("utf-8"), result


def command_of(data: dict) -> object:
    return data["hooks"]["Post"][0]["hooks"][0]["command"]


@pytest.mark.parametrize("escaped", [r"\x7f", r"\x80", r"\x9b", r"\N", r"\L", r"\P", r"\e",
                                     r"\x01", r"\_"])
def test_control_and_separator_characters_read_back_from_yaml(tmp_path: Path,
                                                              escaped: str) -> None:
    text = YAML_HOOK.format(f'"run a{escaped}b"')
    char = yaml.safe_load(f'"{escaped}"')
    new, result = migrated(tmp_path, ".demo/hooks.yaml", text)
    assert len(result.migrated) == 1, result.not_migrated
    assert command_of(yaml.safe_load(new)) == ["run", f"a{char}b"]
    assert new == text.replace(f'"run a{escaped}b"', quoted_list(["run", f"a{char}b"]))


def quoted_list(argv: list[str]) -> str:
    return "[" + ", ".join(quoted(a) for a in argv) + "]"


@pytest.mark.parametrize("char", ["\x7f", "\x85", "\x9f", "\u2028", "\x1b", "\ufeff"])
def test_json_reads_back_through_json_and_yaml(tmp_path: Path, char: str) -> None:
    text = JSON_HOOK.format(json.dumps(f"run a{char}b")[:-1] + ' é😀"')  # escaped, then raw
    new, result = migrated(tmp_path, ".demo/hooks.json", text)
    assert len(result.migrated) == 1, result.not_migrated
    assert command_of(json.loads(new)) == ["run", f"a{char}b", "é😀"]
    assert command_of(yaml.safe_load(new)) == ["run", f"a{char}b", "é😀"]


@pytest.mark.parametrize("raw", ["\x7f", "\x80", "\x9b", "\\ud83d\\ude00", "\u2028"])
@pytest.mark.parametrize("pretty", [False, True])
def test_json_settings_libyaml_cannot_read_are_read_with_json(tmp_path: Path, raw: str,
                                                                pretty: bool) -> None:
    """A raw DEL or C1 character (legal JSON, refused by libyaml) or the escapes of a surrogate
    pair (one character for JSON, two lone surrogates for YAML): the scan reads a ``.json``
    file with ``json``, finds the command at its line, and the rewrite reads back as ``json``
    reads the file."""
    text = JSON_HOOK.format(f'"run a{raw}b"')
    char = json.loads(f'"{raw}"')
    if pretty:  # a raw NEL on line 2: the command on line 9, as YAML counts
        # lines (a line break there), so positions do not depend on the reader
        text = json.dumps({"note": "\x85", **json.loads(text)}, indent=2,
                          ensure_ascii=False).replace(json.dumps(f"run a{char}b",
                                                                 ensure_ascii=False),
                                                      f'"run a{raw}b"') + "\n"
    new, result = migrated(tmp_path, ".demo/hooks.json", text)
    assert [m.line for m in result.migrated] == [9 if pretty else 1], (result.not_migrated,
                                                                      result.errors)
    assert command_of(json.loads(new)) == ["run", f"a{char}b"]
    assert new == text.replace(f'"run a{raw}b"', quoted_list(["run", f"a{char}b"]))


@pytest.mark.parametrize("spelled", ["\\U0001F600", "😀"])
def test_yaml_settings_are_read_with_yaml(tmp_path: Path, spelled: str) -> None:
    """A YAML file is read by YAML: its own escapes (``\\U0001F600``) and raw characters."""
    text = YAML_HOOK.format(f'"run a{spelled}b"')
    char = yaml.safe_load(f'"{spelled}"')
    new, result = migrated(tmp_path, ".demo/hooks.yaml", text)
    assert len(result.migrated) == 1, (result.not_migrated, result.errors)
    assert command_of(yaml.safe_load(new)) == ["run", f"a{char}b"]


def test_a_cr_or_a_nel_stays_inside_its_word_as_in_sh(tmp_path: Path) -> None:
    new, _ = migrated(tmp_path, ".demo/hooks.yaml", YAML_HOOK.format(r'"run a\rb c\Nd"'))
    assert command_of(yaml.safe_load(new)) == ["run", "a\rb", "c\x85d"]


@pytest.mark.parametrize(("command", "argv"), [
    ('run "a\\$b"', ["run", "a$b"]), ('run "a\\`b"', ["run", "a`b"]),
    ('run "a\\xb"', ["run", "a\\xb"]), ("run a\\\nb", ["run", "ab"]),
    ('run "a\\\nb"', ["run", "ab"]), ("run\ta\x0bb\x0cc", ["run", "a\x0bb\x0cc"]),
    ("run '' \"\"", ["run", "", ""]),
])
def test_words_are_those_sh_passes(command: str, argv: list[str]) -> None:
    assert argv_of(command) == (argv, "")


@pytest.mark.parametrize(("command", "found"), [
    ("if true", "reserved word"), ("run a\\", "trailing backslash"), ("run \x00", "NUL"),
])
def test_what_sh_reads_otherwise_is_refused(command: str, found: str) -> None:
    assert found in (argv_of(command)[1])


def test_on_one_line_the_hook_commands_are_rewritten_and_status_line_is_not(
        tmp_path: Path) -> None:
    text = ('{"statusLine": {"type": "command", "command": "echo hi"}, "hooks": {"Pre": '
            '[{"matcher": "*", "hooks": [{"type": "command", "command": "python -m a"}]}], '
            '"Post": [{"hooks": [{"command": "python -m b"}]}]}}\n')
    new, result = migrated(tmp_path, ".demo/hooks.json", text)
    assert result.not_migrated == ()
    assert new == text.replace('"python -m a"', '["python", "-m", "a"]').replace(
        '"python -m b"', '["python", "-m", "b"]')


def test_a_rewrite_that_would_not_read_back_is_refused_and_not_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verification alone: with the old spelling (json.dumps, DEL raw) the YAML would no
    longer parse; the edit is refused with why and the file keeps its bytes."""
    monkeypatch.setattr(settings, "quoted", lambda value: json.dumps(value, ensure_ascii=False))
    text = YAML_HOOK.format(r'"run a\x7fb"')
    new, result = migrated(tmp_path, ".demo/hooks.yaml", text)
    assert new == text and result.migrated == ()
    (refused,) = result.not_migrated
    assert "would not read back as YAML" in refused.reason


def test_an_anchored_command_is_refused_not_broken(tmp_path: Path) -> None:
    text = ('hooks:\n  Post:\n    - hooks:\n        - command: &c "python -m a"\n'
            '        - command: *c\n')
    new, result = migrated(tmp_path, ".demo/hooks.yaml", text)
    assert new == text
    assert result.not_migrated and all("would not" in n.reason for n in result.not_migrated)


def test_verify_names_any_other_change() -> None:
    text = YAML_HOOK.format('"python -m a"') + "other: 1\n"
    document = Document(text, "h.yaml")
    token = document.command_at(4, 19, "hooks.Post")
    assert token.path == ("hooks", "Post", 0, "hooks", 0, "command")
    edit = Edit(token, ["python", "-m", "a"])
    verify("h.yaml", text, apply(text, [edit]), [edit])  # the intended change: accepted
    with pytest.raises(SettingsError, match="other would change"):
        verify("h.yaml", text, apply(text, [edit]).replace("other: 1", "other: 2"), [edit])
    with pytest.raises(SettingsError, match="not \\['python'"):
        verify("h.yaml", text, text.replace('"python -m a"', '["python"]'), [edit])
    with pytest.raises(SettingsError, match="not a command of hooks.Pre"):
        document.command_at(4, 19, "hooks.Pre")
