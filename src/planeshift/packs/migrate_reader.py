"""Reading a pack's ``migrate:`` sections (the shapes `planeshift migrate` writes), strictly.

A template is a Python expression with placeholders (``{handler}``, ``{name}``, ``{stage}``,
``{order}``, ``{policy}``); it must parse, hold ``{handler}`` exactly once, and use only names
its pack imports (or builtins), so a pack error surfaces when the pack loads, not mid-rewrite.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any

from .model import (
    DEFAULT_IMPORTS,
    ADAPTER_TEMPLATES,
    DECLARATIONS,
    DEFAULT_TEMPLATES,
    MIGRATE_PLANES,
    PLACEHOLDERS,
    MechanismMigrate,
    PackMigrate,
)
from .values import ValueReader

PLACEHOLDER = re.compile(r"\{(\w+)\}")
DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
KERNEL_MODULE = re.compile(r"^(\{kernel\}|[A-Za-z_]\w*)(\.[A-Za-z_]\w*)*$")
_BUILTINS = frozenset(dir(builtins))


def read_pack_migrate(reader: ValueReader, data: Any, key: str = "migrate") -> PackMigrate:
    if data is None:
        return PackMigrate()
    data = reader.mapping(data, key, ("kernel_module", "imports", "templates", "declarations"))
    declarations = data.get("declarations", "read")
    if declarations not in DECLARATIONS:
        raise reader.fail(f"{key}.declarations",
                          f"{declarations!r} is not one of {', '.join(DECLARATIONS)}")
    kernel = data.get("kernel_module")
    if kernel is not None and not DOTTED.match(str(kernel)):
        raise reader.fail(f"{key}.kernel_module", f"{kernel!r} is not a dotted module name")
    imports = _imports(reader, data.get("imports"), f"{key}.imports")
    names = imported_names(imports)
    templates = dict(DEFAULT_TEMPLATES if declarations == "read" else ADAPTER_TEMPLATES)
    if data.get("templates") is not None:
        raw = reader.mapping(data["templates"], f"{key}.templates", MIGRATE_PLANES)
        templates = {plane: check_template(reader, text, f"{key}.templates.{plane}", names,
                                           PLACEHOLDERS)
                     for plane, text in raw.items()}
    return PackMigrate(kernel_module=kernel, templates=tuple(templates.items()), imports=imports,
                       declarations=declarations)


def read_mechanism_migrate(reader: ValueReader, data: Any, key: str,
                           pack: PackMigrate) -> MechanismMigrate:
    allowed = ("policy", "stop", "deny", "templates", "convert_discard")
    data = reader.mapping(data if data is not None else {}, key, allowed)
    names = imported_names(pack.imports)
    templates: dict[str, str] = {}
    if data.get("templates") is not None:
        raw = reader.mapping(data["templates"], f"{key}.templates", MIGRATE_PLANES)
        templates = {plane: check_template(reader, text, f"{key}.templates.{plane}", names,
                                           PLACEHOLDERS)
                     for plane, text in raw.items()}
    convert = data.get("convert_discard")
    if convert is not None:
        convert = check_template(reader, convert, f"{key}.convert_discard", names, ("handler",))
    policy = data.get("policy") or ""
    if policy and not re.fullmatch(r"[A-Za-z_][\w.-]*", str(policy)):
        raise reader.fail(f"{key}.policy", f"{policy!r} is not a policy name")
    return MechanismMigrate(
        policy=str(policy),
        stop=_qualified(reader, data.get("stop"), f"{key}.stop"),
        deny=_qualified(reader, data.get("deny"), f"{key}.deny"),
        templates=tuple(templates.items()),
        convert_discard=convert,
    )


def imported_names(imports: tuple[tuple[str, tuple[str, ...]], ...]) -> frozenset[str]:
    return frozenset(name for _, names in imports for name in names)


def check_template(reader: ValueReader, text: Any, key: str, names: frozenset[str],
                   allowed: tuple[str, ...]) -> str:
    """The template, once it is known to parse and to name only what it may."""
    text = reader.string(text, key)
    used = PLACEHOLDER.findall(text)
    unknown = sorted(set(used) - set(allowed))
    if unknown:
        raise reader.fail(key, f"unknown placeholder {{{unknown[0]}}} (allowed: "
                               f"{', '.join('{' + p + '}' for p in allowed)})")
    if used.count("handler") != 1:
        raise reader.fail(key, "a template holds {handler} exactly once")
    try:
        tree = ast.parse(PLACEHOLDER.sub(r"__ps_\1__", text), mode="eval")
    except SyntaxError as exc:
        raise reader.fail(key, f"not a Python expression: {exc.msg}") from exc
    free = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and not n.id.startswith("__ps_")} - names - _BUILTINS)
    if free:
        raise reader.fail(key, f"{free[0]!r} is neither imported (migrate.imports) nor a builtin")
    return text


def _imports(reader: ValueReader, data: Any, key: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if data is None:
        return DEFAULT_IMPORTS
    if not isinstance(data, dict) or not data:
        raise reader.fail(key, "expected a mapping of module -> names")
    out = []
    for module, names in data.items():
        if not KERNEL_MODULE.match(str(module)):
            raise reader.fail(f"{key}.{module}", "expected a dotted module name (may start with "
                                                 "{kernel})")
        listed = reader.strings(names, f"{key}.{module}")
        bad = [n for n in listed if not n.isidentifier()]
        if bad:
            raise reader.fail(f"{key}.{module}", f"{bad[0]!r} is not a name")
        out.append((str(module), listed))
    return tuple(out)


def _qualified(reader: ValueReader, value: Any, key: str) -> str | None:
    if value is None:
        return None
    text = reader.string(value, key)
    if not DOTTED.match(text):
        raise reader.fail(key, f"{text!r} is not a qualified exception name")
    return text if "." in text else f"builtins.{text}"
