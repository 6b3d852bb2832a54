"""Is an external hook's command string plain argv, and which argv: `shlex.split`, or a refusal.

A string with shell syntax means something a list of arguments cannot: a pipe, a redirect, an
expansion (`$VAR`, `$(...)`, backticks, `~`, globs, braces), a command list (`;`, `&&`, `&`),
a subshell, a comment, or an environment assignment before the command. Such a command is not
rewritten (the reason names what was found): moving it into a script is the owner's change.
"""

from __future__ import annotations

import re
import shlex

_SPECIAL = {"|": "a pipe", "&": "`&` (a command list or background job)", ";": "`;`",
            "<": "a redirect", ">": "a redirect", "(": "a subshell", ")": "a subshell",
            "$": "an expansion (`$`)", "`": "command substitution (backticks)",
            "*": "a glob", "?": "a glob", "[": "a glob", "]": "a glob", "{": "brace expansion",
            "}": "brace expansion", "~": "tilde expansion", "#": "a comment", "!": "`!`",
            "\n": "a newline"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def shell_syntax(command: str) -> str:
    """What shell syntax *command* uses, or "" when it is plain words and quotes."""
    quote = ""
    i = 0
    while i < len(command):
        ch = command[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif quote == '"':
            if ch in "$`":
                return _SPECIAL[ch] + " inside double quotes"
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch in _SPECIAL:
            return _SPECIAL[ch]
        i += 1
    if quote:
        return "an unclosed quote"
    if _ASSIGNMENT.match(command.lstrip()):
        return "an environment assignment before the command"
    return ""


def argv_of(command: str) -> tuple[list[str] | None, str]:
    """(argv, "") for a plain command, else (None, why it is not one)."""
    found = shell_syntax(command)
    if found:
        return None, f"the command uses shell syntax ({found}); argv would change what runs"
    argv = shlex.split(command, posix=True)
    if not argv:
        return None, "the command is empty"
    return argv, ""
