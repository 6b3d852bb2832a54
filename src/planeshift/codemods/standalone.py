"""A codemod run alone (``python -m libcst.tool codemod``) scans its project itself, once."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from libcst.codemod import CodemodContext

from .facts import MigrateFacts, MigrateOptions


class Alone(Protocol):
    """What running alone needs of a codemod (a ``base.Codemod``, which calls this module)."""

    cli_options: dict[str, Any]

    @classmethod
    def plan(cls, facts: MigrateFacts) -> Any: ...

    def warn(self, warning: str) -> None: ...

_FACTS: dict[tuple, MigrateFacts] = {}  # per project root and options, for this process


def standalone_items(codemod: Alone, context: CodemodContext
                     ) -> tuple[MigrateFacts, list[Any]]:
    """The facts of the project holding ``context.filename`` and the codemod's items in it; what
    its plan refuses in this file becomes a warning LibCST's tool prints."""
    if not context.filename:
        return _facts(Path.cwd(), codemod.cli_options), []
    path = Path(context.filename).resolve()
    root = _root(path)
    facts = _facts(root, codemod.cli_options)
    rel = path.relative_to(root).as_posix()
    plan = type(codemod).plan(facts)
    for refused in plan.refused:
        if refused.file == rel:
            codemod.warn(f"{refused.file}:{refused.line}: {refused.reason}")
    return facts, plan.items.get(rel, [])


def _root(path: Path) -> Path:
    from ..lint.scope import default_root

    root = default_root(Path.cwd())
    return root if path.is_relative_to(root) else default_root(path.parent)


def _facts(root: Path, cli: dict) -> MigrateFacts:
    key = (root, tuple(sorted(cli.items())))
    if key not in _FACTS:
        from .. import api
        from ..config import load_config

        config = load_config(root)
        options = MigrateOptions(kernel_module=cli.get("kernel_module"),
                                 convert_discard=bool(cli.get("convert_discard")))
        seen: dict[str, tuple[str, str, bool]] = {}  # the files the scan listed and read
        scan = api.scan(config, seen=seen)
        _FACTS[key] = MigrateFacts(config, scan, api.load_packs(config), options, scanned=seen)
    return _FACTS[key]
