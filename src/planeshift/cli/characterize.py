"""`planeshift characterize`: write the Phase 0 characterization module, and run it on a copy."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    echo_errors,
    errors_exit_2,
    fail,
    project_options,
    resolve_root,
    write_output,
)

if TYPE_CHECKING:
    from ..characterize.model import Characterization

MODULE_NAME = "test_characterization_generated.py"

CHARACTERIZE_HELP = f"""Write a pytest module pinning the dispatch policy of the dispatchers under
PATH (default: .), as the code has it today: the ADR-0120 Phase 0 gate a rewrite must keep green.

For every dispatch path the scan read whose dispatcher can be built without I/O, one test per
ADR-0120 D2 axis (handler order, sync and async handlers, returned awaitables, one and several
failures, a handler's and the emitter's cancellation, deadlines) asserts the behaviour the value
the scan read from the code implies. Axes the scan left unknown are generated as skipped tests
with the reason. The module imports the package only when pytest runs it.

\b
The summary (--format):
  text   per dispatch path, its tests by axis; what was left out and why (on stderr)
  json   the planeshift.characterize/1 contract, on stdout (needs -o for the module)

\b
Against a copy of the package (a migrated tree), from the module's folder:
  PYTHONPATH=COPY PLANESHIFT_CHARACTERIZE_EXPECT=COPY python -m pytest FILE
or --run-against COPY, which runs it after writing it.

\b
Exit codes:
  {EXIT_OK}  the module was written (and, with --run-against, passed on the copy); a file that
     could not be analysed is one line on stderr (and under errors in --format json)
  {EXIT_FINDINGS}  nothing could be characterized (no module written), or the module failed on the copy
  {EXIT_USAGE}  usage, configuration or rule-pack error, or the module cannot be written or run
"""


@click.command("characterize", help=CHARACTERIZE_HELP,
               short_help="Write a pytest module pinning each dispatcher's policy.")
@click.argument("path", default=".", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the module to FILE (atomically) instead of stdout.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text",
              show_default=True, help="The summary's format.")
@click.option("--run-against", "copy", type=click.Path(path_type=Path), metavar="COPY",
              help="Then run the module with pytest against COPY, a copy of the package (its "
                   "folder, or the folder holding it), which shadows the installed one.")
@project_options
@click.pass_context
def characterize_command(ctx: click.Context, path: Path, output: Path | None, fmt: str,
                         copy: Path | None, project: ProjectFlags) -> None:
    from .. import api

    if fmt == "json" and output is None:
        fail(ctx, "characterize", "--format json writes the summary to stdout: give -o FILE "
                                  "for the module")
    if copy is not None and not copy.is_dir():
        fail(ctx, "characterize", f"--run-against {copy}: no such folder")
    with errors_exit_2(ctx, "characterize"):
        config = project.config(resolve_root(path))
        check_output(output)
        result = api.characterize(config)
    _warnings(result)
    summary = _summary(result, fmt)
    if not result.plans:
        click.echo(summary, nl=False, err=fmt == "text")
        click.echo("planeshift characterize: nothing to characterize: no dispatch path can be "
                   "built without I/O (see above); no module written", err=True)
        ctx.exit(EXIT_FINDINGS)
    with tempfile.TemporaryDirectory(prefix="planeshift-characterize-") as tmp:
        target = output or (Path(tmp) / MODULE_NAME if copy is not None else None)
        if target is None:
            click.echo(result.module, nl=False)
        else:
            try:
                write_output(target, result.module)
            except OSError as exc:
                fail(ctx, "characterize", f"cannot write {target}: {exc.strerror or exc}")
        click.echo(summary, nl=False, err=fmt == "text")
        if output is not None:
            click.echo(f"wrote {result.tests} tests to {output}", err=True)
        if copy is not None and target is not None:
            ctx.exit(_run(ctx, target, copy, result.packages))


def _run(ctx: click.Context, module: Path, copy: Path, packages: tuple[str, ...]) -> int:
    from ..characterize.against_copy import RunError, run_against

    click.echo(f"running the module against {copy}", err=True)
    try:
        done = run_against(module, copy, packages)
    except RunError as exc:
        fail(ctx, "characterize", str(exc))
    if done.returncode in (EXIT_OK, EXIT_FINDINGS):
        return done.returncode
    click.echo(f"planeshift characterize: error: pytest could not run the module (exit "
               f"{done.returncode})", err=True)
    return EXIT_USAGE


def _warnings(result: Characterization) -> None:
    scan = result.scan
    if scan is None:
        return
    for warning in scan.stats.get("warnings", ()):
        click.echo(f"planeshift: warning: {warning}", err=True)
    if scan.errors:
        echo_errors(scan.errors)
        count = len(scan.errors)
        click.echo(f"planeshift: warning: {count} {'file' if count == 1 else 'files'} could not "
                   "be analysed (above): a dispatcher in them is not in the module", err=True)


def _summary(result: Characterization, fmt: str) -> str:
    from ..reports.characterization import render_json, render_text

    return render_json(result) if fmt == "json" else render_text(result)
