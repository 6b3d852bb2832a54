"""The cache codec: facts and results as marshal rows (never pickle: the cache lives in the
scanned tree, and marshal never calls anything while loading)."""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import fields
from typing import Any

from ...packs.model import ArgSpec, RegistrationForm
from ...types import (
    Activation,
    AxisEvidence,
    ContextUse,
    DispatchPath,
    Emission,
    FileError,
    Finding,
    Handler,
    MechanismPolicy,
    MechanismSummary,
    PolicyAxis,
    ProfileDifference,
    ProfileMatch,
    Registration,
    ScanResult,
)
from ..extract.facts import Arg, Class, ConfigHook, FileFacts, Function, Param, Site
from ..extract.observations import (
    DETAILS,
    Action,
    Follow,
    Guard,
    HandlerCall,
    LoopFacts,
    Origin,
    Passed,
    Result,
    Seen,
)
from ..extract.summary import FileSummary
from ..link.candidate import Call, Candidate

FORMAT = 38


# -- codec --------------------------------------------------------------------------------------
# Rows, not objects: each dataclass is a list in field order. The bytes are `marshal`: refs are
# nested tuples and must stay hashable, and marshal round-trips tuples and frozensets natively,
# loading about seven times faster than JSON plus tuple rebuilding. Unlike pickle, marshal never
# calls anything while loading, so a planted cache file cannot run code; a malformed one fails
# to decode and is rebuilt.

MANY, ONE, OPTIONAL = "many", "one", "optional"
TAGGED = "tagged"  # one of several records: the row is [the record's kind, its row]
_BY_KIND: dict[str, type] = {cls.kind: cls for cls in DETAILS}  # type: ignore[attr-defined]
_NESTED: dict[type, dict[str, tuple[type, str]]] = {
    FileFacts: {
        "functions": (Function, MANY), "classes": (Class, MANY), "sites": (Site, MANY),
        "config_hooks": (ConfigHook, MANY),
    },
    Function: {"params": (Param, MANY), "loop": (LoopFacts, OPTIONAL)},
    LoopFacts: {"seen": (Seen, MANY)},
    Seen: {"detail": (object, TAGGED), "root": (Origin, ONE)},
    HandlerCall: {"result": (Result, ONE), "declared_async": (Result, OPTIONAL)},
    Guard: {"actions": (Action, MANY)},
    Follow: {"passes": (Passed, MANY)},
    Passed: {"root": (Origin, ONE)},
    Site: {"args": (Arg, MANY)},
    ScanResult: {
        "registrations": (Registration, MANY), "emissions": (Emission, MANY),
        "mechanisms": (MechanismSummary, MANY), "findings": (Finding, MANY),
        "errors": (FileError, MANY), "context": (ContextUse, MANY),
        "library": (Registration, MANY),
    },
    Registration: {"handler": (Handler, ONE), "activations": (Activation, MANY)},
    MechanismSummary: {"policy_axes": (PolicyAxis, MANY), "dispatch_paths": (DispatchPath, MANY),
                       "profile": (ProfileMatch, OPTIONAL)},
    MechanismPolicy: {"axes": (PolicyAxis, MANY), "paths": (DispatchPath, MANY),
                      "profile": (ProfileMatch, OPTIONAL)},
    PolicyAxis: {"evidence": (AxisEvidence, MANY)},
    DispatchPath: {"axes": (PolicyAxis, MANY), "profile": (ProfileMatch, OPTIONAL)},
    ProfileMatch: {"differences": (ProfileDifference, MANY)},
    ProfileDifference: {"evidence": (AxisEvidence, MANY)},
    Candidate: {"handler": (Handler, ONE), "activations": (Activation, MANY)},
    RegistrationForm: {"point": (ArgSpec, OPTIONAL), "handler": (ArgSpec, OPTIONAL),
              "receiver": (ArgSpec, OPTIONAL), "fixed_handler": (Handler, OPTIONAL)},
}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls))
    for cls in (
        FileFacts, Function, Class, Param, Site, Arg, LoopFacts, Seen, Result, Action, Passed,
        Origin, *DETAILS, ConfigHook, ScanResult,
        Registration, Handler, Emission, MechanismSummary, Finding, FileError, RegistrationForm,
        ArgSpec, FileSummary, Candidate, MechanismPolicy, PolicyAxis, AxisEvidence, DispatchPath,
        ProfileMatch, ProfileDifference, ContextUse, Activation, Call,
    )
}


def encode(obj: Any, canonical: bool = False) -> list[Any]:
    """A dataclass of the codec as marshal-able rows (nested dataclasses become rows too);
    *canonical* keeps a function's body as rows rather than bytes (see :func:`digest_of`)."""
    cls = type(obj)
    if isinstance(obj, Function):
        return _encode_function(obj, canonical)
    nested = _NESTED.get(cls, {})
    row: list[Any] = []
    for name in _FIELDS[cls]:
        value = getattr(obj, name)
        if name in nested:
            kind = nested[name][1]
            if kind == MANY:
                value = [encode(v, canonical) for v in value]
            elif kind == TAGGED:
                value = [value.kind, encode(value, canonical)]
            elif value is not None:
                value = encode(value, canonical)
        row.append(value)
    return row


