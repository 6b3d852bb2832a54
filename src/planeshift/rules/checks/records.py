"""A rule's facts of one file as typed records, kept in the scan cache as rows.

A rule that reads a file's syntax (``Rule.file_facts``) returns a frozen dataclass (its
``FACTS``) whose fields are marshal data (strings, numbers, booleans, None, tuples of them) or
records again (one, or a ``tuple[Record, ...]``); extraction stores it as nested rows in field
order and ``Rule.facts`` gives the records back, so neither side unpacks a positional tuple.
Every file of a tree may give a rule facts, so each record class gets its encoder and decoder
once, built from ``operator.attrgetter`` and the class itself.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from itertools import starmap
from operator import attrgetter
from typing import Any

Codec = Callable[[Any], Any]
_ENCODERS: dict[type, Codec] = {}
_DECODERS: dict[type, Codec] = {}


def to_row(value: Any) -> Any:
    """A record as a row of its fields' values (records inside as rows too); other values as
    they are."""
    encode = _ENCODERS.get(type(value))
    if encode is None:
        if not is_dataclass(value) or isinstance(value, type):
            return value
        encode = _encoder(type(value))
    return encode(value)


def from_row(cls: type, row: Any) -> Any:
    """The *cls* record a row of :func:`to_row` stands for."""
    decode = _DECODERS.get(cls) or _decoder(cls)
    return decode(row)


def _encoder(cls: type) -> Codec:
    names = [f.name for f in fields(cls)]
    get = _getter(names)
    nested = [(i, _encoder(inner), many) for i, (inner, many) in _nested(cls, names)]

    def encode(value: Any) -> tuple:
        row = list(get(value))
        for i, inner, many in nested:
            item = row[i]
            row[i] = (tuple(map(inner, item)) if many
                      else None if item is None else inner(item))
        return tuple(row)

    _ENCODERS[cls] = get if not nested else encode
    return _ENCODERS[cls]


def _getter(names: list[str]) -> Codec:
    """The values of these fields, as a tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        name = names[0]
        return lambda value: (getattr(value, name),)
    return lambda value: ()


def _decoder(cls: type) -> Codec:
    names = [f.name for f in fields(cls)]
    nested = [(i, _decoder(inner), inner, many) for i, (inner, many) in _nested(cls, names)]
    if not nested:
        def decode(row: Any) -> Any:
            return cls(*row)
    else:
        def decode(row: Any) -> Any:
            values = list(row)
            for i, inner, inner_cls, many in nested:
                item = values[i]
                if many:
                    plain = _DECODERS.get(inner_cls) is _PLAIN.get(inner_cls)
                    values[i] = (tuple(starmap(inner_cls, item)) if plain
                                 else tuple(map(inner, item)))
                elif item is not None:
                    values[i] = inner(item)
            return cls(*values)
    if not nested:
        _PLAIN[cls] = decode
    _DECODERS[cls] = decode
    return decode


_PLAIN: dict[type, Codec] = {}  # the decoders of records holding no record: cls(*row)


def _nested(cls: type, names: list[str]) -> list[tuple[int, tuple[type, bool]]]:
    """The fields of *cls* holding records: (index, (record class, a tuple of them))."""
    hints = typing.get_type_hints(cls)
    out = []
    for i, name in enumerate(names):
        hint = hints[name]
        args = typing.get_args(hint)
        if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
            if isinstance(args[0], type) and is_dataclass(args[0]):
                out.append((i, (args[0], True)))
            continue
        record: type | None = next(
            (a for a in (hint, *args) if isinstance(a, type) and is_dataclass(a)), None)
        if record is not None:
            out.append((i, (record, False)))
    return out
