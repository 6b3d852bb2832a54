"""A pack's rewrite templates as LibCST: render one around a handler, and recognise one rendered.

A template such as ``as_subscriber(Subscription(name={name}, policy={policy},
handler={handler}))`` is parsed once with its placeholders as marker names; rendering puts the
original handler node (its text, comments and all) where ``{handler}`` was and literals for the
rest. An expression is recognised as rendered when its outermost call resolves, through the
module's imports, to the template's outermost call; the handler is then found where
``{handler}`` sits.

A handler that may be None is rendered in the optional form, ``optional(h, lambda handler:
<the template with handler=handler>)``, with ``optional`` from the module of the template's
outermost call (the kernels' ``adapters``); it is recognised the same way, its handler being the
first argument and the template's handler the lambda's parameter.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from ...packs.migrate_reader import PLACEHOLDER
from ..owner.names import dotted
from .names import ModuleNames

MARK = "__ps_{}__"
OPTIONAL = "optional"  # the adapter that passes None through: optional(value, register)
_OPTIONAL_SHAPE = cst.parse_expression("optional(__ps_value__, lambda __ps_param__: __ps_body__)")


def string_literal(value: str, quote: str = '"') -> str:
    """*value* as a literal in *quote* (the target's preferred quote) when it can be written
    plainly, else as Python spells it."""
    if quote not in value and "\\" not in value and value.isprintable():
        return f"{quote}{value}{quote}"
    return repr(value)


@dataclass(frozen=True)
class Template:
    text: str
    imports: tuple[tuple[str, str], ...]  # (name, module) of every name the template uses

    @functools.cached_property
    def tree(self) -> cst.BaseExpression:
        return cst.parse_expression(PLACEHOLDER.sub(lambda m: MARK.format(m.group(1)), self.text))

    @property
    def names(self) -> dict[str, str]:
        return dict(self.imports)

    @property
    def fields(self) -> tuple[str, ...]:
        """The placeholders the template fills in besides ``{handler}``, in order."""
        found = (m.group(1) for m in PLACEHOLDER.finditer(self.text))
        return tuple(dict.fromkeys(f for f in found if f != "handler"))

    @property
    def outer(self) -> str | None:
        """The qualified name of the template's outermost call, e.g. ``x.adapters.as_subscriber``."""
        if isinstance(self.tree, cst.Call) and isinstance(self.tree.func, cst.Name):
            name = self.tree.func.value
            module = self.names.get(name)
            return f"{module}.{name}" if module else None
        return None

    def render(self, handler: cst.BaseExpression, values: Mapping[str, str | int],
               quote: str = '"', aliases: Mapping[str, str] | None = None) -> cst.BaseExpression:
        """The template around *handler*; string values become literals in *quote*, ints
        integers; a name the template imports is spelled as *aliases* has it imported."""
        fill: dict[str, cst.BaseExpression] = {MARK.format("handler"): handler}
        fill.update({name: cst.Name(alias) for name, alias in (aliases or {}).items()})
        for key, value in values.items():
            fill[MARK.format(key)] = (cst.Integer(str(value)) if isinstance(value, int)
                                      else cst.SimpleString(string_literal(value, quote)))
        return self.tree.visit(_Fill(fill))  # type: ignore[return-value]

    @property
    def adapters(self) -> str | None:
        """The module of the template's outermost call (an adapter), which holds ``optional``."""
        outer = self.outer
        return outer.rsplit(".", 1)[0] if outer and "." in outer else None

    @property
    def optional(self) -> str | None:
        """The qualified name of the ``optional`` adapter beside the template's own."""
        return f"{self.adapters}.{OPTIONAL}" if self.adapters else None

    def parameter(self) -> str:
        """A name for the optional form's lambda parameter that no name the template reads
        (nor ``optional``) is."""
        used = {*free_names(self.text), OPTIONAL}
        name, n = "handler", 1
        while name in used:
            name, n = f"handler_{n}", n + 1
        return name

    def render_optional(self, handler: cst.BaseExpression, values: Mapping[str, str | int],
                        parameter: str, optional: str = OPTIONAL, quote: str = '"',
                        aliases: Mapping[str, str] | None = None) -> cst.BaseExpression:
        """``optional(<handler>, lambda <parameter>: <the template around parameter>)``."""
        body = self.render(cst.Name(parameter), values, quote, aliases)
        fill = {MARK.format("value"): handler, MARK.format("param"): cst.Name(parameter),
                MARK.format("body"): body, OPTIONAL: cst.Name(optional)}
        return _OPTIONAL_SHAPE.visit(_Fill(fill))  # type: ignore[return-value]

    def handler_in(self, expr: cst.BaseExpression, names: ModuleNames) -> cst.BaseExpression | None:
        """The handler inside *expr* when *expr* is this template rendered (or its optional
        form: the value handed to ``optional``), else None."""
        found = self._parts(expr, names)
        return found[0] if found else None

    def registered_in(self, expr: cst.BaseExpression, names: ModuleNames
                      ) -> cst.BaseExpression | None:
        """The node the typed registration receives as its handler when *expr* is this template
        rendered (the handler itself) or its optional form (the lambda's parameter), else None."""
        found = self._parts(expr, names)
        return found[1] if found else None

    def _parts(self, expr: cst.BaseExpression, names: ModuleNames
               ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        outer = self.outer
        if outer is None or not isinstance(expr, cst.Call):
            return None
        func = dotted(expr.func)
        resolved = names.resolve(func) if func is not None else None
        if resolved is None:
            return None
        if resolved == outer:
            handler = _follow(self.tree, expr)
            return (handler, handler) if handler is not None else None
        if resolved != self.optional:
            return None
        args = [a for a in expr.args if not a.star]
        if len(args) != 2 or len(args) != len(expr.args) or any(a.keyword for a in args):
            return None
        value, register = args[0].value, args[1].value
        if not isinstance(register, cst.Lambda):
            return None
        params = register.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params or \
                not isinstance(params.star_arg, cst.MaybeSentinel) or params.star_kwarg:
            return None
        inner = self._parts(register.body, names)
        name = params.params[0].name.value
        if inner is None or inner[0] is not inner[1] or not (
                isinstance(inner[1], cst.Name) and inner[1].value == name):
            return None
        return value, inner[1]


class _Fill(cst.CSTTransformer):
    """Each name of *fill* replaced by its node: every node rebuilt, as a transformer does (a
    template's nodes are never shared between two rewrites), without the dispatch to a
    ``visit_`` / ``leave_`` method for each node and field, of which only names have one."""

    def __init__(self, fill: Mapping[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.fill = fill

    def on_visit(self, node: cst.CSTNode) -> bool:
        return True

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode
                 ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        if type(original_node) is cst.Name:
            return self.fill.get(original_node.value, updated_node)
        return updated_node


def _follow(shape: cst.CSTNode, actual: cst.CSTNode) -> cst.BaseExpression | None:
    """The node of *actual* standing where the handler marker stands in *shape*."""
    if isinstance(shape, cst.Name) and shape.value == MARK.format("handler"):
        return actual  # type: ignore[return-value]
    if isinstance(shape, cst.Call) and isinstance(actual, cst.Call):
        for index, arg in enumerate(shape.args):
            other = _matching_arg(arg, index, actual.args)
            if other is not None:
                found = _follow(arg.value, other.value)
                if found is not None:
                    return found
    return None


def _matching_arg(arg: cst.Arg, index: int, args: Sequence[cst.Arg]) -> cst.Arg | None:
    if arg.keyword is not None:
        return next((a for a in args if a.keyword and a.keyword.value == arg.keyword.value), None)
    positional = [a for a in args if a.keyword is None and not a.star]
    return positional[index] if index < len(positional) else None


def free_names(text: str) -> list[str]:
    """The names a template's text reads (placeholders aside), in order of appearance."""
    tree = ast.parse(PLACEHOLDER.sub(lambda m: MARK.format(m.group(1)), text), mode="eval")
    seen = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and not (n.id.startswith("__ps_") and n.id.endswith("__"))]
    return list(dict.fromkeys(seen))
