"""The error surface after ``raw = await gather(..., return_exceptions=True)``.

gather hands back every handler's value or exception, in order; the method's own code then
decides what leaves: the form the owner codemods read is lionagi's SchedulerSignalBus's (ADR-0120
D2's Scheduler profile, RAISE_GROUP with TRANSLATE)::

    cancellations = [r for r in raw if isinstance(r, BaseException) and not isinstance(r, Exception)]
    errors = [r for r in raw if isinstance(r, Exception)]
    if cancellations:
        translated = MyCancelled(str(cancellations[0]))     # or: cancellation = cancellations[0]
        if errors:
            raise translated from MyGroup(f"{len(errors)} ...", errors)
        raise translated from cancellations[0]
    if errors:
        raise MyGroup(f"{len(errors)} ...", errors)

The kernel raises the same exceptions through the owner's ``group`` and ``translated`` factories,
built from that code; the code itself stays, fed ``raw = list(report.values)``, so what the method
returns is computed as before (a handler that *returns* an exception object is still raised from
there). Any other use of the gathered list is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from .idiom import Code, Refused
from .names import Resolver, statements


@dataclass
class GatherPost:
    raw: str
    group: str  # source of a lambda building the owner's exception group
    translated: str  # source of a lambda building the owner's translated cancellation
    seen: str
    # the statements the kernel now does (splitting the failures, raising them): dead after it
    dead: tuple[cst.BaseStatement, ...] = ()


def _isinstance_of(node: cst.BaseExpression, var: str, cls: str) -> bool:
    return m.matches(node, m.Call(func=m.Name("isinstance"),
                                  args=[m.Arg(m.Name(var)), m.Arg(m.Name(cls))]))


def _filter(value: cst.BaseExpression, raw: str) -> str | None:
    """``errors`` / ``cancellations`` for the two comprehensions over *raw*, else None."""
    if not (isinstance(value, cst.ListComp) and isinstance(value.for_in.iter, cst.Name)
            and value.for_in.iter.value == raw and isinstance(value.for_in.target, cst.Name)
            and len(value.for_in.ifs) == 1 and value.for_in.inner_for_in is None):
        return None
    var = value.for_in.target.value
    test = value.for_in.ifs[0].test
    if _isinstance_of(test, var, "Exception"):
        return "errors"
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and \
            _isinstance_of(test.left, var, "BaseException") and \
            isinstance(test.right, cst.UnaryOperation) and isinstance(test.right.operator, cst.Not) \
            and _isinstance_of(test.right.expression, var, "Exception"):
        return "cancellations"
    return None


def read_post(after: Sequence[cst.BaseStatement], raw: str, r: Resolver, code: Code,
              where: str) -> GatherPost:
    lists: dict[str, str] = {}  # kind -> the local name
    for stmt in after:
        for assign in m.findall(stmt, m.Assign(targets=[m.AssignTarget(m.Name())])):
            assert isinstance(assign, cst.Assign)
            kind = _filter(assign.value, raw)
            target = assign.targets[0].target
            if kind is not None and isinstance(target, cst.Name):
                lists[kind] = target.value
    errors, cancels = lists.get("errors"), lists.get("cancellations")
    if errors is None or cancels is None:
        raise Refused(f"error surface: {where} uses the gathered `{raw}` in a way the owner "
                      "codemods do not read (they read the failures split into Exceptions and "
                      "cancellations, raised as a group and a translated cancellation)")
    groups = {code(c).strip() for c in _group_calls(after, errors)}
    if len(groups) != 1:
        raise Refused(f"error surface: {where} raises the failures in {len(groups) or 'no'} "
                      f"different groups built from `{errors}`")
    group = groups.pop()
    param, expr = _translation(after, cancels, errors, code, where)
    seen = f"{where}: raise {group} / {expr}"
    return GatherPost(raw, f"lambda {errors}: {group}", f"lambda {param}: {expr}", seen,
                      _dead(after, errors, cancels, raw))


def _dead(after: Sequence[cst.BaseStatement], errors: str, cancels: str, raw: str
          ) -> tuple[cst.BaseStatement, ...]:
    """The statements after the gather that only split *raw* into *errors* and *cancels* and
    raise them: the kernel raises the group and the translated cancellation itself, and
    ``report.values`` holds no exception, so they would never run. None of them when anything
    else reads those lists (the owner's own code stays)."""
    dead = [stmt for stmt in after if _is_dead(stmt, errors, cancels, raw)]
    kept = [s for s in after if not any(s is d for d in dead)]
    if any(m.findall(s, m.Name(errors) | m.Name(cancels)) for s in kept):
        return ()
    return tuple(dead)


def _is_dead(stmt: cst.BaseStatement, errors: str, cancels: str, raw: str) -> bool:
    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and \
        len(stmt.body) == 1 else None
    if isinstance(small, cst.Assign):  # errors = [r for r in raw if isinstance(r, Exception)]
        return _filter(small.value, raw) is not None
    if not isinstance(stmt, cst.If) or stmt.orelse is not None:
        return False
    if m.matches(stmt.test, m.Name(cancels)):  # the translation (checked by _translation)
        return True
    return (m.matches(stmt.test, m.Name(errors)) and len(stmt.body.body) == 1  # raise the group
            and bool(_group_calls([stmt], errors)))


def _group_calls(after: Sequence[cst.BaseStatement], errors: str) -> list[cst.Call]:
    out = []
    for stmt in after:
        for node in m.findall(stmt, m.Raise()):
            assert isinstance(node, cst.Raise)
            for part in (node.exc, node.cause.item if node.cause else None):
                if isinstance(part, cst.Call) and len(part.args) == 2 and \
                        m.matches(part.args[1].value, m.Name(errors)):
                    out.append(part)
    return out


def _translation(after: Sequence[cst.BaseStatement], cancels: str, errors: str, code: Code,
                 where: str) -> tuple[str, str]:
    """(the lambda's parameter, its body) of the exception raised for the first cancellation,
    checked to leave as TRANSLATE does: before any group, from the failures' group when there
    are failures, else from the cancellation itself."""
    first = f"{cancels}[0]"
    blocks = [i for i, s in enumerate(after) if isinstance(s, cst.If)
              and m.matches(s.test, m.Name(cancels)) and s.orelse is None]
    groups = [i for i, s in enumerate(after) if m.findall(s, m.Raise()) and
              _group_calls([s], errors) and i not in blocks]
    if len(blocks) != 1 or any(g < blocks[0] for g in groups):
        raise Refused(f"handler cancellation: {where} does not translate the first cancellation "
                      "before it raises the failures, as TRANSLATE does")
    block = after[blocks[0]]
    assert isinstance(block, cst.If)
    aliases = {first}
    bound: dict[str, cst.BaseExpression] = {}
    for stmt in statements(block.body):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and \
            len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            if code(small.value).strip() in aliases:
                aliases.add(name)
            else:
                bound[name] = small.value
    raised: set[str] = set()
    causes: list[tuple[cst.BaseExpression, bool]] = []  # (cause, inside `if errors:`)
    for raise_ in m.findall(block, m.Raise()):
        assert isinstance(raise_, cst.Raise)
        exc = raise_.exc
        if isinstance(exc, cst.Name) and exc.value in bound:
            exc = bound[exc.value]
        if not isinstance(exc, cst.Call) or raise_.cause is None:
            raise Refused(f"handler cancellation: {where} raises `{code(raise_).strip()}`; "
                          "TRANSLATE raises the translation from a cause")
        raised.add(code(exc).strip())
        causes.append((raise_.cause.item, _under_errors(block, raise_, errors)))
    from_group = [c for c, guarded in causes if guarded]
    from_first = [code(c).strip() for c, guarded in causes if not guarded]
    grouped = len(from_group) == 1 and m.matches(
        from_group[0], m.Call(args=[m.DoNotCare(), m.Arg(m.Name(errors))]))
    if len(raised) != 1 or not grouped or not from_first or \
            not all(c in aliases for c in from_first):
        shown = ", ".join(" ".join(code(c).split())[:60] for c, _ in causes) or "no cause"
        raise Refused(f"handler cancellation: {where}'s translated cancellation leaves from "
                      f"{shown}; TRANSLATE leaves from the failures' group when there are "
                      "failures, else from the cancellation")
    expr = raised.pop()
    names = sorted(a for a in aliases if a != first)
    param = names[0] if names else "cancellation"
    return param, expr.replace(first, param)


def _under_errors(block: cst.If, target: cst.Raise, errors: str) -> bool:
    for inner in m.findall(block, m.If(test=m.Name(errors))):
        if any(r is target for r in m.findall(inner, m.Raise())):
            return True
    return False
