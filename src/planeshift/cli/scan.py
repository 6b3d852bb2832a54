"""``planeshift scan``: flags become a Config, api.scan runs, a reporter renders."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click

from ..config import Config
from ..types import ScanResult
from .options import (
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    echo_errors,
    errors_exit_2,
    fail,
    output_option,
    project_options,
    resolve_root,
    write_output,
)

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



@click.command("scan", help=SCAN_HELP,
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
        result = run_scan(config)
    for warning in result.stats.get("warnings", ()):
        click.echo(f"planeshift: warning: {warning}", err=True)
    if not result.packs:
        click.echo("planeshift: warning: no rule packs in use, so nothing is classified", err=True)
    if fmt == "terminal" and output is None:
        from ..reports.terminal import make_console, render_terminal

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


def run_scan(config: Config) -> ScanResult:
    from .. import (
        api,  # the analyzer stack costs most of a second: --help and packs skip it
    )

    if not sys.stderr.isatty():
        return api.scan(config)
    from ..reports.terminal import make_console, make_progress

    bar, callback = make_progress(make_console(stderr=True))
    with bar:
        return api.scan(config, progress=callback)


def _render(result: ScanResult, fmt: str, details: bool) -> str:
    """The report as text; the terminal format renders plain, for a file rather than a screen."""
    # Reporters are imported on demand: rich alone costs more start-up time than a json run needs.
    if fmt == "json":
        from ..reports.json_report import render_json

        return render_json(result)
    if fmt == "markdown":
        from ..reports.markdown import render_markdown

        return render_markdown(result)
    from ..reports.terminal import make_console, render_terminal

    buffer = io.StringIO()
    render_terminal(result, make_console(buffer, width=120, plain=True), details)
    return buffer.getvalue()


