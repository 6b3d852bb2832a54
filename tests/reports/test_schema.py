"""The JSON report satisfies report.schema.json, checked by a small stdlib-only validator."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from shared_cache import FOLDER as SHARED_CACHE

from planeshift.reports.json_report import PLANES, load_schema, to_dict

from .sample import empty_result, sample_result

TYPES: dict[str, Any] = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def validate(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "$") -> list[str]:
    """Errors for the subset of draft 2020-12 the report schema uses."""
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return validate(value, target, root, path) + (validate(value, rest, root, path) if rest else [])
    errors: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{path}: expected {'|'.join(kinds)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        errors.append(f"{path}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        errors += [f"{path}: missing {key}" for key in schema.get("required", ()) if key not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errors += validate(item, props[key], root, f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unexpected key {key}")
            elif isinstance(extra, dict):
                errors += validate(item, extra, root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(item, schema["items"], root, f"{path}[{i}]")
    return errors


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return load_schema()


def test_schema_declares_draft_2020_12(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["schema"]["enum"] == ["planeshift.report/1"]


@pytest.mark.parametrize("make", [sample_result, empty_result])
def test_report_validates(schema: dict[str, Any], make: Any) -> None:
    data = json.loads(json.dumps(to_dict(make())))
    assert validate(data, schema, schema) == []


def test_plane_enum_matches_the_packs_planes(schema: dict[str, Any]) -> None:
    assert schema["$defs"]["plane"]["enum"] == list(PLANES)
    assert schema["$defs"]["confidence"]["enum"] == ["high", "medium", "low"]
    assert schema["$defs"]["severity"]["enum"] == ["error", "warning", "info"]


def _mutate(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    *parents, last = path.split(".")
    target: Any = out
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return out


@pytest.mark.parametrize(("path", "value", "message"), [
    ("registrations.0.plane", "listener", "not in"),
    ("registrations.0.confidence", "certain", "not in"),
    ("registrations.0.line", 0, "< 1"),
    ("registrations.0.handler.declared_async", "yes", "expected boolean|null"),
    ("registrations.0.evidence", "one string", "expected array"),
    ("registrations.0.rule", KeyError, "missing rule"),
    ("findings.0.severity", "fatal", "not in"),
    ("errors.0.extra", 1, "unexpected key extra"),
    ("summary.planes.subscriber", "2", "expected integer"),
    ("schema", "planeshift.report/2", "not in"),
])
def test_validator_rejects_contract_breaks(
    schema: dict[str, Any], path: str, value: Any, message: str
) -> None:
    data = _mutate(to_dict(sample_result()), path, value)
    errors = validate(data, schema, schema)
    assert any(message in e for e in errors), errors


def test_real_scan_validates(schema: dict[str, Any], tmp_path: Any) -> None:
    from planeshift import api
    from planeshift.config import Config

    (tmp_path / "app.py").write_text(
        "from lionagi.hooks.bus import HookBus, HookPoint\n"
        "bus = HookBus()\n"
        "bus.on(HookPoint.TOOL_PRE, lambda e: None)\n"
        "bus.on(HookPoint.SESSION_START, print)\n"
    )
    (tmp_path / "broken.py").write_text("def f(:\n")
    result = api.scan(Config(root=tmp_path.resolve(), cache_dir=SHARED_CACHE))
    data = json.loads(json.dumps(to_dict(result)))
    assert validate(data, schema, schema) == []
    assert data["errors"][0]["file"] == "broken.py"
