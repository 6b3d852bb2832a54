"""``planeshift packs init``: draft a rule pack from a dispatcher class the code holds."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import click

from .options import (
    ProjectFlags,
    check_output,
    describe,
    errors_exit_2,
    fail,
    output_option,
    project_options,
    resolve_root,
    write_output,
)

INIT_HELP = """Draft a rule pack for a dispatcher class of PATH (default: .).

Without --dispatcher, list the candidates: classes with a method whose loop calls what it takes
out of one of the class's own attributes, and a method that puts a parameter there. With it,
write the draft (to stdout, or -o FILE): the class, its registration methods with their argument
positions (point and handler), its emitting methods, and the dispatch policy the scan reads from
its loop, each axis with the line that decided it. The planes are left to you: the draft's one
classify rule says needs_review. Review it, then use it with `--pack FILE` or `packs = [...]`.

\b
Exit codes:
  0  candidates listed, or the draft written
  1  no dispatcher class found (or none of that name)
  2  usage, configuration or rule-pack error, or an internal error
"""


@click.command("init", help=INIT_HELP, short_help="Draft a rule pack from a dispatcher class.")
@click.argument("path", default=".", type=click.Path(path_type=Path))
@click.option("--dispatcher", "qualname", metavar="QUALNAME",
              help="The class to draft for: module.Class, or the class name when only one "
                   "candidate has it.")
@click.option("--package", metavar="NAME",
              help="The pack's `package:` (default: the class's top-level package).")
@output_option
@project_options
@click.pass_context
def init_command(ctx: click.Context, path: Path, qualname: str | None, package: str | None,
                 output: Path | None, project: ProjectFlags) -> None:
    from ..api import scan, tree_facts
    from ..pack_draft import candidates, render
    from ..packs.load import load_pack
    from ..packs.model import POLICY_AXES, PackError

    with errors_exit_2(ctx, "packs init"):
        config = project.config(resolve_root(path))
        check_output(output)
        found = candidates(tree_facts(config))
    if qualname is None:
        if not found:
            click.echo("no dispatcher class found: none holds handlers in an attribute it loops "
                       "over", err=True)
            ctx.exit(1)
        for cand in found:
            emits = ", ".join(f.method for f in cand.emit) or "-"
            click.echo(f"{cand.qualname}  register: {', '.join(f.method for f in cand.register)}"
                       f"  emit: {emits}")
        return
    chosen = [c for c in found if qualname in (c.qualname, c.name)]
    if len(chosen) != 1:
        names = ", ".join(c.qualname for c in chosen or found) or "none"
        click.echo(f"no single dispatcher class {qualname!r} (candidates: {names})", err=True)
        ctx.exit(1)
    cand = chosen[0]
    package = package if package is not None else cand.qualname.split(".", 1)[0]
    with tempfile.TemporaryDirectory() as tmp, errors_exit_2(ctx, "packs init"):
        draft = Path(tmp) / "draft.yaml"
        draft.write_text(render(cand, package, ()), encoding="utf-8")
        result = scan(replace(config, packs=(draft,), builtin_packs=(), use_cache=False))
        axes = next((m.policy_axes for m in result.mechanisms if m.dispatcher), ())
        policy = [(a.axis, a.value, a.evidence[0].seen if a.evidence else "") for a in axes
                  if a.provenance == "inferred" and a.value in POLICY_AXES.get(a.axis, ())]
        text = render(cand, package, policy)
        draft.write_text(text, encoding="utf-8")
        try:
            load_pack(draft)  # the draft reads back as a valid pack
        except PackError as exc:
            fail(ctx, "packs init", describe(exc))
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text)
        click.echo(f"wrote the draft pack to {output}", err=True)
