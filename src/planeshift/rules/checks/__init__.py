"""Hazard checks: one rule per module, registered with ``@register`` and found automatically."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from typing import TYPE_CHECKING

from ...types import Finding, Registration, ordered_flags
from .base import REGISTRY, Hazard, Rule, register

if TYPE_CHECKING:
    from ...project import ProjectFacts

__all__ = ["REGISTRY", "Hazard", "Rule", "register", "all_rules", "run_checks"]


def all_rules() -> list[type[Rule]]:
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base":
            importlib.import_module(f"{__name__}.{info.name}")
    return sorted(REGISTRY.values(), key=lambda r: r.code)


def run_checks(project: ProjectFacts) -> tuple[list[Finding], list[Registration]]:
    """Every rule's findings, in tree order, and the registrations flagged with the kinds of the
    hazards found on them."""
    findings: list[Finding] = []
    flags: dict[tuple, list[str]] = {}
    for rule in all_rules():
        for hazard in rule().check(project):
            findings.append(hazard.finding)
            if hazard.registration is not None:
                flags.setdefault(hazard.registration.key, []).append(rule.kind)
    registrations = [
        replace(reg, flags=ordered_flags((*reg.flags, *flags[reg.key]))) if reg.key in flags
        else reg
        for reg in project.registrations
    ]
    findings.sort(key=lambda f: (f.file, f.line, f.col, f.rule))
    return findings, registrations
