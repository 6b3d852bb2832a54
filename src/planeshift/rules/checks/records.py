"""A rule's facts of one file as typed records, kept in the scan cache as rows.

A rule that reads a file's syntax (``Rule.file_facts``) returns a frozen dataclass (its
``FACTS``) whose fields are marshal data (strings, numbers, booleans, None, tuples of them) or
records again (one, or a ``tuple[Record, ...]``); extraction stores it as nested rows in field
order and ``Rule.facts`` gives the records back, so neither side unpacks a positional tuple.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import fields, is_dataclass
from typing import Any

ONE, MANY = "one", "many"


def to_row(value: Any) -> Any:
    """A record as a row of its fields' values (records inside as rows too); other values as
    they are."""
    if not is_dataclass(value) or isinstance(value, type):
        return value
    nested = _nested(type(value))
    row = []
    for name in _names(type(value)):
        item = getattr(value, name)
        if name in nested:
            item = (tuple(to_row(v) for v in item) if nested[name][1] == MANY
                    else None if item is None else to_row(item))
        row.append(item)
    return tuple(row)


def from_row(cls: type, row: Any) -> Any:
    """The *cls* record a row of :func:`to_row` stands for."""
    nested = _nested(cls)
    if not nested:
        return cls(*row)
    values = list(row)
    for i, name in enumerate(_names(cls)):
        if name in nested:
            inner, kind = nested[name]
            values[i] = (tuple(from_row(inner, v) for v in values[i]) if kind == MANY
                         else None if values[i] is None else from_row(inner, values[i]))
    return cls(*values)


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@functools.cache
def _nested(cls: type) -> dict[str, tuple[type, str]]:
    """The fields of *cls* holding records: name -> (record class, ONE or MANY)."""
    out: dict[str, tuple[type, str]] = {}
    for name, hint in typing.get_type_hints(cls).items():
        args = typing.get_args(hint)
        if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
            if is_dataclass(args[0]):
                out[name] = (args[0], MANY)
            continue
        record = next((a for a in (hint, *args) if isinstance(a, type) and is_dataclass(a)), None)
        if record is not None:
            out[name] = (record, ONE)
    return out
