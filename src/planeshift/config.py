"""Configuration: ``[tool.planeshift]`` in the scanned project's pyproject.toml, then flags.

Unknown keys and wrong types fail early with :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .types import InputError

KEYS = ("packs", "builtin-packs", "exclude", "gitignore", "cache-dir", "jobs")


class ConfigError(InputError):
    """A bad ``[tool.planeshift]`` table, flag value or path."""


@dataclass(frozen=True, slots=True)
class Config:
    root: Path
    packs: tuple[Path, ...] = ()  # user packs, in addition to the built-in ones
    builtin_packs: tuple[str, ...] | None = None  # None = every built-in pack
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    cache_dir: Path | None = None  # None = <root>/.planeshift_cache
    use_cache: bool = True
    jobs: int = 0  # 0 = one per core
    source: str | None = None  # the pyproject.toml the settings came from
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def with_flags(self, **flags: Any) -> Config:
        """Flags override the file (None = not given); `packs` and `exclude` add to it."""
        updates: dict[str, Any] = {}
        for key, value in flags.items():
            if value is None:
                continue
            if key in ("packs", "exclude"):
                updates[key] = (*getattr(self, key), *value)
            else:
                updates[key] = value
        return replace(self, **updates)


def find_pyproject(root: Path) -> Path | None:
    here = root if root.is_dir() else root.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists():
            return None
    return None


def load_config(root: Path, pyproject: Path | None = None) -> Config:
    root = root.resolve()
    path = pyproject or find_pyproject(root)
    if path is None:
        return Config(root=root)
    label = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(label, "<file>", f"cannot read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(label, "<file>", f"invalid TOML: {exc}") from exc
    section = data.get("tool", {}).get("planeshift")
    if section is None:
        return Config(root=root)
    if not isinstance(section, dict):
        raise ConfigError(label, "tool.planeshift", "expected a table")
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise ConfigError(label, f"tool.planeshift.{unknown[0]}",
                          f"unknown key (allowed: {', '.join(KEYS)})")
    base = path.parent

    def strings(key: str) -> tuple[str, ...]:
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(label, f"tool.planeshift.{key}", "expected a list of strings")
        return tuple(value)

    builtin = strings("builtin-packs") if "builtin-packs" in section else None
    gitignore = section.get("gitignore", True)
    if not isinstance(gitignore, bool):
        raise ConfigError(label, "tool.planeshift.gitignore", "expected true or false")
    jobs = section.get("jobs", 0)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ConfigError(label, "tool.planeshift.jobs", "expected a non-negative integer")
    cache_dir = section.get("cache-dir")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise ConfigError(label, "tool.planeshift.cache-dir", "expected a path string")
    return Config(
        root=root,
        packs=tuple((base / p).resolve() for p in strings("packs")),
        builtin_packs=builtin,
        exclude=strings("exclude"),
        gitignore=gitignore,
        cache_dir=(base / cache_dir).resolve() if cache_dir else None,
        jobs=jobs,
        source=label,
    )
