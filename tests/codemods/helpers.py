"""check_transformed / check_noop: a module (with the tests' demo bus) migrated for real."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

from planeshift.codemods import migrate
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.model import MigrateResult
from planeshift.config import Config


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run(root: Path, codemods: tuple[str, ...] = (), write: bool = True, **options: object
        ) -> MigrateResult:
    config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1,
                    owners=(("**", "@demo-team"),))
    return migrate(config, MigrateOptions(select=codemods, write=write, **options))  # type: ignore[arg-type]


def check_transformed(tmp_path: Path, before: str, after: str, codemods: tuple[str, ...] = (),
                      path: str = "app.py", files: dict[str, str] | None = None,
                      **options: object) -> MigrateResult:
    """Migrate *before* (written to *path* next to the demo bus) and compare with *after*, which
    must parse; a second run must change nothing."""
    expected = dedent(after)
    if path.endswith(".py"):
        ast.parse(expected)
    write_tree(tmp_path, {**DEMO_FILES, **(files or {}), path: dedent(before)})
    result = run(tmp_path, codemods, **options)
    assert not result.failed, [n for n in result.not_migrated if n.error]
    actual = (tmp_path / path).read_text(encoding="utf-8")
    assert actual == expected, "\n" + "".join(c.diff for c in result.changes)
    again = run(tmp_path, codemods, **options)
    assert again.changes == (), "not idempotent:\n" + "".join(c.diff for c in again.changes)
    return result


def check_noop(tmp_path: Path, before: str, codemods: tuple[str, ...] = (), path: str = "app.py",
               **options: object) -> MigrateResult:
    """Nothing in *before* is migrated: the file stays byte for byte as it was."""
    write_tree(tmp_path, {**DEMO_FILES, path: dedent(before)})
    original = (tmp_path / path).read_bytes()
    result = run(tmp_path, codemods, **options)
    assert result.changes == ()
    assert (tmp_path / path).read_bytes() == original
    return result
