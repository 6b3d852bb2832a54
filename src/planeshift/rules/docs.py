"""Rule and codemod documentation: `planeshift explain CODE|ID` and the generated pages
docs/rules/<CODE>.md and docs/codemods/<ID>.md."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from .catalog import DocumentedRule, documented_rules

HEADINGS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")
CODEMOD_HEADINGS = ("What it does", "Why", "Example", "What it leaves alone", "Behaviour",
                    "References")


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


def documented_codemods() -> list[type]:
    """The codemods (codemods/), in running order; `planeshift explain ID` prints their pages."""
    from ..codemods.base import all_codemods

    return list(all_codemods())


def codemod_by_name(name: str) -> type | None:
    return next((c for c in documented_codemods() if c.id == name), None)


def codemod_page(codemod: type) -> str:
    """The codemod's page: a title, its docstring, then its tested before/after fixtures."""
    doc = inspect.cleandoc(codemod.__doc__ or "")
    first, _, body = doc.partition("\n")
    run = (f"Run it with `planeshift migrate --owners --select {codemod.id}`; it runs in the "
           "`--owners` set (the dispatchers themselves, not the call sites)."
           if getattr(codemod, "owner", False) else
           f"Run it with `planeshift migrate --select {codemod.id}`; it runs in the default set.")
    parts = [f"# {codemod.id} (codemod)\n\n{first.strip()}\n\n{run}\n\n{body.strip()}\n"]
    for number, example in enumerate(codemod.EXAMPLES, 1):
        lang = "python" if example.path.endswith(".py") else example.path.rsplit(".", 1)[-1]
        flag = " (with `--convert-discard`)" if example.convert_discard else ""
        parts.append(f"\n## Fixture {number}{flag}: `{example.path}`\n\nBefore:\n\n```{lang}\n"
                     f"{inspect.cleandoc(example.before)}\n```\n\nAfter:\n\n```{lang}\n"
                     f"{inspect.cleandoc(example.after)}\n```\n")
    return "".join(parts)


def index_page() -> str:
    """docs/rules/index.md: every rule and codemod, one line each (its docstring's first), linking
    its page."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["# Rules and codemods", "",
             ("Generated from each rule's and codemod's own documentation by "
              "`python -m planeshift.rules.docs docs/rules`;"),
             "`planeshift explain CODE` prints the same pages.", "",
             "| rule | kind | default severity | what it flags |", "|---|---|---|---|"]
    lines += [f"| [{r.code}]({r.code}.md) | `{r.kind}` | {r.severity} | {cell(summary(r))} |"
              for r in documented_rules()]
    lines += ["", "| codemod | runs with | what it does |", "|---|---|---|"]
    lines += [f"| [{c.id}](../codemods/{c.id}.md) | "
              f"{'`migrate --owners`' if getattr(c, 'owner', False) else '`migrate`'} | "
              f"{cell(summary(c))} |" for c in documented_codemods()]
    return "\n".join(lines) + "\n"


def write_docs(folder: Path, codemods: Path | None = None) -> list[Path]:
    """The rule pages and their index into *folder*, the codemod pages into *codemods*
    (default: its sibling ``codemods/``)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rule in documented_rules():
        path = folder / f"{rule.code}.md"
        path.write_text(rule_page(rule), encoding="utf-8")
        written.append(path)
    codemods = codemods or folder.parent / "codemods"
    codemods.mkdir(parents=True, exist_ok=True)
    for codemod in documented_codemods():
        path = codemods / f"{codemod.id}.md"
        path.write_text(codemod_page(codemod), encoding="utf-8")
        written.append(path)
    index = folder / "index.md"
    index.write_text(index_page(), encoding="utf-8")
    written.append(index)
    return written


if __name__ == "__main__":  # python -m planeshift.rules.docs docs/rules (and docs/codemods)
    for page in write_docs(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")):
        print(page)
