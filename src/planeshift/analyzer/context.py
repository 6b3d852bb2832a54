"""Context roots: the source of the libraries the packs describe, read to link a project that
uses them (their types, re-exports, façades, dispatch loops and emitters) and never reported.

A pack names its package (``package: lionagi``). Its source is found, without importing
anything, in the folders ``--context`` and ``[tool.planeshift] context`` give (a folder holding
the package, the package folder itself, or a site-packages), else on the running interpreter's
path, else in the scanned project's own environment (``$VIRTUAL_ENV``, ``.venv/``, ``venv/``),
since a linter usually runs from an isolated environment of its own. A package whose source is
in the scanned tree itself needs no context.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import fsio
from ..packs.model import Pack
from .discover import SourceFile, discover

PREFIX = "<context>/"  # a context file's path in facts: never one of the tree's


@dataclass(frozen=True, slots=True)
class ContextRoot:
    package: str
    folder: Path  # the package's own folder (it holds __init__.py)
    version: str | None  # from its dist-info or egg-info, when one is beside it
    origin: str  # where it was found: --context / config, sys.path, $VIRTUAL_ENV, .venv, venv


def is_context(path: str) -> bool:
    return path.startswith(PREFIX)


def find_roots(packs: Sequence[Pack], root: Path, given: Sequence[Path], tree_modules: set[str],
               search_path: Sequence[str] | None = None, look: bool = True,
               mentions: Callable[[str], bool] = lambda package: True,
               ) -> tuple[list[ContextRoot], list[str]]:
    """The context root of every pack's package, and the packages found nowhere (all of them,
    when *look* is off). A pack with ``context: false`` is looked for only where --context
    points, and is never reported missing; nor is one the tree never *mentions* (no file of it
    spells the package's name): an installed copy is not read for a project that does not use
    it (a Django project scanned from a venv that holds lionagi)."""
    roots: list[ContextRoot] = []
    missing: list[str] = []
    searched = {p.package for p in packs if p.package and p.context}
    for package in dict.fromkeys(p.package for p in packs if p.package):
        if package in tree_modules or any(m.startswith(f"{package}.") for m in tree_modules):
            continue  # the package is the scanned tree (or part of it)
        used = package in searched and mentions(package)  # (read once, on the first ask)
        found = None
        if look and used:
            found = _locate(package, root, given,
                            sys.path if search_path is None else search_path)
        elif look:
            found = _given(package, given)  # only where --context points
        if found is not None:
            roots.append(found)
        elif used:
            missing.append(package)
    return roots, missing


def context_files(roots: Iterable[ContextRoot]) -> list[SourceFile]:
    """Every Python file of each root's package, named as the package's modules."""
    out: list[SourceFile] = []
    for ctx in roots:
        for f in discover(ctx.folder, use_gitignore=False):
            out.append(SourceFile(f.path, f"{PREFIX}{ctx.package}/{f.rel}", f.module,
                                  f.is_package))
    return out


def _given(package: str, given: Sequence[Path]) -> ContextRoot | None:
    for folder in given:
        found = _package_in(folder, package)
        if found is not None:
            return ContextRoot(package, found, _version(found), "--context / config")
    return None


def _locate(package: str, root: Path, given: Sequence[Path],
            search_path: Sequence[str]) -> ContextRoot | None:
    found = _given(package, given)
    if found is not None:
        return found
    for entry in search_path:
        if entry and (found := _package_in(Path(entry), package)) is not None:
            return ContextRoot(package, found, _version(found), "sys.path")
    envs = [("$VIRTUAL_ENV", Path(os.environ["VIRTUAL_ENV"]))] if os.environ.get(
        "VIRTUAL_ENV") else []
    envs += [(".venv", root / ".venv"), ("venv", root / "venv")]
    for origin, env in envs:
        for site in sorted(env.glob("lib/python3*/site-packages")) + [env / "Lib" / "site-packages"]:
            if (found := _package_in(site, package)) is not None:
                return ContextRoot(package, found, _version(found), origin)
    return None


def _package_in(folder: Path, package: str) -> Path | None:
    """The package's folder: *folder* itself, or its child of that name."""
    try:
        if folder.name == package and (folder / "__init__.py").is_file():
            return folder.resolve()
        candidate = folder / package
        if (candidate / "__init__.py").is_file():
            return candidate.resolve()
    except OSError:
        return None
    return None


def _version(folder: Path) -> str | None:
    """The distribution's version, from a ``<name>-<version>.dist-info`` (or egg-info) beside it."""
    name = folder.name.replace("-", "_").lower()
    try:
        infos = sorted(folder.parent.glob("*.dist-info")) + sorted(folder.parent.glob("*.egg-info"))
    except OSError:
        return None
    for info in infos:
        stem = info.name.rsplit(".", 1)[0]
        dist, _, version = stem.partition("-")
        if dist.replace("-", "_").lower() == name and version:
            return version
    return None


def mentioned_in(files: Sequence[SourceFile]) -> Callable[[str], bool]:
    """Whether any of *files* spells a package's name (its bytes are read once, on the first
    question; a file that cannot be read says nothing)."""
    texts: list[bytes] | None = None

    def mentions(package: str) -> bool:
        nonlocal texts
        if texts is None:
            texts = []
            for f in files:
                try:
                    texts.append(fsio.read_bytes(f.path))
                except OSError:
                    continue
        word = package.encode()
        return any(word in text for text in texts)

    return mentions
