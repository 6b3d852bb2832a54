"""The `planeshift kernels` command group: vendor the reference ADR-0120 kernels into a project."""

from __future__ import annotations

from pathlib import Path

import click

from .vendor import LIONAGI_TARGET, VendorError, infer_package, vendor_kernels

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
@click.pass_context
def vendor(ctx: click.Context, into: Path, package: str | None, force: bool) -> None:
    """Copy the kernels and their adapters into INTO so the project runs them (and code `planeshift
    migrate` rewrote) without depending on planeshift."""
    try:
        name = package if package is not None else infer_package(into)
        written = vendor_kernels(into, name, force=force)
    except (VendorError, OSError) as exc:
        click.echo(f"planeshift kernels vendor: error: {exc}", err=True)
        ctx.exit(2)
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"vendored {len(written)} files as package {name}")
