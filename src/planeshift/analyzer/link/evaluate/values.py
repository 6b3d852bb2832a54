"""Inferred values: the small tuples the evaluator answers with, and helpers over them.

A value is a small tuple::

    ("inst", cls)          an instance of a class (project qualname or external dotted name)
    ("cls", cls)           the class object itself        ("mod", module)
    ("func", qualname)     a function or unbound method   ("bound", cls, method)
    ("member", cls, name)  a class constant such as an enum member
    ("ext", dotted)        an external name we cannot look inside
    ("extcall", dotted)    the result of calling an external name that is not a known class
    ("str", text)          ("const", repr)
    ("lambda", module, scope, body, params)               ("partial", inner-value)
    ("dyn", reason)        decided at run time: a loop variable, getattr, a subscript
    ("unknown", reason)    not inferable statically: an untyped parameter, a missing module
"""

from __future__ import annotations

import builtins

from ...extract.facts import Ref

Value = tuple
Values = frozenset
MAX_DEPTH = 14
BUILTIN_CONTAINERS = {"list", "dict", "set", "tuple", "frozenset"}
PARTIALS = {"functools.partial", "functools.partialmethod"}
BUILTIN_NAMES = frozenset(dir(builtins))
FIELD_SPECS = {"Field", "PrivateAttr", "field", "attrib", "ib", "Attribute"}
WRAPPER_TYPES = {  # X[T] means "a T" for inference
    "typing.Optional", "typing.Annotated", "typing_extensions.Annotated",
    "pydantic.json_schema.SkipJsonSchema",
}
OPAQUE_TYPES = {"typing.Any", "typing_extensions.Any", "builtins.object", "typing.Callable",
                "collections.abc.Callable"}




def unknown(reason: str) -> Values:
    return frozenset({("unknown", reason)})


def all_unknown(values: Values) -> bool:
    return all(v[0] == "unknown" for v in values)


def untyped(values: Values) -> bool:
    """Something, of which nothing is known: values, and every one of them unknown (an ``Any``
    parameter, an attribute of one)."""
    return bool(values) and all_unknown(values)


def is_field_spec(ref: Ref) -> bool:
    """``Field(...)``, ``PrivateAttr(...)``, ``field(...)``: a declaration, not the value."""
    if ref[0] != "call":
        return False
    func = ref[1]
    name = func[1] if func[0] == "name" else func[2] if func[0] == "attr" else ""
    return name in FIELD_SPECS
