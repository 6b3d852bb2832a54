"""Configuration: ``[tool.planeshift]`` in the scanned project's pyproject.toml, then flags.

Unknown keys and wrong types fail early with :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import fsio
from .types import InputError

KEYS = ("packs", "builtin-packs", "exclude", "gitignore", "cache-dir", "jobs", "context",
        "severity", "fail-on", "baseline", "owners", "kernel-module", "max-file-size")
LEVELS = ("error", "warning", "info")  # finding severities, highest first
# Python's own parser needs ~130 MB and a second per MB of source; generated files this large
# hold no registrations, and a pre-commit run must not stall on one
MAX_FILE_BYTES = 5_000_000


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
    context: tuple[Path, ...] = ()  # folders holding the source of the packs' packages
    use_context: bool = True  # read that source (else judge mechanisms from the packs alone)
    source: str | None = None  # the pyproject.toml the settings came from
    severity: tuple[tuple[str, str], ...] = ()  # (rule code, level or "off"): lint overrides
    fail_on: str = "warning"  # lint fails on a finding at or above this level
    baseline: Path | None = None  # lint's baseline file
    owners: tuple[tuple[str, str], ...] = ()  # (gitignore-style pattern, owner), last match wins
    kernel_module: str | None = None  # migrate: the import path of the kernels in the project
    max_file_bytes: int = MAX_FILE_BYTES  # a larger file is listed as not read; 0 = no limit
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def with_flags(self, **flags: Any) -> Config:
        """Flags override the file (None = not given); `packs` and `exclude` add to it."""
        updates: dict[str, Any] = {}
        for key, value in flags.items():
            if value is None:
                continue
            if key in ("packs", "exclude", "context"):
                updates[key] = (*getattr(self, key), *value)
            else:
                updates[key] = value
        return replace(self, **updates)

    @property
    def base(self) -> Path:
        """The folder relative paths in the settings start from: the pyproject's, else root."""
        return Path(self.source).resolve().parent if self.source else self.root


def find_pyproject(root: Path) -> Path | None:
    here = root if root.is_dir() else root.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.exists() and not candidate.is_dir():  # a FIFO here is an error, not a read
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
        data = tomllib.loads(fsio.read_text(path))
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
    size = section.get("max-file-size", MAX_FILE_BYTES)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ConfigError(label, "tool.planeshift.max-file-size",
                          "expected a number of bytes (0: no limit)")
    return Config(
        root=root,
        packs=tuple((base / p).resolve() for p in strings("packs")),
        builtin_packs=builtin,
        exclude=strings("exclude"),
        gitignore=gitignore,
        cache_dir=_inside(base, cache_dir, label, "cache-dir") if cache_dir else None,
        jobs=jobs,
        max_file_bytes=size,
        context=tuple((base / p).resolve() for p in strings("context")),
        source=label,
        **_lint_settings(section, label, base),
    )


def _lint_settings(section: dict[str, Any], label: str, base: Path) -> dict[str, Any]:
    """``severity``, ``fail-on``, ``baseline``, ``owners`` (lint) and ``kernel-module`` (migrate):
    the keys the scan itself never reads."""
    out: dict[str, Any] = {}
    if "severity" in section:
        out["severity"] = _severity(section["severity"], label)
    if "fail-on" in section:
        if section["fail-on"] not in LEVELS:
            raise ConfigError(label, "tool.planeshift.fail-on",
                              f"expected one of {', '.join(LEVELS)}, got {section['fail-on']!r}")
        out["fail_on"] = section["fail-on"]
    if "baseline" in section:
        if not isinstance(section["baseline"], str) or not section["baseline"]:
            raise ConfigError(label, "tool.planeshift.baseline", "expected a path string")
        out["baseline"] = _inside(base, section["baseline"], label, "baseline")
    if "owners" in section:
        owners = section["owners"]
        if not isinstance(owners, dict) or not all(
            isinstance(k, str) and k and isinstance(v, str) and v.strip() for k, v in owners.items()
        ):
            raise ConfigError(label, "tool.planeshift.owners",
                              'expected a table of pattern = "owner" strings')
        out["owners"] = tuple(owners.items())  # TOML tables keep the file's order
    if "kernel-module" in section:
        module = section["kernel-module"]
        if not isinstance(module, str) or not all(p.isidentifier() for p in module.split(".")):
            raise ConfigError(label, "tool.planeshift.kernel-module",
                              f"expected a dotted module name, got {module!r}")
        out["kernel_module"] = module
    return out


def _inside(base: Path, value: str, label: str, key: str) -> Path:
    """A path the settings name for planeshift to write (the cache, the baseline): it must stay
    in the settings file's folder, so a checked-out repository cannot direct writes elsewhere
    (a flag may: the user typed it)."""
    path = (base / value).resolve()
    if not path.is_relative_to(base.resolve()):
        raise ConfigError(label, f"tool.planeshift.{key}",
                          f"{value!r} leads outside {base} (to {path}); give it as a flag instead")
    return path


def _severity(table: Any, label: str) -> tuple[tuple[str, str], ...]:
    """``{PS103 = "info", PS107 = "off"}``: each code must name a rule planeshift reports."""
    key = "tool.planeshift.severity"
    if not isinstance(table, dict):
        raise ConfigError(label, key, 'expected a table of rule code = "error|warning|info|off"')
    from .rules.catalog import (
        rule_codes,  # only when the key is used: it imports every rule
    )

    known = rule_codes()
    out = []
    for code, level in table.items():
        if code not in known:
            raise ConfigError(label, f"{key}.{code}", f"no such rule (have: {', '.join(known)})")
        if level not in (*LEVELS, "off"):
            raise ConfigError(label, f"{key}.{code}",
                              f"expected one of {', '.join((*LEVELS, 'off'))}, got {level!r}")
        out.append((code, level))
    return tuple(out)
