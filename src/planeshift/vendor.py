"""Copy the stdlib-only ADR-0120 kernels and adapters into a target project, so migrated code runs
without planeshift."""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass
from pathlib import Path

import planeshift

from .atomic import write_atomic

__all__ = [
    "ADAPTERS",
    "KERNELS_FLOOR",
    "LIONAGI_TARGET",
    "MARKER",
    "PythonFloor",
    "VendorError",
    "infer_package",
    "kernel_sources",
    "project_root",
    "python_floor",
    "target_floor",
    "vendor_kernels",
]

MARKER = "# planeshift-vendored:"
SOURCE_PACKAGE = "planeshift.kernels"
LIONAGI_TARGET = Path("lionagi/runtime/dispatch")  # where ADR-0120 D7 places the kernels
_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)planeshift\.kernels\b", re.MULTILINE)
ADAPTERS = "adapters.py"  # the typed-registration adapters `planeshift migrate` writes calls to
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
KERNELS_FLOOR = (3, 10)  # the oldest Python the kernels run on (kernels/_compat.py)
_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


class VendorError(Exception):
    """The kernels cannot be vendored as asked; nothing was written."""


def kernel_sources() -> list[Path]:
    """The kernel modules and the adapters module (``adapters.py``), in a stable order."""
    return sorted((Path(planeshift.__file__).parent / "kernels").glob("*.py"))


def project_root(into: Path) -> Path | None:
    """The nearest folder above `into` holding a pyproject.toml, setup.cfg or setup.py."""
    for folder in Path(into).resolve().parents:
        if any((folder / name).is_file() for name in _PROJECT_FILES):
            return folder
    return None


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


@dataclass(frozen=True)
class PythonFloor:
    """The oldest Python a target declares: `version` None when it declares none."""

    version: tuple[int, int] | None
    spec: str | None = None
    source: Path | None = None  # the file that declares it
    exceptiongroup: str | None = None  # how the target brings exceptiongroup on 3.10, if it does

    @property
    def needs_exceptiongroup(self) -> bool:
        """The target may run on 3.10, where the kernels import exceptiongroup, yet declares
        neither it nor anyio (which requires it there)."""
        return (self.version is None or self.version < (3, 11)) and self.exceptiongroup is None

    def describe(self) -> str:
        if self.version is None:
            where = f"{self.source} declares no requires-python planeshift reads" if self.source else (
                "no pyproject.toml, setup.cfg or setup.py above the target")
            return f"Python >= {_dotted(KERNELS_FLOOR)} (the kernels' own floor; {where})"
        where = f"requires-python {self.spec!r} in {self.source}" if self.source else (
            f"--requires-python {self.spec!r}")
        return f"Python >= {_dotted(self.version)} ({where})"


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def target_floor(into: Path, requires_python: str | None = None) -> PythonFloor:
    """The Python floor of the project `into` belongs to: `requires_python` when given, else
    ``[project] requires-python`` in its pyproject.toml, else ``[options] python_requires`` in
    its setup.cfg (both read as text, never executed). VendorError when it cannot be read."""
    root = project_root(into)
    declared, source, deps = _declared(root) if root is not None else (None, None, [])
    spec = declared if requires_python is None else requires_python
    if requires_python is not None:
        source = None
    if spec is None:
        found = [root / n for n in _PROJECT_FILES if root is not None and (root / n).is_file()]
        return PythonFloor(None, None, found[0] if found else None, _exceptiongroup_source(deps))
    version = python_floor(spec)
    if version is None:
        raise VendorError(f"requires-python {spec!r}{f' in {source}' if source else ''} admits no "
                          "Python 3 release, or is not a version specifier planeshift can read")
    return PythonFloor(version, spec, source, _exceptiongroup_source(deps))


