"""Codemod ``argv``: an external hook command given as a shell string becomes an argv list."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import ClassVar

import libcst as cst

from .base import Codemod, Example, Item, Plan, Source, register
from .facts import MigrateFacts
from .model import Migrated, NotMigrated
from .support.settings import Document, Edit, SettingsError, apply, verify
from .support.shell import argv_of
from .support.templates import string_literal


@register
class ArgvCodemod(Codemod):
    """Split an external hook's shell-string command into argv, where that means the same.

    ## What it does
    Each external hook the scan flags `shell_command_string` (PS107) has its `command` string
    replaced by the words `sh` would pass (POSIX token recognition): in the settings files the packs name (YAML, JSON,
    TOML; only the string token is replaced, the file is never re-dumped, so comments and layout
    stay) and in Python code (a `command=` argument or a `"command"` key holding a string
    literal). In a settings file each command is found by its position and key path, written
    with escapes every format reads back (controls, NEL, line separators), and the new file is
    read back (YAML, and JSON for a JSON file) and compared with the original's data: only the
    rewritten commands may differ, each equal to its argv, or the rewrite is refused.

    ## Why
    ADR-0120 D6: "command is argv and never reaches a shell". A string either fails lionagi's
    runtime validation or, where something still runs it through a shell, invites quoting bugs
    and injection.

    ## Example
    ```yaml
    command: "python -m audit --log audit.log"
    ```
    becomes
    ```yaml
    command: ["python", "-m", "audit", "--log", "audit.log"]
    ```

    ## What it leaves alone
    A command with shell syntax (a pipe, a redirect, `$(...)` or any expansion, `;`, `&&`, a
    glob, `~`, braces, a comment, an environment assignment): as argv it would run something
    else, so it is listed with what was found; move that pipeline into a script. Block scalars
    and TOML multi-line strings, f-strings and computed commands.

    ## Behaviour
    Unchanged for a runner that takes argv or splits a string the way a POSIX shell does
    without expansions: the words are those `sh` would have passed.

    ## References
    ADR-0120 D6 (ExternalHookRegistration.command is argv), P7; PS107.
    """

    id = "argv"
    after = ("registration",)  # on a file both touch: the order the reports have always had
    keeps_lines = True
    DESCRIPTION = "External hook commands given as a shell string become argv lists."
    EXAMPLES: ClassVar[list[Example]] = [Example(
        path=".demo/hooks.json",
        before='''
            {
              "hooks": {
                "PostToolUse": [
                  {"matcher": "*", "hooks": [{"type": "command", "command": "python -m audit --log audit.log"}]}
                ]
              }
            }
            ''',
        after='''
            {
              "hooks": {
                "PostToolUse": [
                  {"matcher": "*", "hooks": [{"type": "command", "command": ["python", "-m", "audit", "--log", "audit.log"]}]}
                ]
              }
            }
            ''')]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Plan:
        plan = Plan()
        for reg in facts.scan.registrations:
            if "shell_command_string" in reg.flags and facts.in_scope(reg.file):
                plan.add(Item(reg.file, reg.line, reg.col, reg))
        return plan

    @classmethod
    def rewrite_text(cls, text: str, items: list[Item], facts: MigrateFacts
                     ) -> tuple[str, list[Migrated | NotMigrated | None]]:
        """A settings file: each item's command token, found by its position on the original
        text, replaced; the result read back and compared with the intended change, and an edit
        that does not read back as intended refused (its text left as it was)."""
        outcomes: list[Migrated | NotMigrated | None] = []
        if not items:
            return text, outcomes
        rel = items[0].file
        try:
            document = Document(text, rel)
        except SettingsError as exc:
            return text, [cls._not(item, str(exc)) for item in items]
        edits: list[tuple[Item, Edit]] = []
        for item in sorted(items, key=lambda i: (i.line, i.col)):
            try:
                token = document.command_at(item.line, item.col,
                                            getattr(item.registration, "api", None))
            except SettingsError as exc:
                outcomes.append(cls._not(item, str(exc)))
                continue
            argv, why = argv_of(token.value)
            if argv is None:
                outcomes.append(cls._not(item, why))
                continue
            edits.append((item, Edit(token, argv)))
        kept = _verified(text, rel, edits, outcomes, cls._not)
        for item, edit in kept:
            outcomes.append(Migrated(item.file, item.line, cls.id, f"argv {edit.argv}",
                                     item.registration))
        return apply(text, [edit for _, edit in kept]), outcomes

    @classmethod
    def _not(cls, item: Item, reason: str) -> NotMigrated:
        return NotMigrated(item.file, item.line, cls.id, reason, registration=item.registration)

    def prepare(self, item: Item, source: Source) -> None:
        found = source.locator.at(item.line, item.col)
        literal = _command_literal(found.nodes) if found is not None else None
        if found is None or literal is None:
            return self.refuse(item, "no `command=` argument or \"command\" key holding a plain "
                                     "string literal at this site")
        argv, why = argv_of(ast.literal_eval(literal.value))
        if argv is None:
            return self.refuse(item, why)
        quote = "'" if literal.value.lstrip("rRuU").startswith("'") else '"'
        elements = [cst.Element(cst.SimpleString(_quoted(arg, quote))) for arg in argv]
        self.edit(literal, found.path(literal), lambda node: cst.List(elements))
        return self.done(item, f"argv {argv}")


def _command_literal(nodes: tuple[cst.CSTNode, ...]) -> cst.SimpleString | None:
    """The plain string literal given as `command=` or under a "command" key at the site."""
    for node in nodes:
        parts: list[cst.CSTNode] = list(node.args) if isinstance(node, cst.Call) else [node]
        parts += [e for p in parts if isinstance(p, cst.Arg) and isinstance(p.value, cst.Dict)
                  for e in p.value.elements]
        for part in parts:
            value = _command_value(part)
            if isinstance(value, cst.SimpleString) and not value.prefix.lower().strip("ru"):
                return value
    return None


def _command_value(part: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(part, cst.Arg) and part.keyword and part.keyword.value == "command":
        return part.value
    if isinstance(part, cst.DictElement) and isinstance(part.key, cst.SimpleString) and \
            part.key.evaluated_value == "command":
        return part.value
    return None


def _quoted(value: str, quote: str) -> str:
    text = string_literal(value)
    if quote == "'" and text.startswith('"') and "'" not in value:
        return "'" + text[1:-1] + "'"
    return text


def _verified(text: str, rel: str, edits: list[tuple[Item, Edit]],
              outcomes: list[Migrated | NotMigrated | None],
              refuse: Callable[[Item, str], NotMigrated]) -> list[tuple[Item, Edit]]:
    """The edits whose result reads back as intended: all together if they do; else each one
    that does on its own, provided those still do together; the others refused with why."""
    def fails(chosen: list[tuple[Item, Edit]]) -> str:
        only = [edit for _, edit in chosen]
        try:
            verify(rel, text, apply(text, only), only)
        except SettingsError as exc:
            return f"the rewritten file would not be the intended change: {exc}"
        return ""

    if not edits or not fails(edits):
        return edits
    alone = [(pair, fails([pair])) for pair in edits]
    kept = [pair for pair, why in alone if not why]
    outcomes += [refuse(item, why) for (item, _), why in alone if why]
    together = fails(kept) if kept else ""
    if together:
        outcomes += [refuse(item, together) for item, _ in kept]
        return []
    return kept
