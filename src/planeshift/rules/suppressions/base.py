"""The suppression-rule base class and registry: rules over ``# planeshift: ignore`` comments."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, ClassVar

from ..checks.base import Invalid

if TYPE_CHECKING:
    from ...types import Finding, Suppression

REGISTRY: dict[str, type[SuppressionRule]] = {}

__all__ = ["REGISTRY", "Invalid", "SuppressionRule", "register"]


class SuppressionRule:
    """Like a hazard rule (code, kind, docs, examples), but it reads the suppression comments of
    the files `planeshift lint` judges, after they were matched against the findings."""

    code: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"
    message: ClassVar[str] = ""
    VALID: ClassVar[list[str]] = []  # modules (using the tests' demo bus) linted with no finding
    INVALID: ClassVar[list[Invalid]] = []

    def check(self, comments: Sequence[Suppression]) -> Iterator[Finding]:
        raise NotImplementedError


def register(cls: type[SuppressionRule]) -> type[SuppressionRule]:
    if not cls.code or not cls.kind:
        raise TypeError(f"{cls.__name__} needs a code and a kind")
    if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
        other = REGISTRY[cls.code].__name__
        raise ValueError(f"duplicate rule code {cls.code}: {cls.__name__} and {other}")
    REGISTRY[cls.code] = cls
    return cls