def _declared(root: Path) -> tuple[str | None, Path | None, list[str]]:
    """(requires-python, the file it is in, the runtime dependencies) of the project at `root`."""
    spec: str | None = None
    source: Path | None = None
    deps: list[str] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        # imported here: the kernel tests also vendor under Python 3.10 (tests/kernels/
        # test_kernel_py310.py), which has no tomllib, into folders without a pyproject.toml
        import tomllib

        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise VendorError(f"cannot read {pyproject}: {exc}") from exc
        if isinstance(project.get("requires-python"), str):
            spec, source = project["requires-python"], pyproject
        deps += [d for d in project.get("dependencies", []) if isinstance(d, str)]
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(setup_cfg, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError) as exc:
            raise VendorError(f"cannot read {setup_cfg}: {exc}") from exc
        if spec is None and parser.has_option("options", "python_requires"):
            spec, source = parser.get("options", "python_requires").strip(), setup_cfg
        if parser.has_option("options", "install_requires"):
            deps += [line.strip() for line in parser.get("options", "install_requires").splitlines()]
    return spec, source, deps


def _exceptiongroup_source(deps: list[str]) -> str | None:
    names = {re.split(r"[\s<>=!~;\[(@]", dep.strip(), maxsplit=1)[0].lower().replace("_", "-")
             for dep in deps if dep.strip()}
    if "exceptiongroup" in names:
        return "exceptiongroup"
    if "anyio" in names:
        return "anyio"
    return None


_CLAUSE = re.compile(r"^(~=|===|==|!=|<=|>=|<|>)\s*v?(\d+(?:\.\d+)*)(\.\*)?\S*$")


def python_floor(spec: str) -> tuple[int, int] | None:
    """The oldest 3.x a PEP 440 specifier admits (``">=3.10,<4"`` -> (3, 10)); None when it
    admits none or cannot be read. Pre-release and local suffixes are ignored."""
    clauses = []
    for text in spec.split(","):
        text = text.strip()
        if not text:
            continue
        match = _CLAUSE.match(text)
        if match is None:
            return None
        op, release, wildcard = match.groups()
        clauses.append((op, tuple(int(x) for x in release.split(".")), bool(wildcard)))
    for minor in range(0, 40):
        if any(all(_admits(c, (3, minor, micro)) for c in clauses) for micro in range(0, 40)):
            return (3, minor)
    return None


def _admits(clause: tuple[str, tuple[int, ...], bool], version: tuple[int, int, int]) -> bool:
    op, release, wildcard = clause
    if wildcard:
        prefix = version[: len(release)] == release
        return prefix if op in ("==", "===") else not prefix if op == "!=" else False
    width = max(len(release), len(version))
    have = version + (0,) * (width - len(version))
    want = release + (0,) * (width - len(release))
    if op in ("==", "==="):
        return have == want
    if op == "!=":
        return have != want
    if op == "<":
        return have < want
    if op == "<=":
        return have <= want
    if op == ">":
        return have > want
    if op == ">=":
        return have >= want
    # ~=X.Y[.Z]: >= X.Y[.Z] and the same release up to the last component but one
    return len(release) > 1 and have >= want and version[: len(release) - 1] == release[:-1]


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
        f"# Vendored from {SOURCE_PACKAGE}/{source.name} (planeshift {version}) by"
        " `planeshift kernels vendor`.\n"
        "# Do not edit: re-run that command to update this copy.\n"
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
    check_floor(target_floor(into, requires_python))
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


def check_floor(floor: PythonFloor) -> None:
    """VendorError when the target declares a Python older than the kernels run on."""
    if floor.version is not None and floor.version < KERNELS_FLOOR:
        where = f"requires-python {floor.spec!r} in {floor.source}" if floor.source else (
            f"--requires-python {floor.spec!r}")
        raise VendorError(
            f"the target's floor is Python {_dotted(floor.version)} ({where}), "
            f"but the kernels need Python >= {_dotted(KERNELS_FLOOR)}; nothing was written "
            f"(raise the target's floor to >={_dotted(KERNELS_FLOOR)} first)"
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
