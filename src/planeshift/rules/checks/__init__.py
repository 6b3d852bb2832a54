"""Hazard checks: one rule per module, registered with ``@register`` and found automatically.

Importing this package gives extraction the rules' per-file reader (:func:`file_facts`,
through ``provide_rule_facts``): the rules sit above the analyzer and are not imported by it."""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...analyzer.extract.file import provide_rule_facts
from ...types import Finding, Registration, ordered_flags
from .base import REGISTRY, Hazard, Invalid, Rule, Valid, register
from .names import NAMES, Names, names_of
from .records import to_row
from .syntax import forget

if TYPE_CHECKING:
    from ...project import ProjectFacts

__all__ = ["REGISTRY", "Hazard", "Invalid", "Rule", "Valid", "all_rules", "file_facts", "register",
           "run_checks"]


@functools.cache
def _import_rules() -> None:
    """Import every module here; the rules among them register themselves (the helpers:
    base, syntax, names, hook_stores, lifecycle, records, register nothing)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def all_rules() -> list[type[Rule]]:
    _import_rules()
    return sorted(REGISTRY.values(), key=lambda r: r.code)


def file_facts(tree: ast.Module, text: str) -> tuple[tuple[str, Any], ...]:
    """Each rule's facts about one file, for the rules whose words the file's text contains,
    and the module's imports and classes (``names``), which every file gives for the rules that
    resolve names across modules."""
    try:
        out: list[tuple[str, Any]] = [(NAMES, names_of(tree))]
        for rule in all_rules():
            for word in rule.FACT_WORDS:  # (a loop: cheaper than any() over a generator)
                if word in text:
                    data = rule().file_facts(tree, text)
                    if data is not None:
                        out.append((rule.code, to_row(data)))
                    break
        return tuple(out)
    finally:
        forget()  # the shared pass holds the tree: let it go with the file


provide_rule_facts(file_facts)


def run_checks(project: ProjectFacts) -> tuple[list[Finding], list[Registration]]:
    """Every rule's findings, in tree order, and the registrations flagged with the kinds of the
    hazards found on them."""
    findings: list[Finding] = []
    flags: dict[tuple, list[str]] = {}
    modules = {f.module: f.path for f in project.files
               if not f.path.startswith("<context>/")}  # the tree, not the libraries read
    try:
        for rule in all_rules():
            for hazard in rule().check(project):
                findings.append(with_evidence(hazard, project, modules))
                for reg in hazard.registrations:
                    flags.setdefault(reg.key, []).append(rule.kind)
    finally:
        Names.forget()
    registrations = [
        replace(reg, flags=ordered_flags((*reg.flags, *flags[reg.key]))) if reg.key in flags
        else reg
        for reg in project.registrations
    ]
    findings.sort(key=lambda f: (f.file, f.line, f.col, f.rule))
    return findings, registrations


def with_evidence(hazard: Hazard, project: ProjectFacts, modules: dict[str, str]) -> Finding:
    """The hazard's finding with the other files of the tree its registrations' facts come
    from: where each handler (or each candidate) is defined, where the helper a registration sits
    in is called, and where its mechanism's dispatcher, loop and policy evidence lie. A change to
    any of them can make or unmake the finding, so the commit gate judges it (``lint PATHS``)."""
    files: set[str] = set()
    for reg in hazard.registrations:
        files.add(reg.file)
        files.update(a.file for a in reg.activations)
        for name in (reg.handler.qualname, *reg.handler.candidates):
            files.add(_module_file(name, modules))
        mech = project.mechanism(reg.mechanism)
        files.update(_module_file(cls, modules) for cls in mech.classes)
        files.update(path.file for path in mech.dispatch_paths)
        files.update(e.file or "" for axis in mech.policy_axes for e in axis.evidence)
    tree = set(modules.values())
    files = {f for f in files if f in tree} - {hazard.finding.file}
    if not files:
        return hazard.finding
    return replace(hazard.finding, evidence_files=tuple(sorted(files)))


def _module_file(qualname: str | None, modules: dict[str, str]) -> str:
    """The file of the longest module *qualname* starts with ("" when none is in the tree)."""
    name = qualname or ""
    while name:
        if name in modules:
            return modules[name]
        name = name.rpartition(".")[0]
    return ""
