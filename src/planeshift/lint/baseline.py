"""The lint baseline: known findings recorded by fingerprint, so only new ones fail the gate.

The file is ``planeshift.baseline/1`` JSON, entries sorted by file, rule and fingerprint, so it
diffs well; the CLI writes it atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import fsio
from ..types import InputError
from .scope import Scope

SCHEMA_ID = "planeshift.baseline/1"
FIELDS = ("file", "rule", "kind", "fingerprint", "message")


class BaselineError(InputError):
    """A baseline file that cannot be read or is not a planeshift.baseline/1 document."""


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    file: str
    rule: str
    kind: str
    fingerprint: str
    message: str  # for the reader of the file; matching uses file and fingerprint only

    @property
    def key(self) -> tuple[str, str]:
        return (self.file, self.fingerprint)

    def to_json(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in FIELDS}


def load_baseline(path: Path) -> tuple[BaselineEntry, ...]:
    label = str(path)
    try:
        data = json.loads(fsio.read_text(path))
    except FileNotFoundError as exc:
        raise BaselineError(label, "<file>", "no such file (write one with `planeshift baseline -o "
                            f"{path}`)") from exc
    except OSError as exc:
        raise BaselineError(label, "<file>", f"cannot read: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BaselineError(label, "<file>", f"not JSON: {exc}") from exc
    except RecursionError as exc:
        raise BaselineError(label, "<file>", "JSON nested too deeply to read") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA_ID:
        raise BaselineError(label, "schema", f"expected a {SCHEMA_ID} document")
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(label, "findings", "expected a list")
    return tuple(_entry(item, label, i) for i, item in enumerate(findings))


def _entry(item: Any, label: str, index: int) -> BaselineEntry:
    if not isinstance(item, dict):
        raise BaselineError(label, f"findings[{index}]", "expected an object")
    for name in FIELDS:
        if not isinstance(item.get(name), str):
            raise BaselineError(label, f"findings[{index}].{name}", "expected a string")
    extra = sorted(set(item) - set(FIELDS))
    if extra:
        raise BaselineError(label, f"findings[{index}].{extra[0]}", "unknown key")
    return BaselineEntry(*(item[name] for name in FIELDS))


def render_baseline(entries: Iterable[BaselineEntry]) -> str:
    ordered = sorted(set(entries), key=lambda e: (e.file, e.rule, e.fingerprint, e.message))
    doc = {"schema": SCHEMA_ID, "findings": [e.to_json() for e in ordered]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def merge(old: Iterable[BaselineEntry], new: Iterable[BaselineEntry],
          scope: Scope) -> list[BaselineEntry]:
    """The new entries, plus the old ones for files outside *scope* (a partial run keeps them)."""
    return [*(e for e in old if e.file not in scope), *new]
