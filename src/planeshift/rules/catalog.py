"""Every rule planeshift reports, by code: the hazard checks and the suppression-comment rules."""

from __future__ import annotations

from typing import ClassVar, Protocol


class DocumentedRule(Protocol):
    """What documentation, `planeshift explain` and SARIF read from a rule class."""

    code: ClassVar[str]
    kind: ClassVar[str]
    severity: ClassVar[str]


def documented_rules() -> list[type[DocumentedRule]]:
    """Hazard rules (rules/checks/) and suppression rules (rules/suppressions/), by code."""
    from .checks import all_rules
    from .suppressions import all_suppression_rules

    rules: list[type[DocumentedRule]] = [*all_rules(), *all_suppression_rules()]
    for attr in ("code", "kind"):
        seen: dict[str, str] = {}
        for rule in rules:
            value = getattr(rule, attr)
            if value in seen:
                raise ValueError(
                    f"duplicate rule {attr} {value}: {seen[value]} and {rule.__name__}")
            seen[value] = rule.__name__
    return sorted(rules, key=lambda r: r.code)


def rule_codes() -> tuple[str, ...]:
    return tuple(r.code for r in documented_rules())

