"""Reading one YAML value strictly: the checks every part of a pack's reader shares (the pack
reader, its ``migrate:`` reader, and each registration shape's own options), each failing with a
:class:`~.model.PackError` that names the file and the key."""

from __future__ import annotations

from typing import Any

from .model import PackError


class ValueReader:
    """The labelled primitive checks: a mapping with known keys, a string, a list of strings."""

    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, key: str, message: str) -> PackError:
        return PackError(self.label, key, message)

    def mapping(self, value: Any, key: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a mapping, got {type(value).__name__}")
        unknown = sorted(set(map(str, value)) - set(allowed))
        if unknown:
            raise self.fail(f"{key}.{unknown[0]}", f"unknown key (allowed: {', '.join(allowed)})")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "expected a non-empty string")
        return value.strip()

    def method_names(self, value: Any, key: str) -> tuple[str, ...]:
        """A string or a list of them, each a method's name (``register``)."""
        names = self.strings(value, key)
        for i, name in enumerate(names):
            if not name.isidentifier():
                raise self.fail(f"{key}[{i}]", f"expected a method name, got {name!r}")
        return names

    def strings(self, value: Any, key: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (self.string(value, key),)
        if not isinstance(value, list):
            raise self.fail(key, "expected a string or a list of strings")
        return tuple(self.string(v, f"{key}[{i}]") for i, v in enumerate(value))

    def flag(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, "expected true or false")
        return value

    def weak(self, value: Any, key: str) -> str:
        """``weak_receivers``: true (every receiver), ``bound_methods``, or false."""
        if value != "bound_methods" and not isinstance(value, bool):
            raise self.fail(key, "expected true, false or bound_methods")
        return value if isinstance(value, str) else ("all" if value else "")
