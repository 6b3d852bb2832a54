"""The ``planeshift`` command line: flags become a Config, api.scan runs, a reporter renders."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from . import __version__
from .cli_characterize import characterize_command
from .cli_graph import graph_command
from .cli_kernels import kernels
from .cli_lint import baseline_command, lint_command
from .cli_migrate import migrate_command
from .cli_options import (
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    describe,
    echo_errors,
    errors_exit_2,
    fail,
    output_option,
    project_options,
    resolve_root,
    write_output,
)
from .config import Config
from .rules.forms import PackError
from .rules.packs import builtin_pack_names, builtin_pack_path, load_pack
from .types import ScanResult

FORMATS = ("terminal", "json", "markdown")
EXIT_SKIPPED = 1

SCAN_HELP = f"""Inventory the hook, signal and callback registrations under PATH (default: .).

Every registration is named by its dispatch mechanism and classified into an ADR-0120 plane
(interceptor, subscriber, observing_subscriber, commit_participant, delivery_sink) or
needs_review, with the evidence that decided it.

The source of the libraries the packs describe (lionagi) is read as context when it is installed
(or given with --context): it links the tree and is not reported, except the registrations its
helpers make where the tree calls them (library registrations, with those calls).

\b
Formats (--format):
  terminal   summary table of mechanisms x planes; --details lists every site
  json       the planeshift.report/1 contract, for CI and other tools
  markdown   an inventory by mechanism, fit to paste into an ADR

Settings are read from [tool.planeshift] in the nearest pyproject.toml (or --config FILE);
flags override them, and --pack / --exclude add to them.

\b
Exit codes:
  {EXIT_OK}  the scan completed and every file was analysed
  {EXIT_SKIPPED}  the scan completed but some files were skipped (listed under errors)
  {EXIT_USAGE}  usage, configuration or rule-pack error (nothing was scanned), or an internal error
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="planeshift")
def cli() -> None:
    """Inventory, lint and migrate hook, signal and callback registrations (ADR-0120 planes).

    Start with `planeshift scan .` (the inventory), then `planeshift lint` (the hazards, a
    pre-commit gate), `planeshift characterize` (the Phase 0 gate) and `planeshift migrate`
    (the call sites, or with --owners the dispatchers, onto the kernels). `planeshift graph`
    draws the inventory as a plane map; `planeshift packs` lists the dispatch mechanisms the
    built-in rule packs know.
    """


@cli.command("scan", help=SCAN_HELP,
             short_help="Inventory the hook, signal and callback registrations.")
@click.argument("path", default=".", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="terminal", show_default=True,
              help="Report format.")
@output_option
@click.option("--details", is_flag=True, help="Terminal format: list every site and skipped file.")
@project_options
@click.pass_context
def scan(ctx: click.Context, path: Path, fmt: str, output: Path | None, details: bool,
         project: ProjectFlags) -> None:
    with errors_exit_2(ctx, "scan"):  # e.g. the tree itself vanished; or a bug
        config = project.config(resolve_root(path))
        check_output(output)
        result = _run(config)
    for warning in result.stats.get("warnings", ()):
        click.echo(f"planeshift: warning: {warning}", err=True)
    if not result.packs:
        click.echo("planeshift: warning: no rule packs in use, so nothing is classified", err=True)
    if fmt == "terminal" and output is None:
        from .reports.terminal import make_console, render_terminal

        render_terminal(result, make_console(), details, Path.cwd())
    elif output is None:
        click.echo(_render(result, fmt, details), nl=False)
    else:
        try:
            write_output(output, _render(result, fmt, details))
        except OSError as exc:
            fail(ctx, "scan", f"cannot write {output}: {exc.strerror or exc}")
        click.echo(f"wrote {fmt} report to {output}", err=True)
    if result.errors:
        echo_errors(result.errors)
        count = len(result.errors)
        click.echo(f"{count} {'file' if count == 1 else 'files'} skipped", err=True)
        ctx.exit(EXIT_SKIPPED)


def _run(config: Config) -> ScanResult:
    from . import (
        api,  # the analyzer stack costs most of a second: --help and packs skip it
    )

    if not sys.stderr.isatty():
        return api.scan(config)
    from .reports.terminal import make_console, make_progress

    bar, callback = make_progress(make_console(stderr=True))
    with bar:
        return api.scan(config, progress=callback)


def _render(result: ScanResult, fmt: str, details: bool) -> str:
    """The report as text; the terminal format renders plain, for a file rather than a screen."""
    # Reporters are imported on demand: rich alone costs more start-up time than a json run needs.
    if fmt == "json":
        from .reports.json_report import render_json

        return render_json(result)
    if fmt == "markdown":
        from .reports.markdown import render_markdown

        return render_markdown(result)
    from .reports.terminal import make_console, render_terminal

    buffer = io.StringIO()
    render_terminal(result, make_console(buffer, width=120, plain=True), details)
    return buffer.getvalue()


@cli.command("packs", short_help="List the built-in rule packs and their mechanisms.")
@click.option("--show", metavar="NAME", help="Print the path of built-in pack NAME's YAML file.")
@click.pass_context
def packs_command(ctx: click.Context, show: str | None) -> None:
    """List the built-in rule packs and the dispatch mechanisms each describes."""
    names = builtin_pack_names()
    if show is not None:
        if show not in names:
            fail(ctx, "packs", f"no built-in pack {show!r} (have: {', '.join(names)})")
        click.echo(str(builtin_pack_path(show)))
        return
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


@cli.command("explain", short_help="Explain a rule, a codemod or a dispatch-policy axis.")
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
    from .rules.axes_doc import DOCS, render_all, render_axis
    from .rules.catalog import documented_rules
    from .rules.docs import (
        codemod_by_name,
        codemod_page,
        documented_codemods,
        rule_by_code,
        rule_page,
        summary,
    )

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


cli.add_command(kernels)
cli.add_command(lint_command)
cli.add_command(baseline_command)
cli.add_command(migrate_command)
cli.add_command(characterize_command)
cli.add_command(graph_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (``python -m planeshift`` and the console script)."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="planeshift")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        click.echo(str(exc.code), err=True)
        return 1
    return 0
