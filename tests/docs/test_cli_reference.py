"""`--help` and the command pages agree: each command's page (docs/commands/<command>.md) has an
option table naming exactly the command's click parameters, with the same choices and defaults,
and the help says nothing the command does not have (a PATH it does not take, a list cut
mid-sentence)."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from planeshift.cli import cli

PAGES = Path(__file__).resolve().parents[2] / "docs" / "commands"


def subcommands(group: click.Group) -> dict[str, click.Command]:
    """A group's commands as its --help lists them (the top-level group loads them lazily)."""
    ctx = click.Context(group)
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def leaf_commands(group: click.Group = cli, prefix: tuple[str, ...] = ()
                  ) -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    for name, command in subcommands(group).items():
        if isinstance(command, click.Group):
            if command.invoke_without_command:  # `planeshift packs` runs too: a page of its own
                out[" ".join((*prefix, name))] = command
            out.update(leaf_commands(command, (*prefix, name)))
        else:
            out[" ".join((*prefix, name))] = command
    return out


COMMANDS = leaf_commands()


def page(name: str) -> Path:
    """The reference page of a command: ``kernels vendor`` is docs/commands/kernels-vendor.md."""
    return PAGES / f"{name.replace(' ', '-')}.md"


def page_table(name: str) -> list[tuple[list[str], str]]:
    """The option table of the command's page, under its title ``# `planeshift NAME ...```
    (up to the next heading; code blocks, whose comments look like headings, left out): each
    row's parameter spellings (``--format``, ``-o``, ``PATHS``, ``--format text|json`` kept
    whole) and its meaning."""
    text = re.sub(r"^```.*?^```", "", page(name).read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    heading = re.search(rf"\A# `planeshift {re.escape(name)}(?= [\[A-Z-]|`)[^\n]*$", text, re.MULTILINE)
    assert heading, f"{page(name)} does not start with the title # `planeshift {name} ...`"
    section = text[heading.end():]
    end = re.search(r"^#{1,3} ", section, re.MULTILINE)
    section = section[:end.start() if end else len(section)]
    table = section[section.index("| option | meaning |"):].split("\n\n")[0]
    rows = []
    for line in table.splitlines()[2:]:
        first, meaning = re.match(r"\| (.*?) \| (.*) \|$", line.replace("\\|", "\0")).groups()
        spans = [s.replace("\0", "|") for s in re.findall(r"`([^`]+)`", first)]
        rows.append(([part for span in spans for part in span.split(", ")],
                     meaning.replace("\0", "|")))
    return rows


def spelled(command: click.Command) -> set[str]:
    names: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(o for o in (*param.opts, *param.secondary_opts) if o not in ("-h", "--help"))
        else:
            names.add(param.name.upper())
    return names


def test_every_command_has_a_page_and_every_page_a_command() -> None:
    assert {p.stem for p in PAGES.glob("*.md")} == {page(n).stem for n in COMMANDS}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_option_table_names_every_parameter_and_nothing_else(name: str) -> None:
    documented = {part.split(" ")[0] for parts, _ in page_table(name) for part in parts}
    assert documented == spelled(COMMANDS[name]), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_option_table_gives_each_choice_and_default(name: str) -> None:
    """``--format text|json`` lists the click choices, and the row names the default."""
    params = {o: p for p in COMMANDS[name].params if isinstance(p, click.Option) for o in p.opts}
    for parts, meaning in page_table(name):
        for part in parts:
            option, _, shown = part.partition(" ")
            param = params.get(option)
            if param is None or not isinstance(param.type, click.Choice):
                continue
            assert shown.split("|") == list(param.type.choices), (name, option)
            if isinstance(param.default, str):  # "(default text)", "text (default)"
                value = re.escape(param.default)
                assert re.search(rf"\(default:? `?{value}`?\)|\b{value}`?,? \(?default\b",
                                 meaning), (name, option, meaning)


def test_rows_as_for_another_command_name_its_options() -> None:
    for name in COMMANDS:
        for parts, meaning in page_table(name):
            other = re.match(r"as for `(\w+)`", meaning)
            if other:
                theirs = {p.split(" ")[0] for ps, _ in page_table(other.group(1)) for p in ps}
                assert {p.split(" ")[0] for p in parts} <= theirs, (name, parts)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_help_names_only_arguments_the_command_takes(name: str) -> None:
    """An option's help that speaks of PATH or PATHS is on a command that takes it (the shared
    --cache-dir once documented a PATH default on lint, which has PATHS and --root)."""
    arguments = {p.name.upper() for p in COMMANDS[name].params if isinstance(p, click.Argument)}
    for param in COMMANDS[name].params:
        if isinstance(param, click.Option):
            for word in re.findall(r"\b(PATHS?|CODE|ROOT)\b", param.help or ""):
                assert word in arguments, (name, param.opts, param.help)


def test_the_command_list_gives_whole_sentences() -> None:
    """Each command's line in a group's --help is a sentence written for it (click would cut
    the help's first sentence at "e.g." or at 45 characters with "...")."""
    for group in (cli, subcommands(cli)["kernels"]):
        args = [] if group is cli else [group.name]
        listing = CliRunner().invoke(cli, [*args, "--help"], terminal_width=80).output
        commands = listing[listing.index("Commands:"):]
        assert "..." not in commands and "e.g." not in commands, commands
        for name, command in subcommands(group).items():
            assert command.short_help and command.short_help.endswith("."), name
            assert " ".join(command.short_help.split()) in " ".join(commands.split()), name


def test_migrate_help_matches_what_it_does() -> None:
    """A handler that may be None is migrated (through `optional`), so it is not in the list of
    what is not done; and -o replaces the report where it would go: stderr for text."""
    command = COMMANDS["migrate"]
    not_done = command.help[command.help.index("Not done"):].split("\n\n")[0]
    assert "optional" in not_done
    assert "may be None," not in not_done.split(". A handler")[0]
    output = next(p for p in command.params if "--output" in getattr(p, "opts", ()))
    assert "stderr (text)" in output.help and "stdout" in output.help
