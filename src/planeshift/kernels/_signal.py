"""The pre-dispatch signal-type check, without which a Broadcaster-profile dispatcher
cannot be built."""

from __future__ import annotations

from typing import Any

from .errors import PolicyError
from .policy import DispatchPolicy
from .profiles import broadcaster

__all__ = ["check_signal", "check_signal_type"]


def check_signal_type(policy: DispatchPolicy, signal_type: Any) -> None:
    """Refuse a signal_type that is not a type or tuple of types, and the Broadcaster
    profile without one."""
    if signal_type is None:
        # The ADR pins "pre-dispatch event-type validation that raises ValueError" into
        # the profile. The policy value cannot carry it, so the dispatcher refuses the
        # profile's phases without it, whether they come from
        # DispatchPolicy.broadcaster() or were rebuilt field by field.
        if policy.phases == broadcaster():
            why = (
                "the Broadcaster profile validates the event type before dispatch:"
                " pass FanoutDispatcher(policy, signal_type=EventType)"
            )
            raise PolicyError([("broadcaster-requires-signal-type", why)])
        return
    types = signal_type if isinstance(signal_type, tuple) else (signal_type,)
    if not types or not all(isinstance(t, type) for t in types):
        raise TypeError(
            f"signal_type must be a type or a tuple of types, got {signal_type!r}",
        )


def check_signal(signal_type: type | tuple[type, ...] | None, signal: Any) -> None:
    """Raise ValueError before dispatch when the signal is not of the declared type."""
    if signal_type is None or isinstance(signal, signal_type):
        return
    types = signal_type if isinstance(signal_type, tuple) else (signal_type,)
    # lionagi's Broadcaster.broadcast message, word for word, so callers matching on it
    # keep working.
    raise ValueError(f"Event must be of type {' or '.join(t.__name__ for t in types)}")
