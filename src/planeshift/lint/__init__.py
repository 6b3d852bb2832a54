"""The lint gate: the hazard findings of a whole-project scan, judged in the files a commit
touches, after severity settings, suppression comments and the baseline."""

from __future__ import annotations

from .model import LintFinding, LintResult
from .run import baseline_entries, lint
from .scope import Scope, default_root, resolve_scope

__all__ = ["LintFinding", "LintResult", "Scope", "baseline_entries", "default_root", "lint",
           "resolve_scope"]
