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
from libcst.codemod import Codemod, CodemodContext, ContextAwareTransformer
from libcst.matchers import MatcherDecoratableTransformer

_DECORATED: dict[type, bool] = {}  # class -> does it use @m.visit / @m.leave


class FastMatcherInit(ContextAwareTransformer):
    def __init__(self, context: CodemodContext) -> None:
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

