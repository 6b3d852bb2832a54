"""Suppression rules: what `planeshift lint` reports about its own ``# planeshift: ignore``
comments, one rule per module, registered with ``@register`` and found automatically.

They live beside ``rules/checks/`` rather than in it: a check runs on every scan over the
linked project, while these run only in the lint gate, over comments. Both kinds are documented
alike (``rules/catalog.py`` lists them together for `planeshift explain` and ``docs/rules/``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .base import REGISTRY, SuppressionRule, register

if TYPE_CHECKING:
    from ...types import Finding, Suppression

__all__ = ["REGISTRY", "SuppressionRule", "all_suppression_rules", "register",
           "run_suppression_rules"]


def all_suppression_rules() -> list[type[SuppressionRule]]:
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base":
            importlib.import_module(f"{__name__}.{info.name}")
    return sorted(REGISTRY.values(), key=lambda r: r.code)


def run_suppression_rules(comments: Sequence[Suppression]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in all_suppression_rules():
        findings.extend(rule().check(comments))
    return sorted(findings, key=lambda f: (f.file, f.line, f.col, f.rule, f.message))
