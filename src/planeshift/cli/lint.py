"""`planeshift lint` and `planeshift baseline`: the hazard gate for pre-commit and CI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..config import LEVELS, Config
from ..types import InputError
from .options import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    echo_errors,
    errors_exit_2,
    output_option,
    project_options,
    write_output,
)

if TYPE_CHECKING:
    from ..lint import LintResult, Scope

FORMATS = ("text", "json", "sarif", "github")

LINT_HELP = f"""Report the hazards in PATHS (files or folders; default: the whole project).

The whole project under the root is analysed, so names resolve everywhere, but only findings in
PATHS are reported: pre-commit passes the changed files. Suppress one finding with a comment on
its line, or alone on the line above: `# planeshift: ignore[PS101] reason` (the reason is
required). With a baseline, only findings it does not hold are reported.

\b
Formats (--format):
  text     path:line:col: CODE [severity] message, then a summary (default)
  json     the planeshift.lint/1 contract
  sarif    SARIF 2.1.0, for code scanning
  github   GitHub Actions annotations (::error file=...::message)

\b
Exit codes:
  {EXIT_OK}  no open finding at or above --fail-on
  {EXIT_FINDINGS}  such a finding remains, or a file in PATHS cannot be analysed
  {EXIT_USAGE}  usage, configuration, baseline or tool error
"""


def _common(command: Callable[..., Any]) -> Callable[..., Any]:
    """PATHS and --root, shared by lint and baseline."""
    command = click.option(
        "--root", type=click.Path(path_type=Path, file_okay=False, exists=True),
        help="The project root [default: the git top-level of the current folder, else the "
             "current folder].")(command)
    return click.argument("paths", nargs=-1, type=click.Path(path_type=Path))(command)


@click.command("lint", help=LINT_HELP,
               short_help="Fail on the hazards in PATHS: the gate for pre-commit and CI.")
@_common
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@output_option
@click.option("--fail-on", type=click.Choice(LEVELS),
              help="Fail on findings at or above this severity [default: fail-on in "
                   "[tool.planeshift], else warning].")
@click.option("--baseline", "baseline_file", type=click.Path(path_type=Path, dir_okay=False),
              help="Drop the findings this baseline holds "
                   "[default: baseline in [tool.planeshift]].")
@click.option("--no-baseline", is_flag=True, help="Ignore the configured baseline.")
@project_options
@click.pass_context
def lint_command(ctx: click.Context, paths: tuple[Path, ...], root: Path | None, fmt: str,
                 output: Path | None, fail_on: str | None, baseline_file: Path | None,
                 no_baseline: bool, project: ProjectFlags) -> None:
    from ..lint import lint

    with errors_exit_2(ctx, "lint"):
        config, scope = _setup(project, root, paths)
        check_output(output)
        baseline = None if no_baseline else (baseline_file or config.baseline)
        result = lint(config, scope, baseline, fail_on)
        text = _render(result, fmt)
        if output is not None:
            write_output(output, text)
    for warning in result.stats.get("warnings", ()):  # e.g. a cache folder it cannot write
        click.echo(f"planeshift: warning: {warning}", err=True)
    if fmt != "text" or output is not None:  # the text report on stdout lists them itself
        echo_errors(result.errors)
    if output is None:
        click.echo(text, nl=False)
    else:
        from ..reports.lint_text import summary_line

        click.echo(f"wrote {fmt} report to {output}", err=True)
        click.echo(summary_line(result), err=True)
    ctx.exit(EXIT_FINDINGS if result.failed else EXIT_OK)


@click.command("baseline", short_help="Record the findings so lint fails only on new ones.")
@_common
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="The baseline file to write [default: baseline in [tool.planeshift]].")
@project_options
@click.pass_context
def baseline_command(ctx: click.Context, paths: tuple[Path, ...], root: Path | None,
                     output: Path | None, project: ProjectFlags) -> None:
    """Record the current findings in PATHS (default: all) as a baseline for `planeshift lint`.

    Findings suppressed by a comment are left out. With PATHS, the file's entries for other
    files are kept. Exit 1 when a file in PATHS cannot be analysed (its findings are missing).
    """
    from ..lint import baseline_entries, lint
    from ..lint.baseline import load_baseline, merge, render_baseline

    with errors_exit_2(ctx, "baseline"):
        config, scope = _setup(project, root, paths)
        target = output or config.baseline
        if target is None:
            raise InputError("-o/--output", "<flag>", "no baseline file: give -o FILE or set "
                             "baseline in [tool.planeshift]")
        check_output(target)
        old = load_baseline(target) if scope.paths and target.exists() else ()
        result = lint(config, scope)
        entries = merge(old, baseline_entries(result), scope)
        write_output(target, render_baseline(entries))
    count = len(entries)
    click.echo(f"wrote {count} {'finding' if count == 1 else 'findings'} to {target}", err=True)
    for error in result.errors:
        click.echo(f"{error.file}: cannot be analysed: {error.message}", err=True)
    ctx.exit(EXIT_FINDINGS if result.errors else EXIT_OK)


def _setup(project: ProjectFlags, root: Path | None, paths: tuple[Path, ...]
           ) -> tuple[Config, Scope]:
    from ..lint import default_root, resolve_scope

    top = root.resolve() if root is not None else default_root(Path.cwd())
    config: Config = project.config(top)
    return config, resolve_scope(top, paths)


def _render(result: LintResult, fmt: str) -> str:
    cwd = Path.cwd()
    if fmt == "json":
        from ..reports.lint_json import render_lint_json

        return render_lint_json(result)
    if fmt == "sarif":
        from ..reports.sarif import render_sarif

        return render_sarif(result)
    from ..reports.lint_text import render_github, render_text

    return (render_github if fmt == "github" else render_text)(result, cwd)
