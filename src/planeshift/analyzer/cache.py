"""Content-hash cache of per-file facts, as JSON (never pickle: the cache lives in the scanned tree).

An entry is keyed by the file's bytes, its path and module name, and a salt made of the
planeshift version and the packs' vocabulary, so changing either starts a fresh namespace.
Writes go to a temporary file and are renamed into place, so concurrent runs never see half an
entry; an entry that does not load is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from .facts import Arg, Class, ConfigHook, FileFacts, Function, LoopFacts, Param, Site

FORMAT = 1


def salt(*parts: str) -> str:
    digest = hashlib.sha256(f"{FORMAT}|{__version__}|".encode())
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def entry_key(data: bytes, rel: str, module: str, is_package: bool) -> str:
    digest = hashlib.sha256(data)
    digest.update(f"\0{rel}\0{module}\0{int(is_package)}".encode())
    return digest.hexdigest()


class FactCache:
    def __init__(self, folder: Path, namespace: str) -> None:
        self.folder = folder / f"facts-{namespace}"
        self.warning: str | None = None
        self._writable = True

    def get(self, key: str) -> FileFacts | None:
        path = self.folder / key[:2] / f"{key}.json"
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            return facts_from_json(json.loads(raw))
        except (ValueError, KeyError, TypeError, IndexError):
            return None  # corrupt or foreign entry: rebuilt and overwritten by this run

    def put(self, key: str, facts: FileFacts) -> None:
        if not self._writable:
            return
        folder = self.folder / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _ensure_gitignore(self.folder.parent)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(to_json(facts), out, separators=(",", ":"))
            os.replace(tmp, folder / f"{key}.json")
        except OSError as exc:
            self._writable = False
            self.warning = f"cache disabled, cannot write {self.folder}: {exc.strerror or exc}"


def _ensure_gitignore(folder: Path) -> None:
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("# created by planeshift\n*\n", encoding="utf-8")


# -- JSON codec ---------------------------------------------------------------------------------


def to_json(value: Any) -> Any:
    if is_dataclass(value):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _tuple(value: Any) -> Any:
    """Refs and bindings are nested tuples; JSON gives lists back."""
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value


def _build(cls: type, data: dict[str, Any], nested: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        value = data[f.name]
        if f.name in nested:
            maker = nested[f.name]
            value = maker(value)
        else:
            value = _tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)


def _many(cls: type, nested: dict[str, Any] | None = None):
    return lambda items: tuple(_build(cls, item, nested or {}) for item in items)


def facts_from_json(data: dict[str, Any]) -> FileFacts:
    loop = lambda v: _build(LoopFacts, v, {}) if v is not None else None  # noqa: E731
    return _build(
        FileFacts,
        data,
        {
            "functions": _many(Function, {"params": _many(Param), "loop": loop}),
            "classes": _many(Class),
            "sites": _many(Site, {"args": _many(Arg)}),
            "config_hooks": _many(ConfigHook),
            "called_attrs": frozenset,
            "called_funcs": frozenset,
            "loaded_attrs": frozenset,
        },
    )
