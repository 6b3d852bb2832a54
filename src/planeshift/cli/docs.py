"""``python -m planeshift.cli.docs docs/rules``: writes the reference pages of every rule
(docs/rules/<CODE>.md) and codemod (docs/codemods/<ID>.md) and their index, each generated from
the unit's own documentation; ``tests/rules/test_checks.py`` and ``tests/codemods/test_docs.py``
fail on a stale page."""

from __future__ import annotations

import sys
from pathlib import Path

from ..codemods.docs import codemod_page, documented_codemods
from ..rules.catalog import documented_rules
from ..rules.docs import rule_page, summary


def index_page() -> str:
    """docs/rules/index.md: every rule and codemod, one line each (its docstring's first), linking
    its page."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["# Rules and codemods", "",
             ("Generated from each rule's and codemod's own documentation by "
              "`python -m planeshift.cli.docs docs/rules`;"),
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


def main(argv: list[str]) -> int:
    """``python -m planeshift.cli.docs [RULES_DIR]``: write the generated pages (default
    ``docs/rules``; the codemods' pages go beside it, in ``codemods/``) and list them."""
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python -m planeshift.cli.docs [RULES_DIR]  (default: docs/rules; the "
              "codemods' pages are written to RULES_DIR/../codemods)", file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    for page in write_docs(Path(argv[0] if argv else "docs/rules")):
        print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
