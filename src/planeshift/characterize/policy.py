"""A dispatch path's policy as the generator reads it: the code's readings only.

An axis the scan could not decide is unknown; so is an axis only the pack declares (a test would
repeat the pack, not pin the code). A case whose expectation needs an unknown axis raises
:class:`Unknown`, and becomes a skipped test naming that axis.
"""

from __future__ import annotations

from ..types import AxisEvidence, DispatchPath
from .model import Reading

UNKNOWN = "unknown"
KINDS = ("sync", "declared async")


class Unknown(Exception):
    """An expectation needs an axis the scan did not read from the code."""

    def __init__(self, axis: str, why: str) -> None:
        super().__init__(why)
        self.axis = axis


class Policy:
    """The readings of one dispatch path, with the few facts the cases derive from them."""

    def __init__(self, path: DispatchPath, is_async: bool) -> None:
        self.readings: dict[str, Reading] = {}
        self.why: dict[str, str] = {}
        for axis in path.axes:
            if axis.provenance == "inferred" and axis.value != UNKNOWN:
                self.readings[axis.axis] = Reading(axis.value, axis.evidence)
                continue
            self.readings[axis.axis] = Reading(UNKNOWN, axis.evidence)
            if axis.provenance == "declared":
                self.why[axis.axis] = (f"the code does not decide {axis.axis}; the pack declares "
                                       f"{axis.value}, which a test would only repeat")
            else:
                seen = "; ".join(f"{e.file}:{e.line} {e.seen}" for e in axis.evidence[:2])
                self.why[axis.axis] = (f"the scan could not decide {axis.axis}"
                                       + (f" ({seen})" if seen else ""))
        self.is_async = is_async

    def raw(self, axis: str) -> str:
        return self.readings.get(axis, Reading(UNKNOWN)).value

    def value(self, axis: str) -> str:
        """The axis's value; raises Unknown when the code does not decide it."""
        value = self.raw(axis)
        if value == UNKNOWN:
            raise Unknown(axis, self.why.get(axis, f"the scan has no {axis} for this path"))
        return value

    def part(self, axis: str, kind: str) -> str:
        """The value for one kind of handler, from "x (sync) / y (declared async)" readings."""
        value = self.value(axis)
        if " / " not in value:
            return value
        for piece in value.split(" / "):
            head, _, tail = piece.partition(" (")
            if tail.rstrip(")") == kind:
                return head
        raise Unknown(axis, f"{axis} reads {value!r}, with no value for {kind} handlers")

    def evidence(self, *axes: str) -> tuple[AxisEvidence, ...]:
        out: list[AxisEvidence] = []
        for axis in axes:
            out += self.readings.get(axis, Reading(UNKNOWN)).evidence
        return tuple(dict.fromkeys(out))

    def offloads_through_anyio(self) -> bool:
        """The loop hands sync handlers to ``anyio.to_thread.run_sync`` (the code read for the
        axis says so): they run on anyio's worker threads, where ``anyio.from_thread`` works."""
        return any("anyio.to_thread.run_sync" in e.seen for e in self.evidence("sync_handlers"))

    # -- derived -----------------------------------------------------------------------------
    @property
    def sequential(self) -> bool:
        value = self.value("concurrency")
        if value not in ("sequential", "concurrent"):
            raise Unknown("concurrency", f"concurrency is {value}")
        return value == "sequential"

    @property
    def plain(self) -> str:
        """The probe for an ordinary handler: ``Sync``, or ``Coro`` where every value a handler
        returns is awaited unconditionally (a sync handler's None would fail there)."""
        try:
            unconditional = (self.part("returned_value_classifier", "sync") == "not_inspected"
                             and self.part("returned_awaitable", "sync") in (
                                 "await_in_invocation", "gather_after_invocations"))
        except Unknown:
            return "Sync"
        return "Coro" if unconditional else "Sync"

    def declared_async(self) -> str:
        """What becomes of a declared coroutine function's coroutine: "inline" (awaited as it is
        invoked), "gathered" (after every handler was invoked) or "never"."""
        classification = self.value("handler_classification")
        if classification == "by_declaration":
            if not self.is_async:
                raise Unknown("sync_entry", "on a sync entry a declared coroutine function is "
                                            "pinned by the sync_entry test")
            return "inline"
        disposition = self.part("returned_awaitable", "declared async")
        mode = {"await_in_invocation": "inline", "gather_after_invocations": "gathered",
                "discard_unawaited": "never"}.get(disposition)
        if mode is None:
            raise Unknown("returned_awaitable", f"no scenario observes {disposition}")
        if mode != "never" and not self.is_async:
            raise Unknown("sync_entry", "a sync entry cannot await")
        return mode
