"""`planeshift migrate`: the codemods as a command, a diff by default, --write to apply."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..types import InputError
from .lint import _common, _setup
from .options import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    ProjectFlags,
    check_output,
    echo_errors,
    errors_exit_2,
    project_options,
    write_output,
)

if TYPE_CHECKING:
    from ..codemods.model import MigrateResult

FORMATS = ("text", "json")
CODEMODS = ("registration, argv, discard_gate, decisions; with --owners: owner_dispatch, owner_table, "
            "owner_declarations")

MIGRATE_HELP = f"""Rewrite the registration call sites in PATHS onto the ADR-0120 kernels.

The whole project under the root is scanned; each registration in PATHS (default: all) that
the scan classified, on a dispatcher that reads declarations (its owner on the kernels: run
--owners first), hands it a typed registration its façade unwraps, keeping today's behaviour. By default nothing is written: the unified diff goes to stdout (coloured on
a terminal) and the report (what was migrated, what was not and why) to stderr.

\b
Codemods (--select / --ignore; `planeshift explain ID` documents each):
  registration   InterceptorRegistration / Subscription / SinkRegistration, where read
  argv           external hook commands given as a shell string become argv lists
  discard_gate   DISCARD_UNAWAITED sites recorded with their owner (or --convert-discard)
  decisions      interceptors return typed STOP / DENY decisions instead of raising

The kernels and adapters must be importable in the project: `planeshift kernels vendor
--into <package>/runtime/dispatch`, then --kernel-module <package>.runtime.dispatch (the
lionagi pack's default is lionagi.runtime.dispatch; planeshift.kernels works too).

\b
Not done (listed as not migrated, with the reason): a registration whose dispatcher does
not read declarations yet, needs_review and low-confidence registrations, decorator registrations, observing subscribers (no wake policy to write), shell
pipelines. A handler that may be None is migrated through `optional` (None reaches the legacy
API as before). The dispatchers themselves are --owners' work.

\b
--owners (ADR-0120 Phase 1, "kernels behind existing façades") rewrites the dispatchers
themselves instead of the call sites, each owner whole or not at all:
  owner_dispatch  each dispatch method's fan-out (a sequential for loop, an anyio task group,
                  gather(..., return_exceptions=True), in a shared deadline or not) becomes a
                  call of the kernel's fan_out under the policy the scan read from that loop
                  (a named ADR profile when it is one, else every axis spelled out); the
                  except clause's log line, a gather's group and translated cancellation, and
                  everything around the loop stay the owner's
  owner_table     a handler list only the class touches becomes the kernel's registration
                  table (FanoutDispatcher); records with names, filters, overrides or weak
                  references stay the owner's
  owner_declarations  the owner's registration methods unwrap a typed registration, and its
                  fan-out runs handlers in declared order under declared names
Refused owners are listed with the axis or behaviour the kernels cannot reproduce: an axis the
scan could not read, a sync dispatch method, one handler per call, a clause that leaves the
loop otherwise than a first `except <Type>: break` (the stop signal), an except clause that
re-raises some failures otherwise than `if <test>: raise` or collects them for a helper to
raise, returned awaitables gathered after the loop otherwise than from the two lists of
SessionObserver's shape, a loop over the storage itself rather than a snapshot. Vendor the
kernels first.

--series DIR writes the whole migration as an ordered patch series instead, `git format-patch`
style (`git am DIR/*.patch` applies it), one pull request a patch: the vendored kernels, the
Phase 0 characterization gate, one patch per owner, the call sites by owner and package (the
tests and examples apart), the settings' argv; each commit message says what, why, the ADR
clause, the gate to run and what was left alone. Each patch is made on a temporary copy holding
the ones before it; nothing is written outside DIR.

\b
Exit codes:
  {EXIT_OK}  nothing to do, or the changes (or the series) were shown or written, and nothing
     failed
  {EXIT_FINDINGS}  --check found changes to make, or a file was not migrated because of an error
  {EXIT_USAGE}  usage, configuration, rule-pack or tool error
