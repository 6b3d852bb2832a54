"""The registration table of a FanoutDispatcher used as an owner's handler list."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ._calls import handler_name, is_declared_async
from .entries import Step, fan_out
from .policy import DispatchPolicy
from .report import DispatchReport, Registration

__all__ = ["HandlerTable"]


class HandlerTable:
    """What a façade's ``list`` of handlers did, on the dispatcher's registrations."""

    policy: DispatchPolicy
    logger: logging.Logger
    offload: Any
    _lock: threading.Lock
    _registrations: list[Registration]
    _revision: int
    _seq: int
    _token: object

    def append(self, handler: Callable[[Any], Any]) -> Registration:
        """Register *handler* as a façade's ``list.append`` did: whatever it is (a
        non-callable fails when it is called, as it did), named by its qualified name.
        """
        return self._register(handler, handler_name(handler), None)

    def _register(
        self,
        handler: Callable[[Any], Any],
        name: str,
        predicate: Callable[[Any], Any] | None,
    ) -> Registration:
        """Append one registration, in order, under the lock (``append`` and
        ``subscribe``)."""
        with self._lock:
            reg = Registration(
                name=name,
                handler=handler,
                predicate=predicate,
                declared_async=is_declared_async(handler),
                seq=self._seq,
                owner=self._token,
            )
            self._seq += 1
            self._registrations.append(reg)
            self._revision += 1
        return reg

    @property
    def handlers(self) -> tuple[Callable[[Any], Any], ...]:
        """The registered handlers, in registration order (what a façade's handler list
        held)."""
        return tuple(reg.handler for reg in self._registrations)

    def remove_handler(self, handler: Callable[[Any], Any]) -> None:
        """Remove the first registration whose handler equals *handler*, as
        ``list.remove`` does (``==``, so an equal bound method is found); ValueError
        when there is none."""
        with self._lock:
            for index, reg in enumerate(self._registrations):
                if reg.handler == handler:
                    del self._registrations[index]
                    self._revision += 1
                    return
        raise ValueError("list.remove(x): x not in list")

    def clear(self) -> None:
        """Remove every registration."""
        with self._lock:
            if self._registrations:
                self._registrations.clear()
                self._revision += 1

    async def fan_out(
        self,
        step: Step,
        *,
        ordered: Callable[[Sequence[Any]], Sequence[Any]] | None = None,
        **hooks: Any,
    ) -> DispatchReport:
        """``entries.fan_out`` over this table's handlers (a snapshot taken now), under
        this dispatcher's policy, logger and offload; *hooks* are fan_out's ``failed``,
        ``group``, ``translated``, ``name``, ``stop`` (and ``offload``, for this call).
        *ordered*, when given, puts the handlers in the order they run
        (``Declarations.ordered``)."""
        handlers = self.handlers
        return await fan_out(
            self.policy,
            handlers if ordered is None else ordered(handlers),
            step,
            logger=self.logger,
            **{"offload": self.offload, **hooks},
        )
