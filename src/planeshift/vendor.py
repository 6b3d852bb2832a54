"""Copy the stdlib-only ADR-0120 kernels and adapters into a target project, so migrated code runs
without planeshift."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import planeshift

from .atomic import write_atomic
from .pyfloor import (
    KERNELS_FLOOR,
    FloorError,
    PythonFloor,
    dotted,
    project_root,
    target_floor,
)

__all__ = [
    "ADAPTERS",
    "FORMATTED_FOR",
    "LIONAGI_TARGET",
    "MARKER",
    "VendorError",
    "check_floor",
    "infer_package",
    "kernel_sources",
    "style_notes",
    "vendor_kernels",
]

MARKER = "# planeshift-vendored:"
SOURCE_PACKAGE = "planeshift.kernels"
LIONAGI_TARGET = Path("lionagi/runtime/dispatch")  # where ADR-0120 D7 places the kernels
_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)planeshift\.kernels\b", re.MULTILINE)
ADAPTERS = "adapters.py"  # the typed-registration adapters `planeshift migrate` writes calls to
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


# The kernels' sources are laid out so that `ruff format` (and black) leaves them unchanged at
# every line length in this range, with double quotes: each split construct carries a magic
# trailing comma or is too long to join, and no code line is over the lower bound (a few
# message strings reach 100 characters, which only an E501 check below 100 reports).
FORMATTED_FOR = (88, 120)
LONGEST_LINE = 100


class VendorError(Exception):
    """The kernels cannot be vendored as asked; nothing was written."""


def kernel_sources() -> list[Path]:
    """The kernel modules and the adapters module (``adapters.py``), in a stable order."""
    return sorted((Path(planeshift.__file__).parent / "kernels").glob("*.py"))


def infer_package(into: Path) -> str:
    """The dotted package name of `into`: from the outermost regular package (a folder with an
    ``__init__.py``) above it, folders without one in between included (``lionagi/runtime``
    has none in lionagi 0.36.0, yet ``lionagi.runtime.dispatch`` is the name). The climb stops
    at the project root (pyproject.toml, setup.cfg or setup.py); without one, at the first folder
    above a package that is not one."""
    into = Path(into).resolve()
    root = project_root(into)
    above = list(into.parents)
    top = -1
    for index, folder in enumerate(above):
        if folder == root:
            break
        if (folder / "__init__.py").is_file():
            top = index
        elif root is None and top >= 0:
            break
    return ".".join([f.name for f in reversed(above[: top + 1])] + [into.name])


def is_vendored_copy(path: Path) -> bool:
    """True when `path` starts with the vendoring marker, i.e. an earlier run wrote it."""
    try:
        with path.open(encoding="utf-8") as handle:
            return handle.readline().startswith(MARKER)
    except (OSError, UnicodeDecodeError):
        return False


def render(source: Path, package: str) -> str:
    """The vendored text of one kernel module: header, then the source with imports re-pointed."""
    text = _IMPORT.sub(lambda m: m.group(1) + package, source.read_text(encoding="utf-8"))
    leftover = _planeshift_imports(text, source.name)
    if leftover:
        raise VendorError(
            f"{source.name} still imports {', '.join(leftover)} after rewriting; kernels must be stdlib-only"
        )
    version = planeshift.__version__
    header = (
        f"{MARKER} {SOURCE_PACKAGE} {version} as {package}\n"
        f"# Vendored from {SOURCE_PACKAGE}/{source.name} (planeshift {version}).\n"
        "# Do not edit: re-run `planeshift kernels vendor` to update this copy.\n"
    )
    return header + text


def _planeshift_imports(text: str, name: str) -> list[str]:
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as exc:
        raise VendorError(f"{name} does not parse: {exc}") from exc
    found: list[str] = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        found += [m for m in modules if m == "planeshift" or m.startswith("planeshift.")]
    return found


def vendor_kernels(into: Path, package: str | None = None, *, force: bool = False,
                   requires_python: str | None = None) -> list[Path]:
    """Write the kernels into directory `into` as package `package` (inferred when None).

    Refuses, before writing anything, to vendor for a project whose Python floor (see
    ``target_floor``; `requires_python` overrides what it declares) is below the kernels' own,
    and to overwrite a file that is not an earlier vendored copy unless `force`. Each file is
    written atomically. Returns the paths written.
    """
    into = Path(into)
    if into.exists() and not into.is_dir():
        raise VendorError(f"{into} exists and is not a directory")
    try:
        floor = target_floor(into, requires_python)
    except FloorError as exc:
        raise VendorError(str(exc)) from exc
    check_floor(floor)
    package = package if package is not None else infer_package(into)
    if not _PACKAGE.match(package):
        raise VendorError(f"{package!r} is not a dotted Python package name")
    planned = [(into / source.name, render(source, package)) for source in kernel_sources()]
    foreign = [dest for dest, _ in planned if dest.exists() and not is_vendored_copy(dest)]
    if foreign and not force:
        names = ", ".join(str(p) for p in foreign)
        raise VendorError(
            f"refusing to overwrite files that are not a planeshift-vendored copy: {names} (use --force)"
        )
    into.mkdir(parents=True, exist_ok=True)
    for dest, text in planned:
        _atomic_write(dest, text)
    return [dest for dest, _ in planned] + _package_markers(into, package)


def style_notes(line_length: int, quote: str, source: str = "") -> list[str]:
    """What a target's formatter would change in the vendored copy, one note a difference:
    a line length outside FORMATTED_FOR, single quotes. Empty when the copy is already in the
    target's style (its formatter leaves it unchanged). `source` names the settings' file."""
    where = f" ({source})" if source else ""
    low, high = FORMATTED_FOR
    notes = []
    if not low <= line_length <= high:
        notes.append(
            f"the target's line length is {line_length}{where}; the vendored kernels are laid out"
            f" for {low} to {high}, so its formatter will reformat them"
        )
    elif line_length < LONGEST_LINE:
        notes.append(
            f"the target's line length is {line_length}{where}; a few message strings in the"
            f" vendored kernels reach {LONGEST_LINE} characters (reported only by an E501 check)"
        )
    if quote != '"':
        notes.append(
            f"the target's formatter uses single quotes{where}; the vendored kernels use double"
            " quotes, so its formatter will requote them"
        )
    return notes


def check_floor(floor: PythonFloor) -> None:
    """VendorError when the target declares a Python older than the kernels run on."""
    if floor.version is not None and floor.version < KERNELS_FLOOR:
        where = f"requires-python {floor.spec!r} in {floor.source}" if floor.source else (
            f"--requires-python {floor.spec!r}")
        raise VendorError(
            f"the target's floor is Python {dotted(floor.version)} ({where}), "
            f"but the kernels need Python >= {dotted(KERNELS_FLOOR)}; nothing was written "
            f"(raise the target's floor to >={dotted(KERNELS_FLOOR)} first)"
        )


def _package_markers(into: Path, package: str) -> list[Path]:
    """An ``__init__.py`` in each folder between the top-level package and *into* that has none
    (lionagi 0.36.0 has no ``lionagi/runtime/``), so the copy imports as a regular package; the
    top-level package and existing files are never touched."""
    written = []
    folder = into.resolve().parent
    for part in reversed(package.split(".")[1:-1]):
        if folder.name != part:
            break
        init = folder / "__init__.py"
        if not init.exists():
            version = planeshift.__version__
            _atomic_write(init, f"{MARKER} {SOURCE_PACKAGE} {version} as {package}\n"
                                f"# A package folder written by planeshift {version} for the "
                                "vendored kernels below it.\n")
            written.append(init)
        folder = folder.parent
    return written


def _atomic_write(dest: Path, text: str) -> None:
    write_atomic(dest, text.encode("utf-8"), fsync=True)
