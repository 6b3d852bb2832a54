"""The official SARIF 2.1.0 JSON Schema, vendored in tests/data (see its README for the origin)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"


@functools.cache
def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    checker = jsonschema.Draft4Validator.FORMAT_CHECKER
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def sarif_errors(doc: Any) -> list[str]:
    """Every way *doc* breaks the SARIF 2.1.0 schema, as ``path: message``."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in _validator().iter_errors(doc)]
