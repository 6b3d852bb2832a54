"""The comment that records a DISCARD_UNAWAITED registration as intentionally discarding.

    # planeshift: discard-unawaited owner=@team[,@other] <reason>

It stands alone on the line directly above the registration (or at the end of its line). The
`discard_gate` codemod writes it and recognises it; `planeshift lint` reads it as a reasoned
suppression of PS101 that names its owner (lint/comments.py), so the enumeration ADR-0120 D2
asks for lives in the code and a missing owner or reason is reported (PS901).

A project that names no owner for a file still gets its registrations recorded, with the owner
``unassigned``: such an annotation suppresses nothing (PS101 stands, and PS901 asks for the
owner) until someone writes the team in.
"""

from __future__ import annotations

import re

# matched in any case (`# PLANESHIFT: IGNORE[ps101]`), as lint reads them (lint/comments.py)
DIRECTIVE = re.compile(r"planeshift:\s*discard-unawaited\b(?P<rest>.*)", re.IGNORECASE)
_OWNER = re.compile(r"^owner=(?P<owner>\S+)\s*(?P<reason>.*)$", re.IGNORECASE)
UNASSIGNED = "unassigned"  # the owner written when the project names none
_SUPPRESSED = re.compile(r"planeshift:\s*ignore\[[^\]]*\bPS101\b", re.IGNORECASE)


def annotation_comment(owner: str, reason: str) -> str:
    return f"# planeshift: discard-unawaited owner={owner} {reason}"


def owner_token(owner: str) -> str:
    """CODEOWNERS may name several owners, space-separated; the annotation takes one token."""
    return ",".join(owner.split())


def parse_annotation(text: str) -> tuple[str, str, str] | None:
    """(owner, reason, problem) of an annotation comment; None when *text* holds none."""
    match = DIRECTIVE.search(text)
    if match is None:
        return None
    rest = match.group("rest").strip()
    owned = _OWNER.match(rest)
    if owned is None:
        return "", rest, "it names no owner (`owner=@team`)"
    reason = owned.group("reason").strip()
    problem = "" if any(ch.isalnum() for ch in reason) else "it gives no reason after the owner"
    if owned.group("owner") == UNASSIGNED:
        problem = f"its owner is still `{UNASSIGNED}`: name the team that answers for it"
    return owned.group("owner"), reason, problem


def is_recorded(lines: list[str], line: int) -> bool:
    """Is the registration at *line* (1-based) already recorded: an annotation or a PS101
    suppression at the end of its line or alone on the line above?"""
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    above = lines[line - 2].strip().lstrip("\ufeff") if 1 < line <= len(lines) + 1 else ""
    candidates = [here[here.find("#"):] if "#" in here else ""]
    if above.startswith("#"):
        candidates.append(above)
    return any(DIRECTIVE.search(c) or _SUPPRESSED.search(c) for c in candidates)


def recorded(owner: str) -> str:
    """What the migrate report says of a registration it recorded for *owner*."""
    return f"recorded as discarding (owner {owner})"
