"""``planeshift packs`` and ``planeshift explain``: what planeshift knows, without a scan."""

from __future__ import annotations

import click

from ..packs.load import builtin_pack_names, builtin_pack_path, load_pack
from ..packs.model import PackError
from .options import describe, fail
from .packs_init import init_command


@click.group("packs", invoke_without_command=True,
             short_help="List the built-in rule packs; draft one (packs init).")
@click.option("--show", metavar="NAME", help="Print the path of built-in pack NAME's YAML file.")
@click.pass_context
def packs_command(ctx: click.Context, show: str | None) -> None:
    """List the built-in rule packs and the dispatch mechanisms each describes; `packs init`
    drafts a pack for a dispatcher class of your own."""
    if ctx.invoked_subcommand is not None:
        return
    names = builtin_pack_names()
    if show is not None:
        if show not in names:
            fail(ctx, "packs", f"no built-in pack {show!r} (have: {', '.join(names)})")
        click.echo(str(builtin_pack_path(show)))
        return
    from ..analyzer import shapes  # noqa: F401  (gives the pack reader its registration kinds)

    for name in names:
        try:
            pack = load_pack(builtin_pack_path(name))
        except PackError as exc:
            fail(ctx, "packs", describe(exc))
        click.echo(f"{pack.name} ({pack.path})")
        if pack.description:
            click.echo(f"  {pack.description}")
        width = max((len(m.id) for m in pack.mechanisms), default=0)
        for mech in pack.mechanisms:
            click.echo(f"  {mech.id.ljust(width)}  {mech.title}")
            click.echo(f"  {' ' * width}  dispatcher: {', '.join(mech.dispatchers) or '—'}")


@click.command("explain", short_help="Explain a rule, a codemod or a dispatch-policy axis.")
@click.argument("code", required=False)
@click.pass_context
def explain_command(ctx: click.Context, code: str | None) -> None:
    """Print what rule CODE (e.g. PS101) checks and why, what codemod ID (e.g. registration)
    rewrites, or what a dispatch-policy axis means (`axes` lists them, e.g. `explain
    concurrency`); without an argument, list the rules and the codemods.

    Hazard findings appear in `planeshift scan --format json` under "findings" and in
    `planeshift lint` (the PS9xx rules are about lint's own suppression comments); the axes
    under "mechanisms[].policy_axes"; codemods run in `planeshift migrate`.
    """
    from ..analyzer.policy.axes_doc import DOCS, render_all, render_axis
    from ..rules.catalog import documented_rules
    from ..codemods.docs import codemod_by_name, codemod_page, documented_codemods
    from ..rules.docs import rule_by_code, rule_page, summary

    if code is None:
        for rule in documented_rules():
            click.echo(f"{rule.code}  {rule.kind:<22} {rule.severity:<8} {summary(rule)}")
        for codemod in documented_codemods():
            click.echo(f"{codemod.id:<28} codemod  {summary(codemod)}")
        click.echo("\nplaneshift explain axes: the ADR-0120 D2 dispatch-policy axes")
        return
    if code.lower() in ("axes", "axis", "policy"):
        click.echo(render_all(), nl=False)
        return
    if code.lower() in DOCS:
        click.echo(render_axis(code.lower()), nl=False)
        return
    found = rule_by_code(code)
    if found is not None:
        click.echo(rule_page(found), nl=False)
        return
    codemod = codemod_by_name(code)
    if codemod is None:
        known = ", ".join([*(r.code for r in documented_rules()),
                           *(c.id for c in documented_codemods())])
        fail(ctx, "explain",
             f"no rule, codemod or axis {code!r} (have: {known}; axes: planeshift explain axes)")
    click.echo(codemod_page(codemod), nl=False)


packs_command.add_command(init_command)
