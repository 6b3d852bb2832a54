"""Declarations the symbol pass reads: parameters, decorator names, relative imports, lazy
import tables."""

from __future__ import annotations

import ast

from .facts import Param
from .refs import Ref, annotation_from_ast, from_ast


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module a relative import names, from the importing module's own name."""
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


def params_of(args: ast.arguments, kind: str) -> tuple[Param, ...]:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    out: list[Param] = []
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        pkind = "pos"
        if i == 0 and kind in ("method", "property"):
            pkind = "self"
        elif i == 0 and kind == "classmethod":
            pkind = "cls"
        out.append(Param(arg.arg, pkind, annotation_from_ast(arg.annotation), _optional(default)))
    if args.vararg:
        out.append(Param(args.vararg.arg, "vararg", annotation_from_ast(args.vararg.annotation)))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out.append(Param(arg.arg, "kwonly", annotation_from_ast(arg.annotation), _optional(default)))
    if args.kwarg:
        out.append(Param(args.kwarg.arg, "kwarg", annotation_from_ast(args.kwarg.annotation)))
    return tuple(out)


def _optional(node: ast.expr | None) -> Ref | None:
    return from_ast(node) if node is not None else None


def decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    parts: list[str] = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if isinstance(target, ast.Name):
        parts.append(target.id)
    return ".".join(reversed(parts))


def lazy_entries(node: ast.Dict) -> list[tuple[str, str, str]]:
    """Entries of a lazy-import table: ``{"Name": ("pkg.mod", "Attr")}`` or ``{"Name": "pkg.mod"}``."""
    out: list[tuple[str, str, str]] = []
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return []
        name = key.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            out.append((name, value.value, name))
        elif isinstance(value, ast.Tuple) and value.elts and all(
            isinstance(e, ast.Constant) and (isinstance(e.value, str) or e.value is None)
            for e in value.elts
        ):
            module = value.elts[0].value
            attr = value.elts[1].value if len(value.elts) > 1 else None
            out.append((name, module, attr or name))
        else:
            return []
    return out
