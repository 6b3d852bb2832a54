"""The user-written buses of tests/fixtures/characterize, characterized, and their mutants."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from planeshift import api
from planeshift.characterize.model import Characterization
from planeshift.config import Config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "characterize"
PACK = FIXTURES / "userbus.yaml"


def copy_buses(folder: Path) -> Path:
    """A copy of the userbus package in *folder* (which the copy's tests put on PYTHONPATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(FIXTURES / "userbus", folder / "userbus",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def characterize_buses(folder: Path) -> Characterization:
    """Scan ``folder/userbus`` with the userbus pack alone and plan its characterization."""
    return api.characterize(Config(root=folder / "userbus", packs=(PACK,), builtin_packs=(),
                                   use_cache=False, use_context=False, jobs=1))


@dataclass(frozen=True)
class Mutant:
    """One edit to one bus, and the generated tests (by name prefix) it must turn red."""

    id: str
    path: str
    old: str
    new: str
    must_fail: tuple[str, ...]

    def apply(self, folder: Path) -> None:
        target = folder / "userbus" / self.path
        source = target.read_text()
        assert source.count(self.old) == 1, f"{self.path}: {self.old!r} must occur once"
        target.write_text(source.replace(self.old, self.new))


def failed_tests(stdout: str) -> set[str]:
    """The names of the tests a pytest -rf summary lists as FAILED (parameters dropped)."""
    return {m.group(1) for m in re.finditer(r"^FAILED \S*?::(test_\w+)", stdout, re.MULTILINE)}