def decode(cls: type, row: list[Any]) -> Any:
    """The inverse of :func:`encode`; a row of the wrong shape raises ValueError."""
    if cls is Function:
        return _decode_function(row)
    if len(row) != len(_FIELDS[cls]):
        raise ValueError("cache row has the wrong shape")
    nested = _NESTED.get(cls)
    if not nested:
        return cls(*row)
    values = list(row)
    for i, name in enumerate(_FIELDS[cls]):
        if name in nested:
            inner, kind = nested[name]
            if kind == MANY:
                values[i] = tuple(decode(inner, v) for v in values[i])
            elif kind == TAGGED:
                tag, inner_row = values[i]
                if tag not in _BY_KIND:
                    raise ValueError("cache row has the wrong shape")
                values[i] = decode(_BY_KIND[tag], inner_row)
            elif values[i] is not None:
                values[i] = decode(inner, values[i])
    return cls(*values)


# A function's body facts (parameters, local names, returned expressions, `self` stores) are
# three quarters of a file's facts and a link reads few of them: they stay marshal bytes inside
# the row until an attribute is first read.
_HEAD = ("qualname", "name", "line", "is_async", "kind", "is_generator", "store_lines",
         "arg_stores", "raises", "hands_on", "loop")
_BODY = ("params", "returns", "return_values", "decorators", "bindings", "self_stores")
assert sorted(_HEAD + _BODY) == sorted(_FIELDS[Function])


class LazyFunction(Function):
    """A :class:`Function` decoded from the cache, its body fields decoded on first read."""

    __slots__ = ("_body",)

    def __getattr__(self, name: str) -> Any:  # only called for a slot not yet set
        if name not in _BODY:
            raise AttributeError(name)
        params, returns, return_values, decorators, bindings, self_stores = marshal.loads(
            object.__getattribute__(self, "_body"))
        put = object.__setattr__
        put(self, "params", tuple(decode(Param, p) for p in params))
        put(self, "returns", returns)
        put(self, "return_values", return_values)
        put(self, "decorators", decorators)
        put(self, "bindings", bindings)
        put(self, "self_stores", self_stores)
        return object.__getattribute__(self, name)


def _encode_function(func: Function, canonical: bool = False) -> list[Any]:
    fields = ([encode(p) for p in func.params], func.returns, func.return_values,
              func.decorators, func.bindings, func.self_stores)
    body: Any = fields if canonical else marshal.dumps(fields)
    loop = None if func.loop is None else encode(func.loop)
    return [func.qualname, func.name, func.line, func.is_async, func.kind, func.is_generator,
            func.store_lines, func.arg_stores, func.raises, func.hands_on, loop, body]


def _decode_function(row: list[Any]) -> LazyFunction:
    if len(row) != len(_HEAD) + 1 or not isinstance(row[-1], bytes):
        raise ValueError("cache row has the wrong shape")
    func = object.__new__(LazyFunction)
    put = object.__setattr__
    for name, value in zip(_HEAD, row):
        put(func, name, value)
    if row[10] is not None:
        put(func, "loop", decode(LoopFacts, row[10]))
    put(func, "_body", row[11])
    return func


# A cache entry is the facts' digest, then the facts. marshal's own bytes are not a function of
# the value: from version 3 on it writes a back-reference for an object met twice when its
# reference count says it may be shared, so equal facts can encode differently (a comment-only
# edit did). The digest is taken over version 2, which writes no references (and frozensets in
# sorted order), of rows that keep function bodies as rows.
DIGEST = 24  # hex characters


def digest_of(facts: FileFacts) -> str:
    """A digest of the facts' value: equal facts, equal digest, in any process."""
    return hashlib.sha256(marshal.dumps(encode(facts, canonical=True), 2)).hexdigest()[:DIGEST]


def dumps(facts: FileFacts) -> bytes:
    """A cache entry: the digest of the canonical rows, then the rows, function bodies as bytes
    (one encoding serves both: the bodies are marshalled from the canonical rows)."""
    row = encode(facts, canonical=True)
    head = hashlib.sha256(marshal.dumps(row, 2)).hexdigest()[:DIGEST].encode()
    row[_FUNCTIONS] = [[*func[:-1], marshal.dumps(func[-1])] for func in row[_FUNCTIONS]]
    return head + marshal.dumps((FORMAT, row))


_FUNCTIONS = _FIELDS[FileFacts].index("functions")


def digest(data: bytes) -> str:
    """The digest a cache entry starts with (read without decoding the entry)."""
    return data[:DIGEST].decode("ascii", "replace")


# what decoding a malformed or foreign cache entry raises (:func:`loads`)
UNDECODABLE = (ValueError, KeyError, TypeError, IndexError, EOFError)


def loads(data: bytes) -> FileFacts:
    version, row = marshal.loads(data[DIGEST:])
    if version != FORMAT:
        raise ValueError("cache entry from another format")
    facts = decode(FileFacts, row)
    if not isinstance(facts.path, str):
        raise TypeError("cache entry is not planeshift facts")
    return facts
