"""Is an external hook's command string plain argv, and which argv: the words `sh` would pass, or
a refusal.

A string with shell syntax means something a list of arguments cannot: a pipe, a redirect, an
expansion (`$VAR`, `$(...)`, backticks, `~`, globs, braces), a command list (`;`, `&&`, `&`),
a subshell, a comment, a reserved word (`if`, `while`, ...) or an environment assignment before
the command. Such a command is not rewritten (the reason names what was found): moving it into
a script is the owner's change.

The words are split by POSIX token recognition (XCU 2.2-2.3), not by `shlex`, which differs:
only space and tab separate words (a CR, a form feed or a NEL is part of a word, as in `sh`); a
backslash-newline is removed (a line continuation); inside double quotes a backslash escapes only
`$`, a backquote, `"`, a backslash and a newline, and is kept before anything else.
"""

from __future__ import annotations

import re

_SPECIAL = {"|": "a pipe", "&": "`&` (a command list or background job)", ";": "`;`",
            "<": "a redirect", ">": "a redirect", "(": "a subshell", ")": "a subshell",
            "$": "an expansion (`$`)", "`": "command substitution (backticks)",
            "*": "a glob", "?": "a glob", "[": "a glob", "]": "a glob", "{": "brace expansion",
            "}": "brace expansion", "~": "tilde expansion", "#": "a comment", "!": "`!`",
            "\n": "a newline"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_BLANK = " \t"  # the only word separators of sh (newline ends the command: refused above)
_IN_DOUBLE = '$`"\\\n'  # what a backslash escapes inside double quotes
# reserved words of sh (and of bash, which a runner may use): as the first word they start a
# compound command, as argv[0] they would name a program
_RESERVED = frozenset(["if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "function", "select", "time", "coproc"])


def shell_syntax(command: str) -> str:
    """What shell syntax *command* uses, or "" when it is plain words and quotes."""
    quote = ""
    i = 0
    while i < len(command):
        ch = command[i]
        if ch == "\x00":
            return "a NUL character (no program can receive it)"
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
            if i + 1 == len(command):
                return "a trailing backslash"
            i += 1
        elif ch in _SPECIAL:
            return _SPECIAL[ch]
        i += 1
    if quote:
        return "an unclosed quote"
    if _ASSIGNMENT.match(command.lstrip(_BLANK)):
        return "an environment assignment before the command"
    first = command.lstrip(_BLANK).split(" ", 1)[0].split("\t", 1)[0]
    if first in _RESERVED:
        return f"the reserved word `{first}`"
    return ""


def split_words(command: str) -> list[str]:
    """The words of a command without shell syntax (:func:`shell_syntax` is ""), as `sh` splits
    and unquotes them."""
    words: list[str] = []
    word: list[str] = []
    started = False  # a word is under way (quotes make a word even when empty)
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if ch in _BLANK:
            if started:
                words.append("".join(word))
                word, started = [], False
        elif ch == "\\":
            i += 1
            if command[i] != "\n":  # backslash-newline: a line continuation, removed
                word.append(command[i])
                started = True
        elif ch == "'":
            end = command.index("'", i + 1)
            word.append(command[i + 1:end])
            started, i = True, end
        elif ch == '"':
            i += 1
            while command[i] != '"':
                if command[i] == "\\" and command[i + 1] in _IN_DOUBLE:
                    i += 1
                    if command[i] != "\n":
                        word.append(command[i])
                else:
                    word.append(command[i])
                i += 1
            started = True
        else:
            word.append(ch)
            started = True
        i += 1
    if started:
        words.append("".join(word))
    return words


def argv_of(command: str) -> tuple[list[str] | None, str]:
    """(argv, "") for a plain command, else (None, why it is not one)."""
    found = shell_syntax(command)
    if found:
        return None, f"the command uses shell syntax ({found}); argv would change what runs"
    argv = split_words(command)
    if not argv:
        return None, "the command is empty"
    return argv, ""
