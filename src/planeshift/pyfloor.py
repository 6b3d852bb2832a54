"""The oldest Python a project supports, read from what it declares (``requires-python`` in
pyproject.toml, ``python_requires`` in setup.cfg) as text, never executed: `kernels vendor`
vendors for it or refuses (the kernels run on 3.10 and later)."""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "KERNELS_FLOOR",
    "FloorError",
    "PythonFloor",
    "dotted",
    "project_root",
    "python_floor",
    "target_floor",
]

KERNELS_FLOOR = (3, 10)  # the oldest Python the kernels run on (kernels/_compat.py)
_PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


class FloorError(Exception):
    """The project's declared Python versions cannot be read."""


def project_root(into: Path) -> Path | None:
    """The nearest folder above `into` holding a pyproject.toml, setup.cfg or setup.py."""
    for folder in Path(into).resolve().parents:
        if any((folder / name).is_file() for name in _PROJECT_FILES):
            return folder
    return None


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
            return f"Python >= {dotted(KERNELS_FLOOR)} (the kernels' own floor; {where})"
        where = f"requires-python {self.spec!r} in {self.source}" if self.source else (
            f"--requires-python {self.spec!r}")
        return f"Python >= {dotted(self.version)} ({where})"


def dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def target_floor(into: Path, requires_python: str | None = None) -> PythonFloor:
    """The Python floor of the project `into` belongs to: `requires_python` when given, else
    ``[project] requires-python`` in its pyproject.toml, else ``[options] python_requires`` in
    its setup.cfg (both read as text, never executed). FloorError when it cannot be read."""
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
        raise FloorError(f"requires-python {spec!r}{f' in {source}' if source else ''} admits no "
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
            raise FloorError(f"cannot read {pyproject}: {exc}") from exc
        if isinstance(project.get("requires-python"), str):
            spec, source = project["requires-python"], pyproject
        deps += [d for d in project.get("dependencies", []) if isinstance(d, str)]
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(setup_cfg, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError) as exc:
            raise FloorError(f"cannot read {setup_cfg}: {exc}") from exc
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
