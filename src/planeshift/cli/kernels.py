"""The `planeshift kernels` command group: vendor the reference ADR-0120 kernels into a project."""

from __future__ import annotations

from pathlib import Path

import click

from ..pyfloor import KERNELS_FLOOR, FloorError, dotted, target_floor
from ..vendor import LIONAGI_TARGET, VendorError, infer_package, style_notes, vendor_kernels

__all__ = ["kernels"]


@click.group("kernels", short_help="Vendor the reference ADR-0120 D2 kernels into a project.")
def kernels() -> None:
    """Work with the reference ADR-0120 D2 kernels (stdlib only, vendorable)."""


@kernels.command("vendor", short_help="Copy the kernels and their adapters into INTO.")
@click.option(
    "--into",
    required=True,
    type=click.Path(path_type=Path),
    help=f"Target directory, e.g. <repo>/{LIONAGI_TARGET.as_posix()} (where ADR-0120 D7 places them).",
)
@click.option(
    "--package", default=None, help="Dotted package name of the target; inferred from __init__.py files."
)
@click.option("--force", is_flag=True, help="Overwrite files that are not an earlier vendored copy.")
@click.option(
    "--requires-python",
    "requires_python",
    default=None,
    metavar="SPEC",
    help="The target's Python versions (e.g. '>=3.10'), instead of the requires-python its "
    "pyproject.toml (or python_requires in setup.cfg) declares.",
)
@click.pass_context
def vendor(ctx: click.Context, into: Path, package: str | None, force: bool,
           requires_python: str | None) -> None:
    """Copy the kernels and their adapters into INTO so the project runs them (and code `planeshift
    migrate` rewrote) without depending on planeshift.

    Reads the target's Python floor first and refuses, writing nothing, when it is below the
    kernels' own (3.10)."""
    try:
        name = package if package is not None else infer_package(into)
        floor = target_floor(into, requires_python)
        written = vendor_kernels(into, name, force=force, requires_python=requires_python)
    except (VendorError, FloorError, OSError) as exc:
        click.echo(f"planeshift kernels vendor: error: {exc}", err=True)
        ctx.exit(2)
    for path in written:
        click.echo(f"wrote {path}")
    from ..codemods.support.style import read_style  # the command's own layer reads the style

    style = read_style(into)
    for note in style_notes(style.line_length, style.quote, style.source):
        click.echo(f"style: {note}")
    click.echo(f"vendored {len(written)} files as package {name} for {floor.describe()}")
    if floor.needs_exceptiongroup:
        click.echo(
            f"note: on Python {dotted(KERNELS_FLOOR)} the kernels import exceptiongroup, which the target declares "
            "neither itself nor through anyio: add 'exceptiongroup>=1.0.2; python_version < \"3.11\"' "
            "to its dependencies"
        )
