"""The methods ``dataclasses`` writes for each class, compiled once and kept between runs.

Every ``@dataclass`` has its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and, frozen,
``__setattr__`` and ``__delattr__``) written as source text and compiled when its module is
imported, one ``exec`` each, in every process: an incremental scan of lionagi creates about 90
classes, 600 methods, and compiling them was about a seventh of its time. The text of a method is
all its code object depends on (with the interpreter's version), so a one-shot planeshift
process (:func:`reuse_compiled_methods`, called by the console script only) compiles each text
once and keeps the code objects in ``marshal`` files (one a module defining classes) beside
planeshift's own bytecode, under
Python's rules for bytecode: read wherever it is, written only when ``sys.dont_write_bytecode``
is off (``PYTHONDONTWRITEBYTECODE``), under ``sys.pycache_prefix`` when one is set. A file that
is absent, unreadable, corrupt or of another interpreter is compiled around, never trusted.

Only ``dataclasses``' own ``exec`` is replaced (a name in that module's namespace: the builtin
is untouched elsewhere), and only for a source text it is handed: the function it defines is
made from the same code object a fresh compile gives.
"""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from .atomic import write_atomic

_MAX_ENTRIES = 2_000  # a module's file past this (many releases' classes) starts afresh
_HEADER = (sys.version, sys.implementation.cache_tag)


class MethodCache:
    """Source text -> code object, one ``marshal`` file per module the classes are defined in
    (in *folder*: a run reads the files of the modules it imports), each written back when it
    grew."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.modules: dict[str, dict[str, CodeType]] = {}
        self.grown: set[str] = set()  # the modules whose tables this process added to
        self.new = 0  # the texts this process compiled

    def _table(self, module: str) -> dict[str, CodeType]:
        table = self.modules.get(module)
        if table is None:
            table = self.modules[module] = {}
            try:
                header, code = marshal.loads((self.folder / f"{module}.marshal").read_bytes())
                if header == _HEADER and isinstance(code, dict):
                    table.update(code)
            except (OSError, ValueError, EOFError, TypeError):
                pass  # absent or not ours: compile as dataclasses would
        return table

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /,
             **kwargs: Any) -> None:
        """``exec`` for ``dataclasses``: a source text's code object is compiled once."""
        module = globals.get("__name__") if isinstance(globals, dict) else None
        if isinstance(source, str) and isinstance(module, str) and not kwargs:
            table = self._table(module)
            code = table.get(source)
            if code is None:
                code = table[source] = compile(source, "<string>", "exec", dont_inherit=True)
                self.grown.add(module)
                self.new += 1
            source = code
        builtins.exec(source, globals, locals, **kwargs)

    def save(self) -> None:
        """Write back the files of the modules this run compiled for (quietly not, where it
        cannot)."""
        if not self.grown or sys.dont_write_bytecode:
            return
        for module in sorted(self.grown):
            table = self.modules[module]
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                write_atomic(self.folder / f"{module}.marshal",
                             marshal.dumps((_HEADER, table if len(table) <= _MAX_ENTRIES else {})))
            except (OSError, ValueError):
                break  # a read-only install: the next run compiles again
        self.grown.clear()


def cache_path() -> Path:
    """Beside planeshift's bytecode: in ``planeshift/__pycache__/`` or its place under
    ``sys.pycache_prefix``."""
    package = Path(__file__).resolve().parent
    name = f"dataclass-methods.{sys.implementation.cache_tag}"
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix, *package.parts[1:], name)
    return package / "__pycache__" / name


def reuse_compiled_methods(folder: Path | None = None) -> MethodCache:
    """Make ``dataclasses`` compile through a :class:`MethodCache` for the rest of the process;
    the caller saves it when the command is done."""
    cache = MethodCache(folder or cache_path())
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    return cache
