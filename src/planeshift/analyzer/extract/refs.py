"""Refs: a small, plain-tuple expression language that facts use instead of syntax nodes.

Grammar (every ref is a tuple whose first item names its form)::

    ("name", id)                      ("attr", base, attr)
    ("call", func, args, kwargs)      args: tuple of refs; kwargs: tuple of (name | None, ref)
    ("str", value)                    ("const", repr)
    ("lambda", body, params)          ("sub", base, index)
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

Ref = tuple
MAX_DEPTH = 12
OTHER: Ref = ("other", "?")


def from_ast(node: ast.AST | None, depth: int = 0) -> Ref:
    """Convert an ``ast`` expression to a ref."""
    if node is None:
        return ("const", "None")
    if depth > MAX_DEPTH:
        return OTHER
    d = depth + 1
    match node:
        case ast.Name(id=name):
            return ("name", name)
        case ast.Attribute(value=value, attr=attr):
            return ("attr", from_ast(value, d), attr)
        case ast.Call(func=func, args=args, keywords=keywords):
            pos = tuple(
                ("star", from_ast(a.value, d)) if isinstance(a, ast.Starred) else from_ast(a, d)
                for a in args
            )
            kws = tuple((k.arg, from_ast(k.value, d)) for k in keywords)
            return ("call", from_ast(func, d), pos, kws)
        case ast.Constant(value=str() as value):
            return ("str", value)
        case ast.Constant(value=value):
            return ("const", repr(value))
        case ast.Lambda(args=args, body=body):
            return ("lambda", from_ast(body, d), tuple(a.arg for a in _all_args(args)))
        case ast.Subscript(value=value, slice=index):
            return ("sub", from_ast(value, d), from_ast(index, d))
        case ast.Await(value=value):
            return ("await", from_ast(value, d))
        case ast.List(elts=elts) | ast.Tuple(elts=elts) | ast.Set(elts=elts):
            kind = type(node).__name__.lower()
            return ("seq", kind, tuple(from_ast(e, d) for e in elts))
        case ast.Dict(keys=keys, values=values):
            return ("dict", tuple((from_ast(k, d), from_ast(v, d)) for k, v in zip(keys, values)))
        case ast.BoolOp(values=values):
            return ("either", tuple(from_ast(v, d) for v in values))
        case ast.IfExp(body=body, orelse=orelse):
            return ("either", (from_ast(body, d), from_ast(orelse, d)))
        case ast.BinOp(op=ast.BitOr(), left=left, right=right):
            return ("either", (from_ast(left, d), from_ast(right, d)))
        case ast.NamedExpr(value=value):
            return from_ast(value, d)
        case ast.Starred(value=value):
            return ("star", from_ast(value, d))
    return ("other", type(node).__name__)


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
        return f"lambda {', '.join(ref[2])}: {render(ref[1])}"
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
