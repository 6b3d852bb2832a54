"""Rule packs: YAML files that describe dispatch mechanisms; the only module that imports yaml.

A pack names each mechanism's dispatcher classes (and public aliases), every way a handler is
registered on it, how it emits, its ADR-0120 D2 dispatch policy, and ordered classification
rules that put each registration in a plane with a ``because`` citing the ADR. Loading is safe
(``yaml.safe_load``) and strict: an unknown key or a bad value is a :class:`PackError` naming
the file and the key.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

from .. import fsio
from ..atomic import write_atomic
from ..codeversion import code_version
from .forms import Pack, PackError
from .pack_reader import PackReader


@functools.cache
def _loaders() -> tuple[type, type]:
    """(safe loader, pack loader), built on first use: yaml costs ~40 ms to import and parse,
    which a scan whose pack text is in the cache never pays."""
    import yaml

    safe = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10x faster

    class PackLoader(safe):  # type: ignore[misc,valid-type]
        """SafeLoader where only true/false are booleans: `method: on` names HookBus.on, not True."""

    PackLoader.yaml_implicit_resolvers = {
        first: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    PackLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return safe, PackLoader


# -- loading ------------------------------------------------------------------------------------


_BUILTIN = Path(__file__).resolve().parent / "packs"  # (importlib.resources imports tempfile)


def builtin_pack_path(name: str) -> Path:
    return _BUILTIN / f"{name}.yaml"


def builtin_pack_names() -> list[str]:
    return sorted(p.name[:-5] for p in _BUILTIN.iterdir() if p.name.endswith(".yaml"))


def load_pack(path: str | Path, cache_dir: Path | None = None) -> Pack:
    path = Path(path)
    label = str(path)
    try:
        text = fsio.read_text(path)
    except OSError as exc:
        raise PackError(label, "<file>", f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise PackError(label, "<file>", f"not UTF-8: {exc}") from exc
    return parse_pack(text, label, cache_dir)


def parse_pack(text: str, label: str = "<string>", cache_dir: Path | None = None) -> Pack:
    """Validate a pack. With *cache_dir*, the YAML's plain data is kept there as marshal, keyed
    by the text's hash (a changed pack is parsed again; validation always runs)."""
    entry = None
    if cache_dir is not None:
        key = hashlib.sha256(f"{code_version()}\0{text}".encode()).hexdigest()
        entry = cache_dir / "packs" / f"{key}.data"
        try:
            tag, stored, data = marshal.loads(fsio.read_bytes(entry))
            if (tag, stored) != ("planeshift.pack", key):
                data = _MISSING  # another entry's bytes: parsed again
        except (OSError, ValueError, EOFError, TypeError):
            data = _MISSING
        if data is not _MISSING:
            try:
                return PackReader(label).pack(data)
            except PackError:  # a damaged entry must not blame the pack: the YAML decides
                data = _MISSING
    data = _parse_yaml(text, label)
    if entry is not None:
        _store(entry, ("planeshift.pack", key, data))
    return PackReader(label).pack(data)


_MISSING = object()


def _parse_yaml(text: str, label: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_loaders()[1])  # noqa: S506 — a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "<yaml>"
        raise PackError(label, where, f"invalid YAML: {getattr(exc, 'problem', exc)}") from exc


def _store(entry: Path, data: Any) -> None:
    """Write the parsed data atomically; data marshal cannot hold (a YAML date) is not cached,
    and an unwritable cache folder only costs the next scan a parse (the fact cache reports
    the folder)."""
    try:
        blob = marshal.dumps(data)
    except ValueError:
        return  # not marshal data: parsed again next time
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(entry, blob)
    except OSError:
        return


def compose_yaml(text: str) -> yaml.Node | None:
    """The node tree of a YAML (or JSON) document, with line marks, loaded safely.

    Raises ValueError with the line of the problem; used for hook settings files.
    """
    import yaml

    try:
        return yaml.compose(text, Loader=_loaders()[0])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ValueError(f"{where}{getattr(exc, 'problem', None) or exc}") from exc
