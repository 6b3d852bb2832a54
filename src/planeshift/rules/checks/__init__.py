"""Hazard checks: one rule per module, registered with ``@register`` and found automatically."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .base import REGISTRY, Rule, register

if TYPE_CHECKING:
    from ...analyzer.link.linker import Linked
    from ...types import Finding, ScanResult

__all__ = ["REGISTRY", "Rule", "register", "all_rules", "run_checks"]


def all_rules() -> list[type[Rule]]:
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base":
            importlib.import_module(f"{__name__}.{info.name}")
    return sorted(REGISTRY.values(), key=lambda r: r.code)


def run_checks(result: ScanResult, linked: Linked) -> Iterator[Finding]:
    findings = []
    for rule in all_rules():
        findings.extend(rule().check(result, linked))
    yield from sorted(findings, key=lambda f: (f.file, f.line, f.col, f.rule))
