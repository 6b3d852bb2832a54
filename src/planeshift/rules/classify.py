"""Classification: put each candidate registration into an ADR-0120 plane with its evidence.

The mechanism's rules are tried in order; the first whose condition holds decides. A rule whose
condition cannot be decided (the point is dynamic, the handler's async-ness is unknown) stops the
walk with ``needs_review`` when it would have decided a different plane: the tool never guesses.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from ..analyzer.link.candidate import Candidate
from ..packs.model import ClassifyRule, Mechanism
from ..types import Registration, ordered_flags

CONFIDENCE = ("low", "medium", "high")


def facts_of(c: Candidate) -> dict[str, Any]:
    return {
        "point": c.point,
        "api": c.api,
        "via": c.via,
        "handler": c.handler.candidates or (c.handler.qualname or c.handler.expr,),
        "scope": c.scope,
        "handler_async": c.handler.declared_async,
        "handler_returns_awaitable": c.handler.returns_awaitable,
        "handler_effect": c.handler.effects,
        "flag": c.flags,
        "condition": c.conditions,
        "_point_dynamic": c.point_note is not None,
    }


def holds(rule: ClassifyRule, facts: dict[str, Any]) -> bool | None:
    """True / False, or None when a fact the rule needs is unknown."""
    result: bool | None = True
    for key, expected in rule.when:
        actual = facts[key]
        if key == "api":
            ok = actual in expected or actual.rsplit(".", 1)[0] in expected
        elif key == "via":
            ok = actual in expected
        elif key == "handler":  # every callable the handler may be must match
            ok = all(any(fnmatchcase(name, p) for p in expected) for name in actual)
        elif key == "scope":
            ok = any(fnmatchcase(actual, pattern) for pattern in expected)
        elif key == "flag":  # (any of them: `hookwrapper`, `tryfirst`, ...)
            ok = any(flag in expected for flag in actual)
        elif key == "condition":  # (a pattern over `keyword=text`: "sender=User", "weak=*")
            ok = any(fnmatchcase(cond, p) for cond in actual for p in expected)
        elif key == "handler_effect" and actual is not None:  # (the body in view does one)
            ok = any(effect in expected for effect in actual)
        elif actual is None:
            if key == "point" and not facts["_point_dynamic"]:
                return False  # this registration form has no point at all
            result = None
            continue
        elif key == "point":  # (a pattern: "error:*" is every error bucket)
            ok = all(any(fnmatchcase(part, p) for p in expected) for part in actual.split("+"))
        else:
            ok = actual == expected
        if not ok:
            return False
    return result


def _describe(rule: ClassifyRule, facts: dict[str, Any]) -> str:
    conds = []
    for key, expected in rule.when:
        shown = ", ".join(expected) if isinstance(expected, tuple) else str(expected).lower()
        actual = facts[key]
        actual = " / ".join(actual) if isinstance(actual, tuple) else actual
        conds.append(f"{key} {actual} in [{shown}]" if isinstance(expected, tuple)
                     else f"{key}={shown}")
    cond = "; ".join(conds) if conds else "default"
    return f"rule {rule.id} ({cond}) -> {rule.plane}: {rule.because}"


def classify(c: Candidate, mechanism: Mechanism) -> Registration:
    """The first rule of the mechanism that holds decides, unless an undecidable one would not."""
    facts = facts_of(c)
    evidence = list(c.evidence)
    flags = c.flags
    plane, confidence, rule_id = "needs_review", "low", ""
    undecided: list[ClassifyRule] = []
    for rule in mechanism.classify:
        verdict = holds(rule, facts)
        if verdict is None:
            undecided.append(rule)
            continue
        if verdict:
            plane, confidence, rule_id = rule.plane, rule.confidence, rule.id
            evidence.insert(0, _describe(rule, facts))
            break
    blocking = [r for r in undecided if r.plane != plane]
    if blocking:
        first = blocking[0]
        missing = [k for k, _ in first.when if facts[k] is None]
        why = c.point_note if "point" in missing and c.point_note else f"{', '.join(missing)} unknown"
        evidence.insert(0, f"rule {first.id} -> {first.plane} cannot be decided: {why}")
        plane, confidence, rule_id = "needs_review", "low", first.id
    if "dynamic_receiver" in flags or "receiver_unknown" in flags:
        if plane != "needs_review" and evidence:
            evidence[0] = evidence[0].replace(f" -> {plane}:", f" -> would be {plane}:", 1)
        evidence.insert(0, "the receiver cannot be resolved, so the mechanism itself is not certain")
        plane, confidence = "needs_review", "low"
    if c.handler.expr == "<not given at this call>":
        evidence.append("the handler is supplied later (decorator factory used indirectly)")
    confidence = min(confidence, c.confidence, key=CONFIDENCE.index)
    return Registration(
        file=c.file,
        line=c.line,
        col=c.col,
        end_line=c.end_line,
        end_col=c.end_col,
        activations=c.activations,
        mechanism=c.mechanism,
        api=c.api,
        point=c.point,
        handler=c.handler,
        plane=plane,
        confidence=confidence,
        evidence=tuple(evidence),
        flags=ordered_flags(flags),
        via=c.via,
        scope=c.scope,
        rule=rule_id,
    )
