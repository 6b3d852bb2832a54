"""The ``planeshift`` command line: one module a command (scan, lint and baseline, migrate,
characterize, graph, kernels, packs and explain) over the shared options in ``options``."""

from __future__ import annotations

import gc
import importlib
from collections.abc import Sequence
from typing import NoReturn

import click

from .. import __version__
from ..heap import exit_follows_command
from ..method_cache import reuse_compiled_methods

__all__ = ["cli", "main", "run"]

# command -> (its module here, the click command in it), in the order `--help` lists them
_COMMANDS = {
    "scan": ("scan", "scan"), "packs": ("explain", "packs_command"),
    "explain": ("explain", "explain_command"), "kernels": ("kernels", "kernels"),
    "lint": ("lint", "lint_command"), "baseline": ("lint", "baseline_command"),
    "migrate": ("migrate", "migrate_command"),
    "characterize": ("characterize", "characterize_command"), "graph": ("graph", "graph_command"),
}


class _LazyGroup(click.Group):
    """The group whose commands' modules are imported when a command is named (click's lazy
    group): a run imports its own command's module, not the other eight (``scan`` and ``lint``
    start sooner); listing them (``--help``) imports them all."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)  # type: ignore[no-any-return]


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="planeshift")
def cli() -> None:
    """Inventory, lint and migrate hook, signal and callback registrations (ADR-0120 planes).

    Start with `planeshift scan .` (the inventory), then `planeshift lint` (the hazards, a
    pre-commit gate), `planeshift characterize` (the Phase 0 gate) and `planeshift migrate`
    (the call sites, or with --owners the dispatchers, onto the kernels). `planeshift graph`
    draws the inventory as a plane map; `planeshift packs` lists the dispatch mechanisms the
    built-in rule packs know.
    """



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

    The heap a scan leaves is kept frozen for the rest of the command (``heap.heap_frozen``).
    Everything alive at the end is frozen too, so the collections the interpreter runs while it
    shuts down skip it: they would traverse every object the command made (a cold scan of
    lionagi: up to a third of a second) only to free memory the exit frees anyway. Finalizers
    still run for what reference counting frees; nothing the commands write is left buffered in a
    cycle. The methods ``dataclasses`` writes for the command's classes are compiled once and
    kept between runs (``method_cache``).
    """
    exit_follows_command()
    methods = reuse_compiled_methods()
    code = main()
    methods.save()
    gc.freeze()
    raise SystemExit(code)
