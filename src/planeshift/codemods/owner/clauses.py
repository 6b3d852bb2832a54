"""What a dispatch loop does with a handler's failure, and whether it runs over a snapshot.

A per-handler ``try``'s except clauses decide ADR-0120 D2's failure, completion and error
surface: ``except Exception: <record>`` isolates and logs (the record is kept as the owner's
``failed`` hook, run where the clause ran), ``except Exception: <record>; raise`` propagates the
first failure, no ``try`` at all propagates it too, and ``except CancelledError: raise`` before
``except BaseException: <record>`` isolates interpreter exits as well. ``except Exception: if
<test>: raise`` then ``<record>`` isolates and records the failures the test lets through and
propagates the others: the hook keeps the ``if``, and its bare ``raise`` re-raises the failure
inside the kernel's except. A first clause ``except <Type>: break`` is the loop's stop signal,
read before these by ``stops.split_stop``. Everything else (a clause that raises in any other
way, leaves the loop otherwise, catches one class, catches the handler's cancellation) is
refused with the clause named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from .idiom import Code, Refused
from .names import Resolver, leaves_loop, reads_and_binds, statements


class Collects(Refused):
    """The clause collects the failures into a list; the loop's error surface is the code after
    it that raises from that list."""

    def __init__(self, name: str, seen: str) -> None:
        super().__init__(seen)
        self.name = name


@dataclass
class Failure:
    failure: str  # isolate | isolate_base_exceptions | propagate
    hook: list[cst.BaseStatement] = field(default_factory=list)  # the clause's record, kept
    exc: str | None = None  # the clause's ``as`` name
    has_hook: bool = False
    seen: str = ""
    reraises: bool = False  # the record re-raises some failures (``if <test>: raise``) first


def _is_bare_raise(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], cst.Raise) and stmt.body[0].exc is None


def _raises_in(stmts: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    for stmt in stmts:
        found = m.findall(stmt, m.Raise())
        if found:
            return found[0]
    return None


def read_failure(node: cst.Try | None, r: Resolver, code: Code, where: str) -> Failure:
    """The failure axes of a per-handler ``try`` (None: the step has none)."""
    if node is None:
        return Failure("propagate", seen=f"{where}: no except clause around the handler")
    if node.orelse is not None or node.finalbody is not None:
        raise Refused(f"{where}: the handler's try has an else or finally clause "
                      f"(line `{code(node).splitlines()[0]}`), which the kernels do not run")
    clauses = list(node.handlers)
    cancel = [c for c in clauses if r.cancelled(c.type)]
    for clause in cancel:
        body = statements(clause.body)
        if not (len(body) == 1 and _is_bare_raise(body[0])):
            raise Refused(f"{where}: handler cancellation: `except "
                          f"{code(clause.type) if clause.type else ''}` does more than re-raise it")
    rest = [c for c in clauses if c not in cancel]
    for clause in rest:
        leaving = leaves_loop(statements(clause.body))
        if leaving is not None:
            label = f"except {code(clause.type) if clause.type is not None else ''}".strip()
            raise Refused(f"failure: `{label}: {code(leaving).strip()}` ({where}) leaves the "
                          "loop's step on one exception class in a way no failure value or stop "
                          "signal says (the kernel's stop signal is a clause of `break` alone)")
    if len(rest) != 1 or (cancel and clauses.index(cancel[0]) > clauses.index(rest[0])):
        names = ", ".join(f"except {code(c.type) if c.type else ''}".strip() for c in clauses)
        raise Refused(f"failure: the handler's try has the clauses `{names}`: one failure value "
                      "per stage cannot say what each does")
    clause = rest[0]
    caught = r.qualified(clause.type) if clause.type is not None else "BaseException"
    body = statements(clause.body)
    exc = clause.name.name.value if clause.name is not None and \
        isinstance(clause.name.name, cst.Name) else None
    label = f"except {code(clause.type) if clause.type is not None else ''}".strip()
    seen = f"{where}: {label}: " + "; ".join(code(s).strip() for s in body)[:160]
    appended = _collects(body)
    if appended is not None:
        raise Collects(appended, f"{where}: {label}: {appended}.append(...)")
    if caught not in ("Exception", "BaseException"):
        raise Refused(f"failure: `{label}` isolates only that class and lets every other failure "
                      f"propagate ({where}): one failure value per stage cannot say both")
    if caught == "BaseException" and not cancel:
        raise Refused(f"handler cancellation: `{label}` ({where}) catches the handler's "
                      "cancellation too, and no HandlerCancellation value swallows it")
    if body and _is_bare_raise(body[-1]):
        record = body[:-1]
        if _raises_in(record) is not None:
            raise Refused(f"failure: `{label}` ({where}) raises something else before re-raising")
        if caught == "BaseException" and record:
            raise Refused(f"failure: `{label}` ({where}) records an interpreter exit before "
                          "re-raising it, which the kernel's propagated failure does not do")
        return Failure("propagate", record, exc, bool(record), seen)
    if caught == "Exception" and _reraises_if(body):
        # the owner's hook re-raises them inside the kernel's except: they leave the fan-out
        return Failure("isolate", body, exc, True, seen, reraises=True)
    raising = _raises_in(body)
    if raising is not None:
        raise Refused(f"failure: `{label}` ({where}) re-raises some exceptions "
                      f"(`{code(raising).strip()}`) and isolates the others: one failure value "
                      "per stage cannot say both")
    value = "isolate" if caught == "Exception" else "isolate_base_exceptions"
    return Failure(value, body, exc, True, seen)


def _reraises_if(body: Sequence[cst.BaseStatement]) -> bool:
    """Every ``raise`` of the clause is a bare one, alone in an ``if`` (no else, no elif) that is
    a statement of the clause itself: ``if refusal_in(exc) is not None: raise``."""
    found = False
    for stmt in body:
        if isinstance(stmt, cst.If) and stmt.orelse is None and _raises_in([stmt.test]) is None:
            inner = statements(stmt.body)
            if len(inner) == 1 and _is_bare_raise(inner[0]):
                found = True
                continue
        if _raises_in([stmt]) is not None:
            return False
    return found


def _collects(body: Sequence[cst.BaseStatement]) -> str | None:
    """``errors.append(exc)`` as the clause's only statement: the list's name."""
    if len(body) != 1:
        return None
    found = m.findall(body[0], m.Call(func=m.Attribute(attr=m.Name("append"))))
    if not found:
        return None
    call = found[0]
    assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
    return call.func.value.value if isinstance(call.func.value, cst.Name) else None


def clause_reads_step_locals(failure: Failure, step: Sequence[cst.CSTNode], params: set[str]
                             ) -> str | None:
    """A name the clause reads that the step binds (lost once the clause is a hook of its own)."""
    reads, own = reads_and_binds(failure.hook)
    _, binds = reads_and_binds(step)
    shared = sorted((reads & binds) - own - params - ({failure.exc} if failure.exc else set()))
    return shared[0] if shared else None
