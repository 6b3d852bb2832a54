"""A ContextAwareTransformer that skips LibCST's per-instance matcher introspection.

``MatcherDecoratableTransformer`` walks ``dir(self)`` three times per instance (in ``__init__``
for ``@m.visit`` / ``@m.leave`` methods, and at its first visit for ``@m.call_if_inside``
ones): ~20 ms, as long as parsing a small file, paid by every codemod and import visitor made
for every file. The answer is a property of the class, so it is computed once per class; a
class that uses any of those decorators gets LibCST's own behaviour.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst.codemod import (Codemod, CodemodContext, ContextAwareTransformer,
                            VisitorBasedCodemodCommand)
from libcst.matchers import MatcherDecoratableTransformer

_DECORATED: dict[type, bool] = {}  # class -> does it use @m.visit / @m.leave
_PLAIN: dict[type, bool] = {}  # class -> neither decorated nor with visit_ / leave_ methods
# LibCST's transformer and command classes, whose visit_ / leave_ methods are defaults that do
# nothing (``AddImportsVisitor``'s, say, are not among them)
_LIBCST = {*VisitorBasedCodemodCommand.__mro__, *ContextAwareTransformer.__mro__}


class FastMatcherInit(ContextAwareTransformer):
    plain = False  # (per instance, from the class: see the module's docstring)

    def __init__(self, context: CodemodContext) -> None:
        self._init(context)
        cls = type(self)
        if cls not in _PLAIN:
            own = (name for k in cls.__mro__ if k not in _LIBCST for name in vars(k))
            _PLAIN[cls] = not _DECORATED[cls] and not any(
                name.startswith(("visit_", "leave_")) for name in own)
        self.plain = _PLAIN[cls]

    def on_visit_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if not self.plain:
            super().on_visit_attribute(original_node, attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if not self.plain:
            super().on_leave_attribute(original_node, attribute)

    def _init(self, context: CodemodContext) -> None:
        cls = type(self)
        if cls not in _DECORATED:
            MatcherDecoratableTransformer.__init__(self)
            _DECORATED[cls] = bool(self._extra_visit_funcs or self._extra_leave_funcs
                                   or self._matchers)
            Codemod.__init__(self, context)
            return
        if _DECORATED[cls]:
            ContextAwareTransformer.__init__(self, context)
            return
        Codemod.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self._MatcherDecoratableTransformer__matchers: Any = {}  # what LibCST would gather
        self._extra_visit_funcs = {}
        self._extra_leave_funcs = {}

