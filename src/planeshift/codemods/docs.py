"""Codemod documentation: `planeshift explain ID` and the generated pages docs/codemods/<ID>.md,
from each codemod's docstring (the headings below) and its tested before/after ``EXAMPLES``."""

from __future__ import annotations

import inspect

CODEMOD_HEADINGS = ("What it does", "Why", "Example", "What it leaves alone", "Behaviour",
                    "References")


def documented_codemods() -> list[type]:
    """The codemods (codemods/), in running order; `planeshift explain ID` prints their pages."""
    from .base import all_codemods

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
    after = getattr(codemod, "after", ())
    if after:
        run += " On a file, it runs after " + ", ".join(f"`{a}`" for a in after) + "."
    parts = [f"# {codemod.id} (codemod)\n\n{first.strip()}\n\n{run}\n\n{body.strip()}\n"]
    for number, example in enumerate(codemod.EXAMPLES, 1):
        lang = "python" if example.path.endswith(".py") else example.path.rsplit(".", 1)[-1]
        flag = " (with `--convert-discard`)" if example.convert_discard else ""
        parts.append(f"\n## Fixture {number}{flag}: `{example.path}`\n\nBefore:\n\n```{lang}\n"
                     f"{inspect.cleandoc(example.before)}\n```\n\nAfter:\n\n```{lang}\n"
                     f"{inspect.cleandoc(example.after)}\n```\n")
    return "".join(parts)
