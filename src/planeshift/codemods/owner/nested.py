"""A fan-out that is a statement of a ``try`` of the method rather than of the method itself.

lionagi's ``HookBus.emit`` sets a context variable, then runs its loop inside ``try: ...
except Exception: <record a refusal>; raise ... finally: <reset>``. The ``try`` and its clauses
are the façade's; the loop inside is read and written exactly as a loop of the method's own body
would be, with the ``try``'s body standing for the method's body, and the ``try`` keeps its
clauses around the kernel call.

Only one level, only a ``try`` body, and only when no statement of the method is a loop itself.
"""

from __future__ import annotations

import libcst as cst

from .idiom import Refused
from .names import reads_and_binds, statements, target_names
from .read import FanOut


def _holds_loop(stmts: list[cst.BaseStatement]) -> bool:
    return any(isinstance(s, (cst.For, cst.With)) for s in stmts)


def fan_out_block(method: cst.FunctionDef) -> int | None:
    """The index in the method's body of the one ``try`` whose body holds the fan-out, or None
    (the method's own statements hold a loop, or no single ``try`` does)."""
    body = statements(method.body)
    if _holds_loop(body):
        return None
    tries = [i for i, s in enumerate(body) if isinstance(s, cst.Try) and _holds_loop(
        statements(s.body))]
    return tries[0] if len(tries) == 1 else None


def block_method(method: cst.FunctionDef, at: int) -> cst.FunctionDef:
    """The method with the ``try``'s body as its body: what the reader reads."""
    block = statements(method.body)[at]
    assert isinstance(block, cst.Try)
    return method.with_changes(body=block.body)


def check_outside(method: cst.FunctionDef, at: int, fan: FanOut, where: str) -> None:
    """The loop body's names must not be read by the rest of the method (the ``try``'s clauses
    and the statements around it), since as the kernel's step they become its locals."""
    body = statements(method.body)
    block = body[at]
    assert isinstance(block, cst.Try)
    outside: list[cst.CSTNode] = [s for i, s in enumerate(body) if i != at]
    outside += list(block.handlers)
    outside += [block.orelse] if block.orelse is not None else []
    outside += [block.finalbody] if block.finalbody is not None else []
    reads, _ = reads_and_binds(outside)
    _, binds = reads_and_binds(fan.step_body)
    clash = sorted((binds & reads) - target_names(fan.target))
    if clash:
        raise Refused(f"{where}: the loop body assigns `{clash[0]}`, which the method reads "
                      "outside the loop; as the kernel's step it would be a local")


def rewritten(method: cst.FunctionDef, at: int, written: list[cst.BaseStatement]
              ) -> cst.FunctionDef:
    """The method with the ``try``'s body replaced by *written*."""
    body = statements(method.body)
    block = body[at]
    assert isinstance(block, cst.Try) and isinstance(method.body, cst.IndentedBlock)
    body[at] = block.with_changes(body=block.body.with_changes(body=written))
    return method.with_changes(body=method.body.with_changes(body=body))
