"""The JSON report: golden output, the contract's names and order, determinism."""

from __future__ import annotations

import json

from planeshift.reports.json_report import SCHEMA_ID, render_json, to_dict
from planeshift.types import PLANES

from .golden import check_golden
from .sample import empty_result, sample_result


def test_sample_matches_golden() -> None:
    check_golden("sample.json", render_json(sample_result()))


def test_empty_result_matches_golden() -> None:
    check_golden("empty.json", render_json(empty_result()))


def test_top_level_keys_are_the_contract() -> None:
    data = to_dict(sample_result())
    assert list(data) == ["schema", "root", "packs", "summary", "registrations", "emissions",
                          "mechanisms", "findings", "errors", "context", "library_registrations",
                          "stats"]
    assert data["schema"] == SCHEMA_ID == "planeshift.report/1"


def test_registration_carries_handler_evidence_and_location() -> None:
    reg = to_dict(sample_result())["registrations"][0]
    assert list(reg) == ["file", "line", "col", "end_line", "end_col", "mechanism", "api", "point", "handler", "plane",
                         "confidence", "evidence", "flags", "via", "scope", "rule", "activations"]
    assert reg["handler"] == {"expr": "guard", "qualname": "app.hooks.guard",
                              "declared_async": True, "returns_awaitable": True,
                              "kind": "function"}
    assert reg["evidence"][1] == "bus is a HookBus instance"


def test_summary_counts_every_plane_and_mechanism() -> None:
    summary = to_dict(sample_result())["summary"]
    assert list(summary["planes"]) == list(PLANES)
    assert summary["planes"]["subscriber"] == 2
    assert summary["planes"]["delivery_sink"] == 0
    assert summary["mechanisms"] == {"hookbus": 2, "broadcaster": 2, "outbox": 0}
    assert (summary["files_scanned"], summary["files_with_sites"], summary["errors"]) == (5, 3, 1)


def test_mechanism_maps_planes_and_policy() -> None:
    mech = to_dict(sample_result())["mechanisms"][0]
    assert mech["planes"] == {"interceptor": 1, "needs_review": 1}
    assert mech["policy"] == {"concurrency": "sequential", "failure": "isolate"}


def test_output_is_deterministic_indented_and_newline_terminated() -> None:
    text = render_json(sample_result())
    assert text == render_json(sample_result())
    assert text.endswith("}\n")
    assert text.splitlines()[1].startswith('  "schema"')
    assert json.loads(text) == to_dict(sample_result())
