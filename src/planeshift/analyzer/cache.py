"""Content-hash cache of per-file facts (marshal rows; never pickle: the cache lives in the scanned tree).

An entry is keyed by the file's bytes, its path and module name, inside a namespace named by
planeshift's code (its version and a digest of its modules) and the packs' vocabulary, so
changing either starts a fresh namespace; namespaces other code wrote are pruned. Writes go to a
temporary file and are renamed into place, so concurrent runs never see half an entry; an entry
that does not load is ignored and rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from dataclasses import fields
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomic import write_atomic
from ..rules.packs import ArgSpec
from ..rules.packs import Registration as RegSpec
from ..types import (
    AxisEvidence,
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
from .facts import Arg, Class, ConfigHook, FileFacts, Function, LoopFacts, Param, Seen, Site
from .summary import FileSummary

FORMAT = 9


@functools.cache
def code_version() -> str:
    """planeshift's version and a digest of its own modules' sizes and mtimes: an editable
    install or a checkout updated between releases must not answer from caches that older code
    wrote (60 stats, well under a millisecond)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}|{st.st_size}|{st.st_mtime_ns}\0".encode())
    return f"{__version__}+{digest.hexdigest()[:12]}"


@functools.cache
def code_tag() -> str:
    """Eight hex digits naming the cache format and planeshift's code (see code_version)."""
    return hashlib.sha256(f"{FORMAT}|{code_version()}".encode()).hexdigest()[:8]


def salt(*parts: str) -> str:
    """A fact-cache namespace: the code's tag, then a digest of *parts* (the vocabulary)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return f"{code_tag()}-{digest.hexdigest()[:16]}"


def prune_other_code(folder: Path) -> None:
    """Remove fact namespaces older code wrote: nothing this code runs can read them, and each
    upgrade would otherwise leave a copy of every file's facts behind."""
    try:
        stale = [p for p in folder.glob("facts-*") if not p.name.startswith(f"facts-{code_tag()}-")]
    except OSError:
        return
    if stale:
        import shutil  # here: a scan that finds nothing to prune does not pay the import

        for namespace in stale:
            shutil.rmtree(namespace, ignore_errors=True)


def entry_key(data: bytes, rel: str, module: str, is_package: bool) -> str:
    digest = hashlib.sha256(data)
    digest.update(f"\0{rel}\0{module}\0{int(is_package)}".encode())
    return digest.hexdigest()


class FactCache:
    def __init__(self, folder: Path, namespace: str) -> None:
        self.folder = folder / f"facts-{namespace}"
        self.warning: str | None = None
        self._writable = True

    def get_bytes(self, key: str) -> bytes | None:
        """The entry's bytes, undecoded (a corrupt entry is found, and rebuilt, at decode)."""
        try:
            return (self.folder / key[:2] / f"{key}.facts").read_bytes()
        except OSError:
            return None

    def get(self, key: str) -> FileFacts | None:
        raw = self.get_bytes(key)
        if raw is None:
            return None
        try:
            return loads(raw)
        except (ValueError, KeyError, TypeError, IndexError, EOFError):
            return None  # corrupt or foreign entry: rebuilt and overwritten by this run

    def put_bytes(self, key: str, blob: bytes) -> None:
        if not self._writable:
            return
        folder = self.folder / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _ensure_gitignore(self.folder.parent)
            write_atomic(folder / f"{key}.facts", blob)
        except OSError as exc:
            self._writable = False
            self.warning = f"cache disabled, cannot write {self.folder}: {exc.strerror or exc}"


