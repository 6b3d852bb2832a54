"""Refs: a small, plain-tuple expression language that facts use instead of syntax nodes.

Grammar (every ref is a tuple whose first item names its form)::

    ("name", id)                      ("attr", base, attr)
    ("call", func, args, kwargs)      args: tuple of refs; kwargs: tuple of (name | None, ref)
    ("str", value)                    ("const", repr)
    ("lambda", body, params, shown)   ("sub", base, index)      shown: the parameters as written
    ("await", ref)                    ("seq", kind, items)       kind: list | tuple | set
    ("dict", ((key, value), ...))     ("either", (ref, ...))     `a or b`, `a if c else b`, `A | B`
    ("star", ref)                     ("other", node-type)

Binding forms, used only as the value side of a binding (a name bound in some scope)::

    ("param", kind, annotation, default)   ("import", qualified-name, is_module)
    ("def", scope-qualname)                ("class", scope-qualname)
    ("iter", iterable)                     ("annot", annotation, value-or-None)
    ("unpack", value, index)

The ``ast`` pass produces this grammar; a LibCST front-end for codemods would produce the same,
so the linker never knows which parser saw a file.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

Ref = tuple
MAX_DEPTH = 12
_NAME = ast.Name
OTHER: Ref = ("other", "?")


def from_ast(node: ast.AST | None, depth: int = 0) -> Ref:
    """Convert an ``ast`` expression to a ref."""
    if node is None:
        return ("const", "None")
    if depth > MAX_DEPTH:
        return OTHER
    if node.__class__ is _NAME:  # (most refs: a name, without a converter's call)
        return ("name", node.id)  # type: ignore[attr-defined]
    convert = _CONVERT.get(node.__class__)
    if convert is None:
        return ("other", node.__class__.__name__)
    return convert(node, depth + 1)


# One converter per node class, looked up by exact class: the pass converts every assignment,
# call and return of a project, and a table lookup costs a fraction of a chain of class patterns.
def _call(node: ast.Call, d: int) -> Ref:
    pos = tuple(
        ("star", from_ast(a.value, d)) if a.__class__ is ast.Starred else from_ast(a, d)
        for a in node.args
    )
    kws = tuple((k.arg, from_ast(k.value, d)) for k in node.keywords)
    return ("call", from_ast(node.func, d), pos, kws)


def _constant(node: ast.Constant, d: int) -> Ref:
    value = node.value
    return ("str", value) if isinstance(value, str) else ("const", repr(value))


def _binop(node: ast.BinOp, d: int) -> Ref:
    if node.op.__class__ is ast.BitOr:
        return ("either", (from_ast(node.left, d), from_ast(node.right, d)))
    return ("other", "BinOp")


def _seq(kind: str) -> Callable[[Any, int], Ref]:
    return lambda node, d: ("seq", kind, tuple(from_ast(e, d) for e in node.elts))


_CONVERT: dict[type, Callable[[Any, int], Ref]] = {
    ast.Name: lambda node, d: ("name", node.id),
    ast.Attribute: lambda node, d: ("attr", from_ast(node.value, d), node.attr),
    ast.Call: _call,
    ast.Constant: _constant,
    ast.Lambda: lambda node, d: ("lambda", from_ast(node.body, d),
                                 tuple(a.arg for a in _all_args(node.args)),
                                 ast.unparse(node.args)),
    ast.Subscript: lambda node, d: ("sub", from_ast(node.value, d), from_ast(node.slice, d)),
    ast.Await: lambda node, d: ("await", from_ast(node.value, d)),
    ast.List: _seq("list"),
    ast.Tuple: _seq("tuple"),
    ast.Set: _seq("set"),
    ast.Dict: lambda node, d: ("dict", tuple((from_ast(k, d), from_ast(v, d))
                                             for k, v in zip(node.keys, node.values))),
    ast.BoolOp: lambda node, d: ("either", tuple(from_ast(v, d) for v in node.values)),
    ast.IfExp: lambda node, d: ("either", (from_ast(node.body, d), from_ast(node.orelse, d))),
    ast.BinOp: _binop,
    ast.NamedExpr: lambda node, d: from_ast(node.value, d),
    ast.Starred: lambda node, d: ("star", from_ast(node.value, d)),
}


def annotation_from_ast(node: ast.AST | None) -> Ref | None:
    """An annotation ref; string annotations ("HookBus", "X | None") are parsed as expressions."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return parse_annotation(node.value)
    return from_ast(node)


def parse_annotation(text: str) -> Ref:
    """A string annotation's expression as a ref (``"HookBus | None"``)."""
    try:
        return from_ast(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return ("other", "str-annotation")


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        out.append(args.vararg)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def last_word(ref: Ref) -> str:
    """The last name an expression spells: ``objects`` of ``Book.objects``, ``filter`` of
    ``qs.filter(...)``, ``hookspec`` of ``@pytest.hookspec(...)``; "" for anything else."""
    if ref[0] == "call":
        ref = ref[1]
    if ref[0] == "attr":
        return ref[2]
    return ref[1] if ref[0] == "name" else ""


def render(ref: Ref) -> str:
    """A readable rendering of a ref, for evidence strings."""
    kind = ref[0]
    if kind == "name":
        return ref[1]
    if kind == "attr":
        return f"{render(ref[1])}.{ref[2]}"
    if kind == "call":
        parts = [render(a) for a in ref[2]] + [
            f"{k}={render(v)}" if k else f"**{render(v)}" for k, v in ref[3]
        ]
        return f"{render(ref[1])}({', '.join(parts)})"
    if kind == "str":
        return repr(ref[1])
    if kind == "const":
        return str(ref[1])
    if kind == "lambda":
        params = ref[3] if len(ref) > 3 else ", ".join(ref[2])
        return f"lambda {params}: {render(ref[1])}" if params else f"lambda: {render(ref[1])}"
    if kind == "sub":
        return f"{render(ref[1])}[{render(ref[2])}]"
    if kind == "await":
        return f"await {render(ref[1])}"
    if kind == "seq":
        inner = ", ".join(render(r) for r in ref[2])
        return {"list": f"[{inner}]", "set": f"{{{inner}}}"}.get(ref[1], f"({inner})")
    if kind == "dict":
        return "{" + ", ".join(f"{render(k)}: {render(v)}" for k, v in ref[1]) + "}"
    if kind == "either":
        return " | ".join(render(r) for r in ref[1])
    if kind == "star":
        return f"*{render(ref[1])}"
    return f"<{ref[1]}>" if len(ref) > 1 else "<?>"