"""


@click.command("migrate", help=MIGRATE_HELP,
               short_help="Rewrite registrations (or dispatchers) onto the kernels.")
@_common
@click.option("--write", is_flag=True, help="Apply the changes (atomically, file by file).")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 when anything would change (for CI).")
@click.option("--select", multiple=True, metavar="ID",
              help=f"Run only these codemods (repeatable or comma-separated): {CODEMODS}.")
@click.option("--ignore", multiple=True, metavar="ID", help="Skip these codemods.")
@click.option("--kernel-module", metavar="MODULE",
              help="Import path of the kernels in the project [default: kernel-module in "
                   "[tool.planeshift], else the pack's, else planeshift.kernels].")
@click.option("--owners", is_flag=True,
              help="Rewrite the dispatchers themselves (Phase 1): their fan-out loops onto the "
                   "kernel under the policy each loop has, their handler lists onto its "
                   "registration table; refused owners are listed with the reason.")
@click.option("--series", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Write the migration as an ordered patch series into DIR (git format-patch "
                   "style, `git am DIR/*.patch` applies it): the kernels, the Phase 0 gate, one "
                   "patch per owner, the call sites by owner and package (tests and examples "
                   "apart), the settings' argv. Made on a temporary copy; nothing else written.")
@click.option("--convert-discard", is_flag=True,
              help="Convert DISCARD_UNAWAITED registrations so their returned awaitables run "
                   "(a behaviour change) instead of recording them with their owner.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: diff on stdout, report on stderr; json: the planeshift.migrate/1 "
                   "report (diffs included) on stdout.")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the report to FILE (atomically) instead of stderr (text) or stdout "
                   "(json); the text diff still goes to stdout.")
@project_options
@click.pass_context
def migrate_command(ctx: click.Context, paths: tuple[Path, ...], root: Path | None, write: bool,
                    check: bool, select: tuple[str, ...], ignore: tuple[str, ...],
                    kernel_module: str | None, owners: bool, series: Path | None,
                    convert_discard: bool, fmt: str, output: Path | None,
                    project: ProjectFlags) -> None:
    from ..codemods.facts import MigrateOptions

    with errors_exit_2(ctx, "migrate"):
        if write and check:
            raise InputError("--write/--check", "<flag>", "give one of --write and --check")
        config, scope = _setup(project, root, paths)
        check_output(output)
        options = MigrateOptions(select=_ids(select), ignore=_ids(ignore),
                                 kernel_module=kernel_module, convert_discard=convert_discard,
                                 write=write, check=check, paths=scope.paths, owners=owners)
        if series is not None:
            _series_flags(write, check, owners, fmt, output)
            _series(config, options, series)
            ctx.exit(EXIT_OK)
        result = _run(config, options)
        _report(result, fmt, output)
    failed = result.failed or (check and result.pending)
    ctx.exit(EXIT_FINDINGS if failed else EXIT_OK)


def _series_flags(write: bool, check: bool, owners: bool, fmt: str, output: Path | None) -> None:
    given = [flag for flag, on in (("--write", write), ("--check", check), ("--owners", owners),
                                   ("--format json", fmt == "json"), ("--output", output))
             if on]
    if given:
        raise InputError("--series", "<flag>", f"{given[0]} does not go with --series (the "
                         "series holds the owners' patches, and writes into DIR only)")


def _series(config, options, out: Path) -> None:  # type: ignore[no-untyped-def]
    from ..codemods.base import all_codemods
    from ..codemods.series.build import build_series

    known = sorted(c.id for c in all_codemods())
    unknown = sorted(set(options.select + options.ignore) - set(known))
    if unknown:
        raise InputError("--select/--ignore", "<flag>",
                         f"no codemod {unknown[0]!r} (have: {', '.join(known)})")
    done = build_series(config, options, out)
    for patch in done.patches:
        files = len(patch.files)
        click.echo(f"{patch.written}: {patch.message.subject} ({files} "
                   f"file{'s' if files != 1 else ''})")
    for note in done.notes:
        click.echo(f"planeshift: note: {note}", err=True)
    gate = f"; the gate: {done.command}" if done.command else ""
    click.echo(f"{len(done.patches)} patches in {out}: apply them in order with "
               f"`git am {out}/*.patch`{gate}", err=True)


def _ids(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _run(config, options) -> MigrateResult:  # type: ignore[no-untyped-def]
    from ..codemods.run import migrate, selected

    try:
        selected(options)
    except ValueError as exc:  # an unknown codemod id (a bad pack is named by the run itself)
        raise InputError("--select/--ignore", "<flag>", str(exc)) from exc
    if not sys.stderr.isatty():
        return migrate(config, options)
    from ..reports.terminal import make_console, make_progress

    bar, callback = make_progress(make_console(stderr=True), "migrating", threshold=8)
    with bar:
        return migrate(config, options, callback)


def _report(result: MigrateResult, fmt: str, output: Path | None) -> None:
    for warning in result.stats.get("warnings", ()):
        click.echo(f"planeshift: warning: {warning}", err=True)
    if fmt == "json" or output is not None:  # the text report on stderr lists them itself
        echo_errors(result.errors)
    if fmt == "json":
        from ..codemods.report.json_report import render_migrate_json

        text = render_migrate_json(result)
        if output is None:
            click.echo(text, nl=False)
        else:
            write_output(output, text)
            click.echo(f"wrote json report to {output}", err=True)
        return
    from ..codemods.report.text import render_diff, render_report

    if result.mode != "write":
        colour = sys.stdout.isatty() and "NO_COLOR" not in __import__("os").environ
        style = (lambda line, c: click.style(line, fg=None if c == "bold" else c,
                                             bold=c == "bold")) if colour else None
        click.echo(render_diff(result, style), nl=False)
    report = render_report(result, Path.cwd())
    if output is None:
        click.echo(report, nl=False, err=True)
    else:
        write_output(output, report)
        click.echo(f"wrote text report to {output}", err=True)
