"""Rule documentation: `planeshift explain CODE` and the generated pages docs/rules/<CODE>.md
(the codemods' pages are ``codemods/docs.py``'s; ``python -m planeshift.cli.docs`` writes both)."""

from __future__ import annotations

import inspect

from .catalog import DocumentedRule, documented_rules

HEADINGS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")


def rule_by_code(code: str) -> type[DocumentedRule] | None:
    wanted = code.upper()
    return next((r for r in documented_rules() if r.code == wanted or r.kind == code), None)


def summary(rule: type[DocumentedRule]) -> str:
    """The docstring's first line."""
    return inspect.cleandoc(rule.__doc__ or "").partition("\n")[0].strip()


def section(rule: type[DocumentedRule], heading: str) -> str:
    """The text under ``## heading`` in the rule's docstring, up to the next heading."""
    doc = inspect.cleandoc(rule.__doc__ or "")
    _, found, rest = doc.partition(f"## {heading}\n")
    return rest.split("\n## ", 1)[0].strip() if found else ""


def rule_page(rule: type[DocumentedRule]) -> str:
    """The rule's page: a title line, then its docstring (ruff's headings)."""
    doc = inspect.cleandoc(rule.__doc__ or "")
    first, _, body = doc.partition("\n")
    return (
        f"# {rule.code} {rule.kind}\n\n{first.strip()}\n\n"
        f"Default severity: {rule.severity}. JSON `kind`: `{rule.kind}`.\n\n{body.strip()}\n"
    )


def missing_headings(rule: type, headings: tuple[str, ...] = HEADINGS) -> list[str]:
    doc = rule.__doc__ or ""
    return [h for h in headings if f"## {h}" not in doc]
