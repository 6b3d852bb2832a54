"""SARIF 2.1.0 for code-scanning tools: every rule with its docs, every finding in scope.

Columns: planeshift counts 0-based characters, SARIF 1-based (``columnKind`` says characters are
code points). Suppressed findings carry an ``inSource`` suppression with the comment's reason,
baselined ones an ``external`` one, so a viewer shows them as dismissed, not as new.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..lint.model import LintFinding, LintResult
from ..rules.catalog import DocumentedRule, documented_rules
from ..rules.docs import rule_page, section, summary

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
INFORMATION_URI = "https://planeshift.dev"  # the project's name space, as in its JSON Schemas
ROOT_ID = "PROJECTROOT"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT = "planeshift/v1"


def sarif_dict(result: LintResult) -> dict[str, Any]:
    rules = documented_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    levels = dict(result.severity)
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "planeshift",
            "version": __version__,
            "informationUri": INFORMATION_URI,
            "rules": [_rule(rule, levels.get(rule.code, rule.severity)) for rule in rules],
        }},
        "originalUriBaseIds": {ROOT_ID: {"uri": Path(result.root).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(item, index) for item in result.findings],
        "invocations": [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [_notification(e.file, e.message) for e in result.errors],
        }],
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(result: LintResult) -> str:
    return json.dumps(sarif_dict(result), indent=2, ensure_ascii=False) + "\n"


def _rule(rule: type[DocumentedRule], level: str) -> dict[str, Any]:
    enabled = level != "off"
    return {
        "id": rule.code,
        "name": rule.kind,
        "shortDescription": {"text": summary(rule)},
        "fullDescription": {"text": section(rule, "What it does") or summary(rule)},
        "help": {"text": inspect.cleandoc(rule.__doc__ or ""), "markdown": rule_page(rule)},
        "defaultConfiguration": {"enabled": enabled,
                                 "level": LEVEL[level if enabled else rule.severity]},
    }


def _location(file: str) -> dict[str, Any]:
    return {"artifactLocation": {"uri": quote(file), "uriBaseId": ROOT_ID}}


def _result(item: LintFinding, index: dict[str, int]) -> dict[str, Any]:
    f = item.finding
    region: dict[str, int] = {"startLine": f.line, "startColumn": f.col + 1}
    end_line, end_col = getattr(f, "end_line", None), getattr(f, "end_col", None)
    if end_line is not None:
        region["endLine"] = end_line
    if end_col is not None:
        region["endColumn"] = end_col + 1  # the column after the region, 1-based
    owner = f" (owner: {item.owner})" if item.owner else ""
    out: dict[str, Any] = {
        "ruleId": f.rule,
        "level": LEVEL[f.severity],
        "message": {"text": f"{f.message}{owner}"},
        "locations": [{"physicalLocation": {**_location(f.file), "region": region}}],
        "partialFingerprints": {FINGERPRINT: item.fingerprint},
        "properties": {"kind": f.kind, "severity": f.severity, "mechanism": f.mechanism,
                       "owner": item.owner, "status": item.status},
    }
    if f.rule in index:
        out["ruleIndex"] = index[f.rule]
    if item.reached_from:  # judged because a change to these files reaches it
        out["relatedLocations"] = [
            {"id": i, "physicalLocation": _location(rel),
             "message": {"text": "changed; the finding is judged through it"}}
            for i, rel in enumerate(item.reached_from)]
    if item.status != "open":
        kind = "inSource" if item.status == "suppressed" else "external"
        out["suppressions"] = [{"kind": kind, "justification": item.justification}]
    return out


def _notification(file: str, message: str) -> dict[str, Any]:
    return {"level": "error", "message": {"text": f"{file}: cannot be analysed: {message}"},
            "locations": [{"physicalLocation": _location(file)}]}
