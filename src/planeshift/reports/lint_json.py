"""The machine-readable lint report: a LintResult as the ``planeshift.lint/1`` JSON contract."""

from __future__ import annotations

import json
from typing import Any

from ..lint.model import LintResult
from .jsontext import dumps_indented

SCHEMA_ID = "planeshift.lint/1"


def lint_dict(result: LintResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA_ID,
        "root": result.root,
        "paths": list(result.paths),
        "fail_on": result.fail_on,
        "failed": result.failed,
        "baseline": result.baseline,
        "summary": {
            "findings": len(result.open),
            "severity": result.by_severity(),
            "suppressed": result.count("suppressed"),
            "baselined": result.count("baselined"),
            "baseline_fixed": result.baseline_fixed,
            "errors": len(result.errors),
            "files_read": result.files_read,
        },
        "findings": [f.to_json() for f in result.findings],
        "errors": [e.to_json() for e in result.errors],
        "stats": dict(result.stats),
    }


def render_lint_json(result: LintResult) -> str:
    return dumps_indented(lint_dict(result), default=str) + "\n"


def load_lint_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every planeshift.lint/1 document satisfies."""
    from importlib import resources

    text = (resources.files("planeshift") / "schema" / "lint.schema.json").read_text("utf-8")
    return json.loads(text)
