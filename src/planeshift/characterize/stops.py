"""The stop signal of a dispatch loop, as the generated gate pins it.

A sequential loop whose per-handler ``try`` has a clause ``except <Type>: break`` (lionagi's
``except StopHook: break``) stops the emission quietly when a handler raises that class: the
handlers after it do not run, nothing is logged, and the emission returns. No ADR-0120 D2 axis
holds that (the ADR calls STOP "the typed equivalent of StopHook" on the interceptor side), so
the scan's axes do not carry it; it is read here from the clause the extractor recorded around
the handler call, and the class is imported from the code under test by its qualified name.

One case per path that has such a clause: a handler raising the class between two others; the
later one must not run, nothing may be raised or logged. A rewrite that continues after the
signal, logs it, or lets it through turns that case red.
"""

from __future__ import annotations

import re

from ..analyzer.extract.facts import FileFacts, Function
from ..analyzer.extract.observations import Action, Guard
from ..analyzer.extract.refs import Ref
from ..types import AxisEvidence, DispatchPath
from .model import Case
from .policy import Policy, Unknown
from .scenario import lit, observe
from .source import Sources

AXIS = "stop_signal"
_BROAD = {"Exception", "BaseException"}


def _ref(text: str) -> Ref | None:
    parts = text.split(".")
    if not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts):
        return None
    ref: Ref = ("name", parts[0])
    for part in parts[1:]:
        ref = ("attr", ref, part)
    return ref


def _broad(caught: str) -> bool:
    """Every failure, or a cancellation: not a signal class of the code's own."""
    return bool(set(re.findall(r"\w+", caught)) & _BROAD) or "ancel" in caught


def _entry(facts: FileFacts, entry: str) -> Function | None:
    return next((f for f in facts.functions if f.qualname == entry), None)


def stop_cases(path: DispatchPath, sources: Sources, policy: Policy) -> list[Case]:
    """The stop-signal case of *path*, or none when its loop has no ``except <Type>: break``."""
    facts = sources.facts(path.file)
    func = _entry(facts, path.entry) if facts is not None else None
    if facts is None or func is None or func.loop is None:
        return []
    # `except Exception: break` and the like are the completion axis's (stop_on_failure)
    stops = [s for s in func.loop.seen if isinstance(s.detail, Guard)
             and s.detail.actions == (Action("break"),) and not _broad(s.detail.caught)]
    classes = list(dict.fromkeys(s.detail.caught for s in stops if isinstance(s.detail, Guard)))
    if not classes:
        return []
    evidence = tuple(AxisEvidence(path.file, s.line, f"{path.entry}: {s.text}".strip())
                     for s in stops)

    def skipped(reason: str) -> list[Case]:
        return [Case(AXIS, "unknown", f"{AXIS}_not_pinned", f"{AXIS} is not pinned: {reason}",
                     evidence, skip=reason)]

    caught = classes[0]
    if len(classes) > 1:
        return skipped(f"`except {', '.join(classes)}: break` is not one signal class of the "
                       "code's own")
    ref = _ref(caught)
    qualname = sources.resolve(facts, ref) if ref is not None else None
    if qualname is None or "." not in qualname:
        return skipped(f"the class `{caught}` of `except {caught}: break` is not one the "
                       "generated test can import")
    try:
        if not policy.sequential:
            return skipped("a stop signal ends a sequential loop; this one is concurrent")
    except Unknown as exc:
        return skipped(str(exc))
    module, name = qualname.rsplit(".", 1)
    plain = policy.plain
    body = [f"from {module} import {name}",
            "",
            observe(f'{plain}("h1")', f'{plain}("h2", raises={name})', f'{plain}("h3")'),
            f"assert seen.trace == {lit(['h1', 'h2', 'emit returned'])}",
            "assert seen.error is None",
            "assert seen.logged == []"]
    slug = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    summary = (f"stop signal: a handler raising {name} (`except {caught}: break`) ends the "
               "emission quietly: the handlers after it do not run, nothing is raised or "
               "logged.")
    return [Case(AXIS, "break", f"{AXIS}_{slug}_skips_the_later_handlers_quietly", summary,
                 evidence, tuple(body))]


__all__ = ["AXIS", "stop_cases"]
