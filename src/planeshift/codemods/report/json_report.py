"""The machine-readable migration report: a MigrateResult as the ``planeshift.migrate/1`` contract."""

from __future__ import annotations

import json
from typing import Any

from ..model import MigrateResult
from .owners import OWNER_CODEMODS, owners

SCHEMA_ID = "planeshift.migrate/1"


def migrate_dict(result: MigrateResult) -> dict[str, Any]:
    out = {
        "schema": SCHEMA_ID,
        "root": result.root,
        "mode": result.mode,
        "codemods": list(result.codemods),
        "kernel_modules": list(result.kernel_modules),
        "failed": result.failed,
        "pending": result.pending,
        "summary": {
            "migrated": len(result.migrated),
            "not_migrated": len(result.not_migrated),
            "errors": sum(1 for n in result.not_migrated if n.error),
            "already": result.already,
            "files_changed": len(result.changes),
            "files_written": sum(1 for c in result.changes if c.written),
        },
        "migrated": [m.to_json() for m in result.migrated],
        "not_migrated": [n.to_json() for n in result.not_migrated],
        "files": [c.to_json() for c in result.changes],
        "errors": [e.to_json() for e in result.errors],
        "stats": dict(result.stats),
    }
    if set(result.codemods) & OWNER_CODEMODS:  # --owners: each owner, rewritten or refused
        out["owners"] = owners(result)
    return out


def render_migrate_json(result: MigrateResult) -> str:
    return json.dumps(migrate_dict(result), indent=2, ensure_ascii=False, default=str) + "\n"


def load_migrate_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every planeshift.migrate/1 document satisfies."""
    from importlib import resources

    text = (resources.files("planeshift") / "schema" / "migrate.schema.json").read_text("utf-8")
    return json.loads(text)
