"""SARIF 2.1.0: valid against the official schema, with rules, columns, fingerprints and
suppressions as code-scanning tools read them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from lint.helpers import HAZARD, lint_project, module, write_project

from planeshift import __version__
from planeshift.reports.sarif import render_sarif, sarif_dict
from planeshift.rules.catalog import documented_rules

from .lint_sample import clean_sample, lint_sample
from .sarif_schema import sarif_errors


def test_sample_and_clean_results_are_valid_sarif() -> None:
    assert sarif_errors(json.loads(render_sarif(lint_sample()))) == []
    assert sarif_errors(sarif_dict(clean_sample())) == []


def test_the_validator_rejects_broken_sarif() -> None:
    doc = copy.deepcopy(sarif_dict(lint_sample()))
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    doc["runs"][0]["results"][1]["level"] = "fatal"
    assert len(sarif_errors(doc)) == 2


def test_driver_describes_every_rule_from_its_docs() -> None:
    driver = sarif_dict(lint_sample())["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("planeshift", __version__)
    assert driver["informationUri"].startswith("https://")
    rules = {r["id"]: r for r in driver["rules"]}
    assert list(rules) == [r.code for r in documented_rules()]
    ps101 = rules["PS101"]
    assert ps101["name"] == "discard_unawaited"
    assert ps101["shortDescription"]["text"].startswith("Flag every registration")
    assert ps101["fullDescription"]["text"].startswith("Lists each registration")
    assert "## Why is this bad?" in ps101["help"]["text"]
    assert ps101["help"]["markdown"].startswith("# PS101 discard_unawaited")
    assert ps101["defaultConfiguration"] == {"enabled": True, "level": "error"}
    assert rules["PS103"]["defaultConfiguration"]["level"] == "warning"
    assert rules["PS107"]["defaultConfiguration"] == {"enabled": False, "level": "error"}


def test_results_have_one_based_columns_end_positions_and_fingerprints() -> None:
    run = sarif_dict(lint_sample())["runs"][0]
    first = run["results"][1]
    assert first["ruleId"] == "PS101"
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "PS101"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "app/session.py", "uriBaseId": "PROJECTROOT"}
    assert location["region"] == {"startLine": 44, "startColumn": 9, "endLine": 45, "endColumn": 31}
    assert first["partialFingerprints"] == {"planeshift/v1": "0123456789abcdef:0"}
    assert first["properties"]["owner"] == "@hooks-team"
    assert first["message"]["text"].endswith("(owner: @hooks-team)")
    assert run["originalUriBaseIds"]["PROJECTROOT"]["uri"] == "file:///project/"
    assert run["results"][0]["level"] == "warning" and run["results"][2]["level"] == "note"


def test_suppressed_and_baselined_results_carry_suppressions() -> None:
    results = sarif_dict(lint_sample())["runs"][0]["results"]
    by_status = {r["properties"]["status"]: r for r in results}
    assert by_status["suppressed"]["suppressions"] == [
        {"kind": "inSource", "justification": "sent again by the retry queue"}]
    assert by_status["baselined"]["suppressions"][0]["kind"] == "external"
    assert "suppressions" not in by_status["open"]


def test_unanalysable_files_are_notifications() -> None:
    invocation = sarif_dict(lint_sample())["runs"][0]["invocations"][0]
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "app/broken.py" in note["message"]["text"]


def test_a_fixture_project_gives_valid_sarif(tmp_path: Path) -> None:
    other = HAZARD.replace("bus", "other")
    files = {"app/main.py": module(f"{HAZARD}\nx = 1  # planeshift: ignore[PS101] stale\n"
                                   f"{other}  # planeshift: ignore[PS101] ok\n"),
             "app/broken.py": "def f(:\n", "app/ünïcode.py": module(HAZARD)}
    write_project(tmp_path, files, 'owners = {"app/**" = "@app"}\n')
    doc = json.loads(render_sarif(lint_project(tmp_path, ["app"])))
    assert sarif_errors(doc) == []
    results = doc["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["PS101", "PS101", "PS101", "PS902"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"app/main.py", "app/%C3%BCn%C3%AFcode.py"}
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    # `bus = EventBus(on_event=[...])`: the keyword at 0-based col 15, ending before col 55
    assert {"startLine": 6, "startColumn": 16, "endLine": 6, "endColumn": 56} in regions
    assert [r["suppressions"][0]["kind"] for r in results if "suppressions" in r] == ["inSource"]
