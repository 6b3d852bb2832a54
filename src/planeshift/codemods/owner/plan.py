"""The owners a project has: each dispatcher class whose dispatch paths the scan read, with the
reasons to leave one alone that the scan's facts already give (no parsing here).

An owner is one mechanism's dispatcher class in one file of the project (a library read as
context is not rewritten). Its dispatch paths are the methods that fire its handlers; an owner
is rewritten whole or not at all, so a refusal of one path leaves the others as they are too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ... import fsio
from ...types import DispatchPath
from ..facts import MigrateFacts
from .policy import scan_gate


@dataclass(frozen=True)
class Owner:
    mechanism: str
    file: str
    cls: str
    paths: tuple[DispatchPath, ...]
    kernel: str  # the import path of the kernels in the project
    gates: tuple[tuple[str, str], ...] = ()  # (entry, why the scan's policy is not complete)

    @property
    def line(self) -> int:
        return min(p.line for p in self.paths)

    def entry(self, path: DispatchPath) -> str:
        return path.entry.rpartition(".")[2]


@dataclass(frozen=True)
class Refusal:
    mechanism: str
    file: str
    line: int
    entry: str
    reason: str


def owners(facts: MigrateFacts) -> tuple[list[Owner], list[Refusal]]:
    """Every owner of the project in scope, and the dispatch paths refused on the facts alone."""
    found: dict[tuple[str, str, str], list[DispatchPath]] = defaultdict(list)
    refused: list[Refusal] = []
    for mech in facts.scan.mechanisms:
        for path in mech.dispatch_paths:
            if not facts.in_scope(path.file) or not (facts.root / path.file).is_file():
                continue  # outside the paths given, or a library read as context
            cls, _, _method = path.entry.rpartition(".")
            if not cls or "." in cls or "<" in path.entry:
                what = "a module function" if not cls else "not a method of a top-level class"
                refused.append(Refusal(mech.id, path.file, path.line, path.entry,
                                       f"not an owner: {path.entry} is {what}; Phase 1 rewrites "
                                       "the dispatch loops of dispatcher classes (façades)"))
                continue
            if facts.options.owner in (None, f"{mech.id}:{cls}"):
                found[(mech.id, path.file, cls)].append(path)
    out = []
    for (mechanism, file, cls), paths in sorted(found.items()):
        kernel = facts.kernel(facts.mechanisms[mechanism][1]) if mechanism in facts.mechanisms \
            else "planeshift.kernels"
        missing = kernel_missing(facts.root, kernel)
        if missing:
            refused += [Refusal(mechanism, file, p.line, p.entry, missing) for p in paths]
            continue
        # an incomplete policy refuses the owner; the codemod still reads its loops, since what
        # a loop does that the kernels cannot is the better reason
        gates = tuple((p.entry, gate) for p in paths if (gate := scan_gate(p)) is not None)
        out.append(Owner(mechanism, file, cls, tuple(sorted(paths, key=lambda p: p.line)), kernel,
                         gates))
    return out, refused


def kernel_missing(root: Path, kernel: str) -> str | None:
    """Why the kernels' ``fan_out`` cannot be imported as *kernel* in the project, or None.

    The kernels are looked for in the tree (never imported: planeshift does not import the code
    it migrates); ``planeshift.kernels`` is planeshift's own copy.
    """
    for folder in _folders(root, kernel):
        if (folder / "__init__.py").is_file():
            if _has(folder / "entries.py", "def fan_out") and \
                    _has(folder / "policy.py", "def from_axes"):
                return None
            return (f"the kernels at {folder} predate fan_out and DispatchPolicy.from_axes: "
                    "vendor them again with `planeshift kernels vendor`")
    return (f"the kernels are not in the project as {kernel}: run `planeshift kernels vendor "
            "--into <package>/runtime/dispatch` first, or give --kernel-module")


def sync_kernel_missing(root: Path, kernel: str) -> str | None:
    """Why the kernels in the project have no ``fan_out_sync`` (a sync entry's kernel), or None."""
    for folder in _folders(root, kernel):
        if (folder / "__init__.py").is_file():
            if _has(folder / "entries_sync.py", "def fan_out_sync"):
                return None
            return (f"sync entry: the kernels at {folder} predate fan_out_sync, a sync entry's "
                    "kernel: vendor them again with `planeshift kernels vendor`")
    return kernel_missing(root, kernel)


def _folders(root: Path, kernel: str) -> list[Path]:
    """Where the kernels imported as *kernel* may be (never imported: planeshift does not import
    the code it migrates); ``planeshift.kernels`` is planeshift's own copy."""
    parts = kernel.split(".")
    folders = [root.joinpath(*parts)]
    if root.name == parts[0]:
        folders.append(root.joinpath(*parts[1:]))
    if parts[0] == "planeshift":
        folders.append(Path(__file__).resolve().parents[2].joinpath(*parts[1:]))
    return folders


def _has(path: Path, text: str) -> bool:
    try:
        return text in fsio.read_text(path)
    except OSError:
        return False
