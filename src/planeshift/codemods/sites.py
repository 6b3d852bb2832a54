"""Registrations one call makes more than once: one rewrite of its handler serves them all.

A loop over a literal table (``for point in (A, B): bus.on(point, h)``), or a lookup in one,
is one registration per entry of the table, each at the call's own position, each with its own
point (and maybe its own plane). The call's handler expression is one node: a codemod rewrites
it once for all of them, or not at all when they would need different rewrites (an interceptor
declares one stage; one expression cannot be both an interceptor and a subscriber).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..analyzer.link.match.tables import TABLE_ENTRY
from ..types import Registration

Site = tuple[str, int, int, str]  # file, line, col, handler expression (whitespace folded)


def site_of(reg: Registration) -> Site:
    return (reg.file, reg.line, reg.col, " ".join(reg.handler.expr.split()))


def by_site(regs: Iterable[Registration]) -> list[list[Registration]]:
    """The registrations grouped by their site, in the order each site is first met."""
    out: dict[Site, list[Registration]] = {}
    for reg in regs:
        out.setdefault(site_of(reg), []).append(reg)
    return list(out.values())


def handler_from_table(reg: Registration) -> bool:
    """The scan read this registration's handler from an entry of a literal table, through a
    loop variable (its evidence binds a name to the handler: ``handler = h, point = P``)."""
    want = f" = {reg.handler.expr}, "
    return any(e.startswith(TABLE_ENTRY) and want in e[len(TABLE_ENTRY):] + ", "
               for e in reg.evidence)


def entries(regs: Sequence[Registration]) -> str:
    """``"the 2 registrations print makes here (points A, B)"``: how a reason names a site."""
    points = ", ".join(dict.fromkeys(str(r.point) for r in regs))
    return f"the {len(regs)} registrations {regs[0].handler.expr} makes at this call " \
           f"(points {points})"


def differences(shapes: Sequence[tuple[Registration, Mapping[str, object]]]) -> str:
    """What the registrations of one site disagree on, from each one's shape (the plane and the
    values its rewrite would write): "" when one rewrite serves them all."""
    if len({tuple(sorted(s.items(), key=lambda kv: kv[0])) for _, s in shapes}) <= 1:
        return ""
    for field in dict.fromkeys(k for _, s in shapes for k in s):
        seen: dict[str, list[str]] = {}
        for reg, shape in shapes:
            seen.setdefault(repr(shape.get(field)) if field != "plane" else str(shape[field]),
                            []).append(str(reg.point))
        if len(seen) > 1:
            parts = "; ".join(f"{value} for {', '.join(points)}" for value, points in seen.items())
            return f"{field} ({parts})"
    return "rewrite"
