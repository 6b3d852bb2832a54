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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

from ..atomic import write_atomic
from ..types import PLANES, InputError

__all__ = [  # PLANES is re-exported: the planes a pack may classify into
    "PLANES", "REGISTRATION_KINDS", "POLICY_AXES", "WHEN_KEYS", "PackError", "ArgSpec",
    "Registration", "Emission", "ConfigSource", "ClassifyRule", "Mechanism", "Pack",
    "builtin_pack_path", "builtin_pack_names", "load_pack", "parse_pack", "compose_yaml",
]

REGISTRATION_KINDS = ("method", "function", "decorator", "keyword", "append", "assign", "mapping")
POLICY_AXES: dict[str, tuple[str, ...]] = {
    "concurrency": ("sequential", "concurrent"),
    "failure": ("propagate", "collect", "isolate"),
    "completion": ("await_all", "stop_on_failure", "cancel_remaining_on_failure", "detach_bounded"),
    "error_surface": (
        "return_report", "raise_first", "raise_group", "unwrap_single_else_group", "log_only",
    ),
    "sync_handlers": ("inline", "offload"),
    "handler_classification": ("by_declaration", "by_return_value"),
    "returned_value_classifier": ("inspect_awaitable", "asyncio_coroutine_only", "not_inspected"),
    "returned_awaitable": (
        "await_in_invocation", "gather_after_invocations", "discard_unawaited", "reject",
    ),
    "sync_entry": ("unavailable", "allow", "reject_declared_async_before_owner_effect"),
    "handler_cancellation": ("propagate", "translate", "collect"),
    "predicate_failure": ("propagate", "collect_as_handler_failure", "no_match", "isolate"),
    "deadline": ("none", "shared", "per_handler"),
    "deadline_disposition": ("none", "raise", "return_report", "log_and_stop", "silent_stop"),
}
WHEN_KEYS = (
    "point", "api", "via", "handler", "scope", "handler_async", "handler_returns_awaitable",
)


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


class PackError(InputError):
    """A malformed rule pack; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """Where an argument is found at a call: a position, a keyword, or the remaining positionals."""

    index: int | None = None
    keyword: str | None = None
    rest: bool = False  # all positional arguments not taken by another spec
    min_args: int = 0  # a negative index only counts when at least this many positionals exist


@dataclass(frozen=True, slots=True)
class Registration:
    kind: str  # one of REGISTRATION_KINDS
    name: str  # method / attribute / keyword name, or a qualified function / decorator name
    callables: tuple[str, ...] = ()  # keyword / mapping: the callables receiving it
    point: ArgSpec | None = None
    handler: ArgSpec | None = None
    receiver: ArgSpec | None = None  # function registrations: the argument holding the dispatcher
    fixed_point: str | None = None  # a registration that implies its point (on_error= -> "ERROR")
    many: bool = False  # the handler argument may be a list of handlers
    owner: tuple[str, ...] = ()  # append / assign: the class holding the list or slot
    item: tuple[int, int] | None = None  # append: (point, handler) positions in an appended tuple
    fixed_handler: Any = None  # derived forwarders: the handler the forwarder always registers
    # derived forwarders: "file:line" of the registration it forwards to; not part of the form's
    # identity, so moving the forwarder's lines leaves it the same form
    forwards: str = field(default="", compare=False)
    default_point: str | None = None  # derived forwarders: the point when the caller omits it

    @property
    def api_suffix(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class Emission:
    kind: str  # "method" | "function"
    name: str
    point: ArgSpec | None = None


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """Settings files that register external hooks: ``{Event: [{matcher, hooks: [{command}]}]}``."""

    files: tuple[str, ...]  # gitignore-style patterns, relative to the scan root
    key: str  # dotted path to the event map inside the file


@dataclass(frozen=True, slots=True)
class ClassifyRule:
    id: str
    plane: str
    because: str
    when: tuple[tuple[str, Any], ...] = ()
    confidence: str = "high"


@dataclass(frozen=True, slots=True)
class Mechanism:
    id: str
    title: str
    dispatchers: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    factories: tuple[str, ...] = ()  # functions returning a dispatcher (for external dispatchers)
    points: tuple[str, ...] = ()  # qualified names of the point enum (and its aliases)
    dormant_points: tuple[str, ...] = ()
    registrations: tuple[Registration, ...] = ()
    emissions: tuple[Emission, ...] = ()
    policy: tuple[tuple[str, str], ...] = ()
    policy_evidence: str = ""
    profile: tuple[tuple[str, str], ...] = ()  # (entry method or "*", ADR-0120 D2 profile name)
    classify: tuple[ClassifyRule, ...] = ()
    pack: str = ""
    description: str = ""
    config: tuple[ConfigSource, ...] = ()

    @property
    def policy_map(self) -> dict[str, str]:
        return dict(self.policy)


@dataclass(frozen=True, slots=True)
class Pack:
    name: str
    path: str
    mechanisms: tuple[Mechanism, ...]
    description: str = ""
    not_registrations: tuple[str, ...] = field(default=())  # qualified names never to report


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
        text = path.read_text(encoding="utf-8")
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
        from ..analyzer.cache import code_version  # (a cycle at import time, not at call time)

        key = hashlib.sha256(f"{code_version()}\0{text}".encode()).hexdigest()
        entry = cache_dir / "packs" / f"{key}.data"
        try:
            data = marshal.loads(entry.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            data = _MISSING
    if entry is None or data is _MISSING:
        data = _parse_yaml(text, label)
        if entry is not None:
            _store(entry, data)
    from .pack_reader import (
        PackReader,  # the validating reader needs the model defined here
    )

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
    """Write the parsed data atomically; data marshal cannot hold (a YAML date) is not cached."""
    try:
        blob = marshal.dumps(data)
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(entry, blob)
    except (OSError, ValueError):
        pass  # the cache only saves time


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
