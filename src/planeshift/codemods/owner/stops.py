"""A dispatch loop's stop signal: ``except <Type>: break`` as the first clause of the per-handler
``try`` (lionagi's ``except StopHook: break``).

It stops the fan-out on that exception class: the handlers after it are skipped, nothing is
logged or raised, and the method goes on after the loop. The kernel's ``fan_out(stop=<Type>)``
does exactly that (ADR-0120 D2's STOP, "the typed equivalent of StopHook", on the fan-out side),
so the clause leaves the ``try`` and the remaining clauses are read as the failure policy.

Only that shape is read; near misses are refused by ``read_failure`` or here, with the clause
named: ``continue`` or ``return`` instead of ``break``, a clause that does more than ``break``,
a stop clause after another clause (which sees the exception first), a bare ``except`` or
``except Exception`` / ``BaseException`` (stops on every failure), a cancellation class.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .idiom import Code, Refused
from .names import Resolver, statements


@dataclass(frozen=True)
class Stop:
    source: str  # the clause's class expression as written: `StopHook`, `(Halt, Done)`
    seen: str  # where it was read, for the report's notes


def _only_break(clause: cst.ExceptHandler) -> bool:
    body = statements(clause.body)
    return len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and \
        len(body[0].body) == 1 and isinstance(body[0].body[0], cst.Break)


def split_stop(node: cst.Try | None, r: Resolver, code: Code, where: str
               ) -> tuple[cst.Try | None, Stop | None]:
    """(the ``try`` without its stop clause, or None when no clause is left; the stop signal).

    A ``try`` with no ``except <Type>: break`` comes back unchanged with None."""
    if node is None:
        return None, None
    clauses = list(node.handlers)
    found = [i for i, c in enumerate(clauses) if _only_break(c)]
    if not found:
        return node, None
    clause = clauses[found[0]]
    label = f"except {code(clause.type).strip() if clause.type is not None else ''}".strip()
    if found[0] != 0:
        first = clauses[0]
        before = f"except {code(first.type).strip() if first.type is not None else ''}".strip()
        raise Refused(f"failure: `{label}: break` ({where}) comes after `{before}`, which sees "
                      "the exception first; the kernel's stop signal is checked before any "
                      "other clause")
    if clause.type is None:
        raise Refused(f"failure: `except: break` ({where}) stops the fan-out quietly on every "
                      "failure and on a cancellation: no failure or completion value says that")
    kinds = ([e.value for e in clause.type.elements] if isinstance(clause.type, cst.Tuple)
             else [clause.type])
    for kind in kinds:
        if not isinstance(kind, (cst.Name, cst.Attribute)) or \
                r.qualified(kind) in ("Exception", "BaseException") or r.cancelled(kind):
            raise Refused(f"failure: `{label}: break` ({where}) stops the fan-out quietly on "
                          "every failure or on a cancellation, not on one signal class of the "
                          "owner's: no failure or completion value says that")
    stop_type = clause.type
    rest = clauses[1:]
    stop = Stop(code(stop_type).strip(), f"{where}: {label}: break")
    if not rest and node.orelse is None and node.finalbody is None:
        return None, stop
    if not rest:
        raise Refused(f"{where}: the handler's try has an else or finally clause "
                      f"(line `{code(node).splitlines()[0]}`), which the kernels do not run")
    return node.with_changes(handlers=rest), stop
