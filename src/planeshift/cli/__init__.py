"""The ``planeshift`` command line: one module a command (scan, lint and baseline, migrate,
characterize, graph, kernels, packs and explain) over the shared options in ``options``."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import NoReturn

import click

from .. import __version__
from .characterize import characterize_command
from .explain import explain_command, packs_command
from .graph import graph_command
from .kernels import kernels
from .lint import baseline_command, lint_command
from .migrate import migrate_command
from .scan import scan

__all__ = ["cli", "main", "run"]


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


cli.add_command(scan)
cli.add_command(packs_command)
cli.add_command(explain_command)
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


def run() -> NoReturn:
    """The console script and ``python -m planeshift``: :func:`main`, then the process exits.

    Everything alive is frozen first, so the collections the interpreter runs while it shuts
    down skip it: they would traverse every object the command made (a cold scan of lionagi:
    up to a third of a second) only to free memory the exit frees anyway. Finalizers still run
    for what reference counting frees; nothing the commands write is left buffered in a cycle.
    """
    code = main()
    gc.freeze()
    raise SystemExit(code)
