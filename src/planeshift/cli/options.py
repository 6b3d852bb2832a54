"""Options every analysing command shares (scan, lint, baseline, migrate), and their plumbing.

A command takes the project options with ``@project_options`` and receives them as one
:class:`ProjectFlags` argument named ``project``; ``project.config(root)`` turns them and the
``[tool.planeshift]`` table into a :class:`Config`. Output files are checked before a long run
and written atomically with ``write_output``.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

from ..atomic import write_atomic
from .. import rules  # noqa: F401  (gives load_config the rule codes severity names)
from ..config import Config, ConfigError, load_config
from ..types import FileError, InputError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class ProjectFlags:
    """What the shared options said; None (or empty) where a flag was not given."""

    packs: tuple[Path, ...] = ()
    no_builtin_packs: bool = False
    exclude: tuple[str, ...] = ()
    no_gitignore: bool = False
    no_cache: bool = False
    cache_dir: Path | None = None
    jobs: int | None = None
    config_file: Path | None = None
    context: tuple[Path, ...] = ()
    no_context: bool = False

    def config(self, root: Path) -> Config:
        """``[tool.planeshift]`` for *root* (or ``--config``), overridden by these flags."""
        return load_config(root, self.config_file).with_flags(
            packs=tuple(p.resolve() for p in self.packs),
            exclude=self.exclude,
            gitignore=False if self.no_gitignore else None,
            use_cache=False if self.no_cache else None,
            cache_dir=self.cache_dir.resolve() if self.cache_dir else None,
            jobs=self.jobs,
            builtin_packs=() if self.no_builtin_packs else None,
            context=tuple(p.resolve() for p in self.context),
            use_context=False if self.no_context else None,
        )


_OPTIONS = (
    click.option("--pack", "packs", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
                 help="An extra rule pack (YAML); repeatable."),
    click.option("--no-builtin-packs", is_flag=True, help="Use only the packs given with --pack."),
    click.option("--exclude", multiple=True, metavar="GLOB",
                 help="Skip paths matching a gitignore-style pattern; repeatable."),
    click.option("--no-gitignore", is_flag=True, help="Scan files that .gitignore excludes."),
    click.option("--no-cache", is_flag=True, help="Neither read nor write the caches."),
    click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
                 help="Where the caches live [default: .planeshift_cache in the project "
                      "root]."),
    click.option("--jobs", type=click.IntRange(min=0), metavar="N",
                 help="Processes (this one and forked helpers); 0 means one per core [default: 0]."),
    click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
                 help="Read [tool.planeshift] from this pyproject.toml instead of discovering one."),
    click.option("--context", multiple=True, type=click.Path(path_type=Path, file_okay=False),
                 help="A folder holding the source of a pack's package (or a site-packages), "
                      "read to link but never reported; repeatable [default: found on the "
                      "interpreter's path, then in $VIRTUAL_ENV, .venv/, venv/, when a file of "
                      "the tree names the package]."),
    click.option("--no-context", is_flag=True,
                 help="Read no library source: judge the packs' mechanisms from the packs alone."),
)
_NAMES = tuple(f.name for f in ProjectFlags.__dataclass_fields__.values())


def project_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options to a click command; it receives them as ``project``."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        flags = ProjectFlags(**{name: kwargs.pop(name) for name in _NAMES})
        return command(*args, project=flags, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


def output_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``-o/--output FILE``: write the report there (atomically) instead of to stdout."""
    return click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
                        help="Write the report to FILE (atomically) instead of stdout.")(command)


def resolve_root(path: Path) -> Path:
    if not path.exists():
        raise ConfigError(str(path), "<path>", "no such file or directory")
    return path.resolve()


def check_output(output: Path | None) -> None:
    """Fail before a long run when the report could not be written anyway."""
    if output is None:
        return
    folder = output.parent if str(output.parent) else Path(".")
    if not folder.is_dir():
        raise ConfigError(str(output), "--output", f"no such directory: {folder}")
    if output.is_dir():
        raise ConfigError(str(output), "--output", "is a directory")


def write_output(output: Path, text: str) -> None:
    """Write a report atomically; an existing file keeps its permissions, a new one is ordinary."""
    write_atomic(output, text.encode("utf-8"), mode=_file_mode(output))


def _file_mode(output: Path) -> int:
    try:
        return output.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def describe(exc: InputError) -> str:
    """``file: key: message``, without the key when it is a placeholder such as <file> (a key
    below the placeholder, such as ``<top>.surprise``, is named without it)."""
    if exc.key.startswith("<"):
        _, below, key = exc.key.partition(".")
        return f"{exc.path}: {key}: {exc.detail}" if below else f"{exc.path}: {exc.detail}"
    return str(exc)


def echo_errors(errors: Sequence[FileError]) -> None:
    """One line on stderr per file that could not be analysed: ``file: cannot be analysed: why``."""
    for error in errors:
        click.echo(f"{error.file}: cannot be analysed: {error.message}", err=True)


def fail(ctx: click.Context, command: str, message: str) -> NoReturn:
    click.echo(f"planeshift {command}: error: {message}", err=True)
    ctx.exit(EXIT_USAGE)


@contextlib.contextmanager
def errors_exit_2(ctx: click.Context, command: str) -> Iterator[None]:
    """Usage, configuration, baseline and tool errors: one line on stderr and exit 2, never a
    traceback (a gate that crashed must not look like one that passed or found something)."""
    try:
        yield
    except InputError as exc:
        fail(ctx, command, describe(exc))
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        fail(ctx, command, f"{where}{exc.strerror or exc}")
    except click.exceptions.Exit:
        raise
    except Exception as exc:  # reported, with its type, as a tool error
        fail(ctx, command, f"internal error: {type(exc).__name__}: {exc}")