class ResultCache:
    """Whole-scan results keyed by every file's content key: a scan of an unchanged tree."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "results"

    @staticmethod
    def key(*parts: str) -> str:
        digest = hashlib.sha256(f"{FORMAT}|{code_version()}".encode())
        for part in parts:
            digest.update(b"\0")
            digest.update(part.encode())
        return digest.hexdigest()

    def get(self, key: str) -> ScanResult | None:
        try:
            version, row = marshal.loads((self.folder / f"{key}.result").read_bytes())
            if version != FORMAT:
                return None
            return decode(ScanResult, row)
        except (OSError, ValueError, TypeError, EOFError, IndexError):
            return None  # absent or corrupt: the scan runs and rewrites it

    def put(self, keys: list[str], result: ScanResult) -> str | None:
        """Store *result* under each key (the tree's bytes, its facts); returns a warning instead
        of raising when the folder is unwritable."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _ensure_gitignore(self.folder.parent)
            for old in self.folder.glob("*.result"):
                old.unlink(missing_ok=True)  # the latest state of the tree is enough
            blob = marshal.dumps((FORMAT, encode(result)))
            for key in keys:
                write_atomic(self.folder / f"{key}.result", blob)
        except OSError as exc:
            return f"result cache not written to {self.folder}: {exc.strerror or exc}"
        return None


def _ensure_gitignore(folder: Path) -> None:
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("# created by planeshift\n*\n", encoding="utf-8")


# -- codec --------------------------------------------------------------------------------------
# Rows, not objects: each dataclass is a list in field order. The bytes are `marshal`: refs are
# nested tuples and must stay hashable, and marshal round-trips tuples and frozensets natively,
# loading about seven times faster than JSON plus tuple rebuilding. Unlike pickle, marshal never
# calls anything while loading, so a planted cache file cannot run code; a malformed one fails
# to decode and is rebuilt.

MANY, ONE, OPTIONAL = "many", "one", "optional"
_NESTED: dict[type, dict[str, tuple[type, str]]] = {
    FileFacts: {
        "functions": (Function, MANY), "classes": (Class, MANY), "sites": (Site, MANY),
        "config_hooks": (ConfigHook, MANY),
    },
    Function: {"params": (Param, MANY), "loop": (LoopFacts, OPTIONAL)},
    LoopFacts: {"seen": (Seen, MANY)},
    Site: {"args": (Arg, MANY)},
    ScanResult: {
        "registrations": (Registration, MANY), "emissions": (Emission, MANY),
        "mechanisms": (MechanismSummary, MANY), "findings": (Finding, MANY),
        "errors": (FileError, MANY),
    },
    Registration: {"handler": (Handler, ONE)},
    MechanismSummary: {"policy_axes": (PolicyAxis, MANY), "dispatch_paths": (DispatchPath, MANY),
                       "profile": (ProfileMatch, OPTIONAL)},
    MechanismPolicy: {"axes": (PolicyAxis, MANY), "paths": (DispatchPath, MANY),
                      "profile": (ProfileMatch, OPTIONAL)},
    PolicyAxis: {"evidence": (AxisEvidence, MANY)},
    DispatchPath: {"axes": (PolicyAxis, MANY), "profile": (ProfileMatch, OPTIONAL)},
    ProfileMatch: {"differences": (ProfileDifference, MANY)},
    ProfileDifference: {"evidence": (AxisEvidence, MANY)},
    RegSpec: {"point": (ArgSpec, OPTIONAL), "handler": (ArgSpec, OPTIONAL),
              "receiver": (ArgSpec, OPTIONAL), "fixed_handler": (Handler, OPTIONAL)},
}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls))
    for cls in (
        FileFacts, Function, Class, Param, Site, Arg, LoopFacts, Seen, ConfigHook, ScanResult,
        Registration, Handler, Emission, MechanismSummary, Finding, FileError, RegSpec, ArgSpec,
        FileSummary, MechanismPolicy, PolicyAxis, AxisEvidence, DispatchPath, ProfileMatch,
        ProfileDifference,
    )
}


def encode(obj: Any) -> list[Any]:
    """A dataclass of the codec as marshal-able rows (nested dataclasses become rows too)."""
    cls = type(obj)
    if isinstance(obj, Function):
        return _encode_function(obj)
    nested = _NESTED.get(cls, {})
    row: list[Any] = []
    for name in _FIELDS[cls]:
        value = getattr(obj, name)
        if name in nested:
            kind = nested[name][1]
            if kind == MANY:
                value = [encode(v) for v in value]
            elif value is not None:
                value = encode(value)
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
            elif values[i] is not None:
                values[i] = decode(inner, values[i])
    return cls(*values)


# A function's body facts (parameters, local names, returned expressions, `self` stores) are
# three quarters of a file's facts and a link reads few of them: they stay marshal bytes inside
# the row until an attribute is first read.
_HEAD = ("qualname", "name", "line", "is_async", "kind", "is_generator", "store_lines", "loop")
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


def _encode_function(func: Function) -> list[Any]:
    body = marshal.dumps((
        [encode(p) for p in func.params], func.returns, func.return_values, func.decorators,
        func.bindings, func.self_stores,
    ))
    loop = None if func.loop is None else encode(func.loop)
    return [func.qualname, func.name, func.line, func.is_async, func.kind, func.is_generator,
            func.store_lines, loop, body]


def _decode_function(row: list[Any]) -> LazyFunction:
    if len(row) != len(_HEAD) + 1 or not isinstance(row[-1], bytes):
        raise ValueError("cache row has the wrong shape")
    func = object.__new__(LazyFunction)
    put = object.__setattr__
    for name, value in zip(_HEAD, row):
        put(func, name, value)
    if row[7] is not None:
        put(func, "loop", decode(LoopFacts, row[7]))
    put(func, "_body", row[8])
    return func


def dumps(facts: FileFacts) -> bytes:
    return marshal.dumps((FORMAT, encode(facts)))


def loads(data: bytes) -> FileFacts:
    version, row = marshal.loads(data)
    if version != FORMAT:
        raise ValueError("cache entry from another format")
    facts = decode(FileFacts, row)
    if not isinstance(facts.path, str):
        raise TypeError("cache entry is not planeshift facts")
    return facts
