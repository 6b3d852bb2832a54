"""The methods ``dataclasses`` writes for each class, compiled once and kept between runs.

Every ``@dataclass`` has its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and, frozen,
``__setattr__`` and ``__delattr__``) written as source text and compiled when its module is
imported, in every process: an incremental scan of lionagi creates about 90 classes, 600
methods, and compiling them was about a seventh of its time. The text of a method is all its code
object depends on (with the interpreter's build), so a one-shot planeshift process
(:func:`reuse_compiled_methods`, called by the console script only) compiles each text once and
keeps the code objects in the user's cache folder (``$XDG_CACHE_HOME/planeshift``, else
``~/.cache/planeshift``, or under ``sys.pycache_prefix`` when one is set), one ``marshal`` file
for each module that defines classes. Python's rule for bytecode applies: nothing is written when
``sys.dont_write_bytecode`` is on (``PYTHONDONTWRITEBYTECODE``), and where nothing can be written
nothing is said. A file is believed only whole: it carries a digest of its table, checked before
the table is decoded, and the interpreter's build; anything else is compiled around.

Only ``dataclasses``' own ``exec`` is replaced (a name in that module's namespace: the builtin
is untouched elsewhere), and only for a source text it is handed: the function it defines is
made from the same code object a fresh compile gives.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from .atomic import write_atomic

_MAX_ENTRIES = 2_000  # a module's file past this (many releases' classes) starts afresh
_HEADER = f"{sys.version}|{sys.implementation.cache_tag}\n".encode()
_DIGEST = 32  # sha256 of the table's bytes, between the header and the table


class MethodCache:
    """Source text -> code object, a ``marshal`` file for each module the classes are defined
    in (in *folder*: a run reads the files of the modules it imports), each written back when
    it grew."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.modules: dict[str, dict[str, CodeType]] = {}
        self.grown: set[str] = set()  # the modules whose tables this process added to
        self.new = 0  # the texts this process compiled

    def _table(self, module: str) -> dict[str, CodeType]:
        table = self.modules.get(module)
        if table is None:
            table = self.modules[module] = _read(self.folder / f"{module}.marshal")
        return table

    def exec(self, source: Any, *args: Any, **kwargs: Any) -> None:
        """``exec`` for ``dataclasses``: a source text's code object is compiled once."""
        scope = args[0] if args else kwargs.get("globals")
        module = scope.get("__name__") if isinstance(scope, dict) else None
        if isinstance(source, str) and isinstance(module, str):
            table = self._table(module)
            code = table.get(source)
            if code is None:
                code = table[source] = compile(source, "<string>", "exec", dont_inherit=True)
                self.grown.add(module)
                self.new += 1
            source = code
        builtins.exec(source, *args, **kwargs)

    def save(self) -> None:
        """Write back the files of the modules this run compiled for (quietly not, where it
        cannot)."""
        if not self.grown or sys.dont_write_bytecode:
            return
        for module in sorted(self.grown):
            table = self.modules[module]
            data = marshal.dumps(table if len(table) <= _MAX_ENTRIES else {})
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                write_atomic(self.folder / f"{module}.marshal",
                             _HEADER + hashlib.sha256(data).digest() + data)
            except (OSError, ValueError):
                break  # the folder cannot be written: neither can the other modules' files
        self.grown.clear()


def _read(path: Path) -> dict[str, CodeType]:
    """The table a file holds; empty when it is absent, of another build, or not whole."""
    try:
        blob = path.read_bytes()
    except OSError:
        return {}
    head = len(_HEADER)
    if blob[:head] != _HEADER or hashlib.sha256(blob[head + _DIGEST:]).digest() != \
            blob[head:head + _DIGEST]:
        return {}  # another interpreter's, or damaged: never handed to marshal
    try:
        table = marshal.loads(blob[head + _DIGEST:])
    except Exception:  # noqa: BLE001 - what a file of this build holds is ours or nothing
        return {}
    if not isinstance(table, dict) or not all(
            isinstance(text, str) and isinstance(code, CodeType) for text, code in table.items()):
        return {}
    return table


def cache_path() -> Path:
    """``dataclass-methods.<interpreter>`` in planeshift's folder of the user's cache, or under
    ``sys.pycache_prefix``."""
    name = f"dataclass-methods.{sys.implementation.cache_tag}"
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix, "planeshift", name)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "planeshift", name)


def reuse_compiled_methods(folder: Path | None = None) -> MethodCache:
    """Make ``dataclasses`` compile through a :class:`MethodCache` for the rest of the process;
    the caller saves it when the command is done."""
    cache = MethodCache(folder or cache_path())
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    return cache
