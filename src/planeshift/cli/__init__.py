"""The ``planeshift`` command line: one module a command (scan, lint and baseline, migrate,
characterize, graph, kernels, packs and explain) over the shared options in ``options``."""

from __future__ import annotations

import gc
import importlib
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import click

from .. import __version__

__all__ = ["cli", "main", "run"]

# command -> (its module here, the click command in it), in the order `--help` lists them
_COMMANDS = {
    "scan": ("scan", "scan"), "packs": ("explain", "packs_command"),
    "explain": ("explain", "explain_command"), "kernels": ("kernels", "kernels"),
    "lint": ("lint", "lint_command"), "baseline": ("lint", "baseline_command"),
    "migrate": ("migrate", "migrate_command"),
    "characterize": ("characterize", "characterize_command"), "graph": ("graph", "graph_command"),
}


class _Commands(dict):  # type: ignore[type-arg]
    """The group's commands, each module imported when its command is first named: a run imports
    its own command's module, not the other eight (``scan`` and ``lint`` start sooner); listing
    them (``--help``) imports them all."""

    def _load(self, name: str) -> None:
        if not dict.__contains__(self, name) and name in _COMMANDS:
            module, attr = _COMMANDS[name]
            command = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
            dict.__setitem__(self, name, command)

    def _load_all(self) -> None:
        for name in _COMMANDS:
            self._load(name)

    def __missing__(self, name: str) -> click.Command:
        self._load(name)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)  # type: ignore[no-any-return]
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        self._load(name)
        return dict.get(self, name, default)

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in _COMMANDS

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._load_all()
        return dict.keys(self)

    def values(self) -> Any:
        self._load_all()
        return dict.values(self)

    def items(self) -> Any:
        self._load_all()
        return dict.items(self)


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


cli.commands = _Commands()


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
