"""Codemod `argv`: shell-string hook commands become argv, in settings files and in code, and
commands with shell syntax are refused with what was found."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext

from planeshift.codemods.argv import ArgvCodemod
from planeshift.codemods.base import Item
from planeshift.codemods.support.shell import argv_of, shell_syntax
from planeshift.types import Handler, Registration

from .helpers import check_transformed

YAML = '''
# External hooks: the first is fine, the second a plain string, the third a pipeline.
hooks:
  PreToolUse:
    - matcher: "bash"
      hooks:
        - command: ["python", "-m", "policy"]
  PostToolUse:
    - matcher: "*"
      hooks:
        - type: command
          command: 'python -m audit --tag "post tool"'   # split me
          timeout: 30
        - command: python -m audit | tee -a audit.log
'''


def test_a_yaml_string_becomes_a_flow_list_and_nothing_else_moves(tmp_path: Path) -> None:
    expected = YAML.replace(
        """command: 'python -m audit --tag "post tool"'   # split me""",
        """command: ["python", "-m", "audit", "--tag", "post tool"]   # split me""")
    result = check_transformed(tmp_path, YAML, expected, ("argv",), path="proj/.demo/hooks.yaml")
    (left,) = result.not_migrated
    assert left.line == 13 and "a pipe" in left.reason


def test_crlf_settings_keep_their_line_endings(tmp_path: Path) -> None:
    from analyzer.helpers import DEMO_FILES, write_tree

    from .helpers import dedent, run

    write_tree(tmp_path, DEMO_FILES)
    path = tmp_path / ".demo" / "hooks.yaml"
    path.parent.mkdir()
    path.write_bytes(dedent(YAML).replace("\n", "\r\n").encode())
    run(tmp_path, ("argv",))
    data = path.read_bytes()
    assert b'["python", "-m", "audit", "--tag", "post tool"]   # split me\r\n' in data
    assert data.count(b"\r\n") == data.count(b"\n")


@pytest.mark.parametrize(("command", "found"), [
    ("a | b", "a pipe"), ("a > out", "a redirect"), ("a < in", "a redirect"),
    ("echo $(date)", "an expansion"), ("echo $HOME", "an expansion"), ("a; b", "`;`"),
    ("a && b", "`&`"), ("a &", "`&`"), ("ls *.py", "a glob"), ("ls file?", "a glob"),
    ("FOO=1 run", "an environment assignment"), ("echo `id`", "backticks"),
    ('echo "$HOME"', "inside double quotes"), ("cat ~/x", "tilde"), ("a {b,c}", "brace"),
    ("run # note", "a comment"), ("(cd x)", "a subshell"), ("echo 'open", "unclosed quote"),
])
def test_shell_syntax_is_named(command: str, found: str) -> None:
    assert found in shell_syntax(command)
    assert argv_of(command)[0] is None


@pytest.mark.parametrize(("command", "argv"), [
    ("python -m audit", ["python", "-m", "audit"]),
    ("run --opt=x 'a b' \"c d\"", ["run", "--opt=x", "a b", "c d"]),
    (r"run a\ b", ["run", "a b"]),
    ("run '$HOME' 'x|y'", ["run", "$HOME", "x|y"]),
])
def test_plain_commands_split_as_sh_would(command: str, argv: list[str]) -> None:
    assert shell_syntax(command) == ""
    assert argv_of(command) == (argv, "")


def _item(rel: str, line: int, col: int = 0) -> Item:
    reg = Registration(rel, line, col, "demo_external", "hooks.Post", "Post",
                       Handler("x", kind="process"), "observing_subscriber", "medium",
                       flags=("shell_command_string",), via="config")
    return Item(rel, line, col, reg)


def test_a_toml_string_token_is_replaced_in_place() -> None:
    text = '[[hooks.PostToolUse]]\n# audit everything\ncommand = "python -m audit"  # x\n' \
           "timeout = 30\n"
    new, outcomes = ArgvCodemod.rewrite_text(text, [_item("hooks.toml", 3)], None)  # type: ignore[arg-type]
    assert new == text.replace('"python -m audit"', '["python", "-m", "audit"]')
    assert outcomes[0].codemod == "argv"
    multi = 'command = """python -m audit"""\n'
    same, outcomes = ArgvCodemod.rewrite_text(multi, [_item("h.toml", 1)], None)  # type: ignore[arg-type]
    assert same == multi and "multi-line" in outcomes[0].reason


def test_a_command_literal_in_code_becomes_a_list_keeping_its_quotes() -> None:
    source = ("hook = ExternalHookRegistration(\n    external_event='PostToolUse',\n"
              "    command='python -m audit --tag x',\n)\n"
              'other = {"command": "bad | cmd"}\n')
    context = CodemodContext(filename="app.py")
    items = [_item("app.py", 1, 7), _item("app.py", 5, 9)]
    codemod = ArgvCodemod(context, items, facts=object())  # type: ignore[arg-type]
    out = codemod.transform_module(cst.parse_module(source)).code
    assert "    command=['python', '-m', 'audit', '--tag', 'x'],\n" in out
    assert 'other = {"command": "bad | cmd"}' in out
    assert any("a pipe" in w for w in context.warnings)
